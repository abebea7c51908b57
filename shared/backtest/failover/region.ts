/**
 * One region of the failover backtest: the reference scenario's tick (shared/backtest/simulate.ts)
 * for a fleet whose demand is the share its routing weight sends it, which may lose its capacity
 * to an outage. The steps are simulate.ts's, in its order, split so the two regions can be
 * stepped in lockstep around the failover planner:
 *   begin()  step 1 (promotion), the feed advanced, an outage's start applied;
 *   decide() step 2-3: the region's governor decides (not while its control plane is down), raised
 *            to the failover planner's floor, clamped, and the fleet moves;
 *   serve()  steps 4-6 and the datapoint.
 *
 * What an outage does (docs/failover.md, "The backtest"): at its first minute every instance of
 * the region stops serving and is gone (no longer billed), starting ones with it; while it lasts
 * the region starts nothing and its Governor does not run. Requests sent to a region with no
 * ready instance fail at once (they are the error rate): they are not queued, so no backlog.
 */
import { Fleet } from '../fleet.ts';
import { type CurveParams, MetricsFeed, type MinuteState } from '../metrics.ts';
import type { Policy } from '../policies/types.ts';
import type { ResolvedScenario } from '../scenario.ts';
import { WARM_IDLE_COST } from '../simulate.ts';

const EPSILON = 1e-9;

export interface RegionOptions {
  region: string;
  targetId: string;
  policy: Policy;
  scenario: ResolvedScenario;
  initialReady: number;
  /** The target's own minCapacity (0 for a scale-to-zero standby), within the scenario's. */
  minCapacity: number;
  minutes: number;
}

export class RegionSim {
  readonly region: string;
  readonly targetId: string;
  readonly feed: MetricsFeed;
  fleet: Fleet;
  down = false;
  /** The last minute the region's control plane ran (its heartbeat), or -1. */
  lastUp = -1;
  backlog = 0;
  instanceMinutes = 0;
  /** Per minute: requests sent here, those that failed (no ready instance), and SLO violation. */
  readonly requests: Float64Array;
  readonly unserved: Float64Array;
  readonly violated: Uint8Array;
  readonly capacityErrors: Uint8Array;
  readonly ready: Int32Array;
  /** Per minute: instances billed (ready + starting), as the backtest's provisioned series. */
  readonly provisioned: Int32Array;
  readonly #o: RegionOptions;
  readonly #curve: CurveParams;
  /** One minute's state, refilled every minute: the feed copies it into its columns. */
  readonly #minute: MinuteState = { minute: 0, requests: 0, work: 0, ready: 0, backlogIn: 0, backlogOut: 0 };

  constructor(o: RegionOptions) {
    this.#o = o;
    const { scenario } = o;
    this.#curve = { muSat: scenario.muSat, sloMs: scenario.sloMs, sloUtilization: scenario.sloUtilization };
    this.region = o.region;
    this.targetId = o.targetId;
    this.fleet = this.#newFleet(o.initialReady);
    this.feed = new MetricsFeed(o.scenario.metricDelayMinutes);
    this.requests = new Float64Array(o.minutes);
    this.unserved = new Float64Array(o.minutes);
    this.violated = new Uint8Array(o.minutes);
    this.capacityErrors = new Uint8Array(o.minutes);
    this.ready = new Int32Array(o.minutes);
    this.provisioned = new Int32Array(o.minutes);
  }

  #newFleet(initialReady: number): Fleet {
    const { scenario, policy } = this.#o;
    return new Fleet({
      initialReady,
      coldStartMinutes: policy.startDelayMinutes ?? scenario.coldStartMinutes,
      warmStartMinutes: scenario.warmStartMinutes,
      warmPoolSize: 0,
    });
  }

  /** Step 1 for minute m; `down` says whether the region is in its outage this minute. */
  begin(m: number, down: boolean): void {
    if (down && !this.down) {
      this.fleet = this.#newFleet(0);
      this.backlog = 0;
    }
    this.down = down;
    // The control plane beats at the start of each minute it runs.
    if (!down) this.lastUp = m;
    this.fleet.promote(m);
    this.feed.advanceTo(m);
  }

  /** Steps 2-3: the governor's capacity, raised to `floor`; nothing moves while the region is down. */
  decide(m: number, floor: number): boolean {
    if (this.down) return false;
    const { scenario, policy } = this.#o;
    const view = {
      now: m * 60_000,
      ready: this.fleet.ready,
      pending: this.fleet.pending,
      warmIdle: this.fleet.warmIdle,
      metrics: this.feed,
    };
    const wanted = policy.decide(view, m);
    if (!Number.isInteger(wanted))
      throw new Error(`policy ${policy.name} returned ${wanted}, not a whole number`);
    const desired = Math.min(scenario.maxCapacity, Math.max(this.#o.minCapacity, wanted, floor));
    return this.fleet.scaleTo(desired, m);
  }

  /** Steps 4-6 for minute m with the region's share of the demand; publishes the datapoint. */
  serve(m: number, requests: number, work: number): void {
    const { scenario } = this.#o;
    const { fleet } = this;
    const { ready } = fleet;
    this.instanceMinutes += ready + fleet.pending + fleet.filling + WARM_IDLE_COST * fleet.warmIdle;
    this.requests[m] = requests;
    this.ready[m] = ready;
    this.provisioned[m] = ready + fleet.pending + fleet.filling;
    this.capacityErrors[m] = this.down ? 1 : 0;
    const backlogIn = this.backlog;
    let backlogOut = 0;
    if (ready === 0) {
      this.unserved[m] = requests;
      this.violated[m] = work > 0 ? 1 : 0;
    } else {
      if (work + backlogIn > ready * scenario.mu * (1 + EPSILON)) this.violated[m] = 1;
      const left = backlogIn + work - ready * scenario.muSat;
      backlogOut = left <= ready * scenario.muSat * EPSILON ? 0 : left;
    }
    this.backlog = backlogOut;
    const state = this.#minute;
    state.minute = m;
    state.requests = requests;
    state.work = work;
    state.ready = ready;
    state.backlogIn = backlogIn;
    state.backlogOut = backlogOut;
    this.feed.recordMinute(state, this.#curve);
  }
}
