/**
 * Governor's capacity mix in the backtest, with the decision code it runs in AWS: the planner
 * (stepMix, every PLAN_EVERY_MINUTES on a forecast refitted hourly from delivered minutes) and
 * the interruption handler (handleSpotBatch, on each minute's warnings and failed spot launches,
 * as the spot-events function gets them: a failed launch leaves spot out for
 * interruptions.poolUnavailableMinutes, warnings for more than breaker.reclaimedPercent of the
 * plan's spot within breaker.windowMinutes open the breaker, and either shifts the plan). The engine's floor is lossCoverFloor(): what, under the plan's
 * MixedInstancesPolicy, still serves the p90 forecast over the next replacement lead time after
 * losing its largest spot pool, as in AWS.
 */

import { effectiveLead } from '../../floors/lead-time.ts';
import { historyStart } from '../../forecast/series.ts';
import type { SpotEvent } from '../../interruptions/events.ts';
import { handleSpotBatch } from '../../interruptions/handle.ts';
import { availabilityAt, type SpotState } from '../../interruptions/state.ts';
import { spotPools } from '../../mix/optimize.ts';
import { initialMixState, stepMix } from '../../mix/plan.ts';
import { lossCoverFloor } from '../../mix/shift.ts';
import {
  type ForecastPoint,
  listsSpot,
  type MixPlan,
  type MixPolicy,
  type MixReasonCode,
  type MixState,
  replacementLeadMinutes,
  type SpotAvailability,
  spotHeadroomOf,
} from '../../mix/types.ts';
import type { MetricsView } from '../metrics.ts';
import { DeliveredWindow } from '../policies/delivered-window.ts';
import { ScaleOutClock } from '../policies/lead-clock.ts';
import { DIRECT_FITS, type LookaheadFits } from '../policies/lookahead.ts';
import { ALL_ON_DEMAND, type GroupMix } from './fleet.ts';
import { type BacktestPool, poolIndexesOf } from './pools.ts';

/** The mix function's schedule in the template: every 5 minutes. */
export const PLAN_EVERY_MINUTES = 5;
const REFIT_EVERY_MINUTES = 60;
const DAY = 1440;
const HISTORY_DAYS = 14;

export interface MixControllerOptions {
  policy: MixPolicy;
  /** The target's forecast.leadTimeMinutes: the measured lead starts there, as in AWS. */
  forecastLeadMinutes: number;
  /** Requests per minute one instance serves at the SLO (trace units): forecast to instances. */
  instanceCapacity: number;
  /** How forecasts are fitted (default: directly; the mix backtest shares a memo across its rows). */
  fits?: LookaheadFits;
  /** The simulated pools (type and zone; pools.ts), whose indexes the group's mix names. */
  pools: readonly BacktestPool[];
}

export class MixController {
  readonly #o: MixControllerOptions;
  /** The policy with the replacement lead measured so far (the forecast floor's lead in AWS). */
  #policy: MixPolicy;
  readonly #clock = new ScaleOutClock();
  #state: MixState = initialMixState();
  #spot: SpotState | null = null;
  /** Simulated instance and event ids: every reclaimed instance is a new one. */
  #ids = 0;
  #points: ForecastPoint[] | null = null;
  #fittedAt = Number.NEGATIVE_INFINITY;
  readonly #delivered: number[] = [];
  readonly reasonCounts: Partial<Record<MixReasonCode, number>> = {};
  breakerTrips = 0;
  shifts = 0;

  readonly #pools: readonly BacktestPool[];

  constructor(options: MixControllerOptions) {
    this.#o = options;
    this.#pools = options.pools;
    this.#policy = this.#withLead(options.forecastLeadMinutes);
  }

  #withLead(measured: number): MixPolicy {
    const { policy } = this.#o;
    return {
      ...policy,
      replacementLeadMinutes: replacementLeadMinutes(policy.mix.replacementLeadTimeMinutes, measured),
    };
  }

  /**
   * Each minute, with the group's ready instances and the capacity decided: the scale-outs are
   * timed as the evaluator times them in AWS, and the replacement lead follows their measured lead.
   */
  observe(ready: number, current: number, desired: number, now: number): void {
    if (this.#clock.observe(ready, now))
      this.#policy = this.#withLead(effectiveLead(this.#o.forecastLeadMinutes, this.#clock.samples).minutes);
    this.#clock.decided(current, desired, now);
  }

  get plan(): MixPlan | null {
    return this.#state.plan;
  }

  /**
   * The engine's floors at `minute`, as the evaluator gives them in AWS (functions/evaluate/mix-plan.ts:
   * committedFloor and mixFloor): the plan's committed base (paid whether it runs or not) and the
   * loss cover of the p90 over the replacement lead time (0 without spot); both 0 without a plan.
   */
  floorsAt(minute: number): { committed: number; lossCover: number } {
    const plan = this.#state.plan;
    if (!plan) return { committed: 0, lossCover: 0 };
    if (plan.spot === 0 || !this.#points) return { committed: plan.committed, lossCover: 0 };
    const from = minute * 60_000;
    const to = from + this.#policy.replacementLeadMinutes * 60_000;
    let need = 0;
    for (const p of this.#points) if (p.at + 5 * 60_000 > from && p.at <= to) need = Math.max(need, p.p90);
    return { committed: plan.committed, lossCover: lossCoverFloor(this.#policy, plan, need) };
  }

  /**
   * The engine's spot headroom (capacityMix.spot.overProvision) while the plan in force lets the
   * group run spot (listsSpot), as the evaluator gives it in AWS (functions/evaluate/mix-plan.ts);
   * 0 without a plan, or under one that runs on demand only (none planned, the breaker open).
   */
  spotHeadroom(): number {
    const plan = this.#state.plan;
    return plan ? spotHeadroomOf(this.#policy, plan) : 0;
  }

  availability(minute: number): SpotAvailability {
    return availabilityAt(this.#spot, minute * 60_000);
  }

  /**
   * The group's MixedInstancesPolicy from the plan in force (all on-demand before the first): its
   * spot pools whenever it may run spot, planned or above the plan's capacity.
   */
  groupMix(): GroupMix {
    const plan = this.#state.plan;
    if (!plan || !listsSpot(plan)) return ALL_ON_DEMAND;
    const eligible = new Set(spotPools(this.#policy).map((p) => p.instanceType));
    const listed = plan.mixedInstancesPolicy.overrides
      .map((o) => o.instanceType)
      .filter((t) => eligible.has(t));
    // A listed type is listed in every zone of the group: AWS, not Governor, picks the pools.
    return {
      onDemandBase: plan.mixedInstancesPolicy.onDemandBaseCapacity,
      onDemandPercentAboveBase: plan.mixedInstancesPolicy.onDemandPercentageAboveBaseCapacity,
      spotPools: poolIndexesOf(this.#pools, listed),
    };
  }

  /** Once a minute, before the capacity decision. */
  update(view: MetricsView, minute: number): void {
    for (let i = this.#delivered.length; i < view.count; i++)
      this.#delivered.push(view.valueAt(i, 'requests'));
    if (minute - this.#fittedAt >= REFIT_EVERY_MINUTES && view.count >= DAY) this.#refit(view.count, minute);
    if (minute % PLAN_EVERY_MINUTES !== 0) return;
    const points = this.#points?.filter((p) => p.at >= minute * 60_000) ?? null;
    const r = stepMix(
      this.#state,
      { forecast: points ? { points } : null, availability: this.availability(minute) },
      this.#policy,
      minute * 60_000,
    );
    this.#state = r.state;
    const primary = r.decision.reasons[0];
    if (primary) this.reasonCounts[primary] = (this.reasonCounts[primary] ?? 0) + 1;
  }

  /** Interruption warnings for `count` spot instances at `minute` (each a new instance). */
  warned(count: number, minute: number): void {
    const events = Array.from({ length: count }, (): SpotEvent => {
      const id = this.#ids++;
      return {
        ...this.#origin(minute, id),
        kind: 'interruption',
        instanceId: `i-${id}`,
        action: 'terminate',
      };
    });
    this.#handle(events, minute);
  }

  /** A spot launch failed with no listed pool able to give one: a shortage naming no type. */
  launchFailed(minute: number): void {
    const id = this.#ids++;
    this.#handle(
      [
        {
          ...this.#origin(minute, id),
          kind: 'launch-failed',
          groupName: this.#policy.targetId,
          statusCode: 'Failed',
          message: 'There is no Spot capacity available that matches your request.',
          shortage: { instanceType: null },
        },
      ],
      minute,
    );
  }

  #origin = (minute: number, id: number) => ({
    eventId: `e-${id}`,
    at: minute * 60_000,
    account: '000000000000',
    region: 'backtest',
  });

  #handle(events: SpotEvent[], minute: number): void {
    const now = minute * 60_000;
    const r = handleSpotBatch({
      state: this.#spot,
      events,
      policy: this.#policy,
      plan: this.#state.plan,
      now,
    });
    this.#spot = r.state;
    for (const a of r.actions) {
      if (a.kind === 'breaker-opened') this.breakerTrips++;
      if (a.kind === 'shift') {
        this.#state = { ...this.#state, plan: a.plan, lastChangeAt: now, pendingSince: null };
        this.shifts++;
      }
    }
  }

  #refit(count: number, minute: number): void {
    this.#fittedAt = minute;
    const history = new DeliveredWindow(this.#delivered, historyStart(count, HISTORY_DAYS), count);
    const horizon =
      Math.ceil(
        (this.#policy.mix.horizonHours * 60 + this.#policy.replacementLeadMinutes + REFIT_EVERY_MINUTES) / 5,
      ) * 5;
    const result = (this.#o.fits ?? DIRECT_FITS).forecast(history, {
      stepMinutes: 1,
      origin: count,
      horizonMinutes: horizon,
      dayStartMinute: 0,
    });
    if (!result.ok) return;
    const mu = this.#o.instanceCapacity;
    this.#points = result.quantiles.p90.map((p90, i) => ({
      at: (result.origin + 5 * i) * 60_000,
      p50: result.quantiles.p50[i]! / mu,
      p90: p90 / mu,
    }));
  }
}
