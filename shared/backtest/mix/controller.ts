/**
 * Governor's capacity mix in the backtest, with the decision code it runs in AWS: the planner
 * (stepMix, every PLAN_EVERY_MINUTES on a forecast refitted hourly from delivered minutes) and
 * the interruption handler's two shifts (replanFor: a spot launch that failed marks the listed
 * pools unavailable for interruptions.poolUnavailableMinutes; warnings for more than
 * breaker.reclaimedPercent of the plan's spot within breaker.windowMinutes open the breaker for
 * breaker.openMinutes). The engine's floor is lossCoverFloor(): what, under the plan's
 * MixedInstancesPolicy, still serves the p90 forecast over the next replacement lead time after
 * losing its largest spot pool, as in AWS.
 */
import { forecast } from '../../forecast/forecast.ts';
import { spotPools } from '../../mix/optimize.ts';
import { initialMixState, stepMix } from '../../mix/plan.ts';
import { lossCoverFloor, replanFor } from '../../mix/shift.ts';
import type {
  ForecastPoint,
  MixPlan,
  MixPolicy,
  MixReasonCode,
  MixState,
  SpotAvailability,
} from '../../mix/types.ts';
import type { MetricsView } from '../metrics.ts';
import { ALL_ON_DEMAND, type GroupMix } from './fleet.ts';

/** The mix function's schedule in the template: every 5 minutes. */
export const PLAN_EVERY_MINUTES = 5;
const REFIT_EVERY_MINUTES = 60;
const DAY = 1440;
const HISTORY_DAYS = 14;

export interface MixControllerOptions {
  policy: MixPolicy;
  /** Requests per minute one instance serves at the SLO (trace units): forecast to instances. */
  instanceCapacity: number;
}

export class MixController {
  readonly #o: MixControllerOptions;
  readonly #types: string[];
  #state: MixState = initialMixState();
  #points: ForecastPoint[] | null = null;
  #fittedAt = Number.NEGATIVE_INFINITY;
  readonly #delivered: number[] = [];
  /** Pool type -> minute until which its spot is out of reach. */
  readonly #unavailable = new Map<string, number>();
  #breakerUntil = Number.NEGATIVE_INFINITY;
  readonly #warnings: { minute: number; count: number }[] = [];
  readonly reasonCounts: Partial<Record<MixReasonCode, number>> = {};
  breakerTrips = 0;
  shifts = 0;

  constructor(options: MixControllerOptions) {
    this.#o = options;
    this.#types = options.policy.mix.pools.map((p) => p.instanceType);
  }

  get plan(): MixPlan | null {
    return this.#state.plan;
  }

  /** The engine's floor at `minute`: the loss cover of the p90 over the replacement lead time (0 without a plan or spot). */
  floorAt(minute: number): number {
    const plan = this.#state.plan;
    if (!plan || plan.spot === 0 || !this.#points) return 0;
    const from = minute * 60_000;
    const to = from + this.#o.policy.mix.replacementLeadTimeMinutes * 60_000;
    let need = 0;
    for (const p of this.#points) if (p.at + 5 * 60_000 > from && p.at <= to) need = Math.max(need, p.p90);
    return lossCoverFloor(this.#o.policy, plan, need);
  }

  availability(minute: number): SpotAvailability {
    return {
      unavailablePools: this.#types.filter((t) => (this.#unavailable.get(t) ?? -1) > minute),
      breakerOpen: this.#breakerUntil > minute,
    };
  }

  /** The group's MixedInstancesPolicy from the plan in force (all on-demand before the first). */
  groupMix(): GroupMix {
    const plan = this.#state.plan;
    if (!plan || plan.spot === 0) return ALL_ON_DEMAND;
    const eligible = new Set(spotPools(this.#o.policy).map((p) => p.instanceType));
    const listed = plan.mixedInstancesPolicy.overrides
      .map((o) => o.instanceType)
      .filter((t) => eligible.has(t));
    return {
      onDemandBase: plan.mixedInstancesPolicy.onDemandBaseCapacity,
      onDemandPercentAboveBase: plan.mixedInstancesPolicy.onDemandPercentageAboveBaseCapacity,
      spotPools: listed.map((t) => this.#types.indexOf(t)),
    };
  }

  /** Once a minute, before the capacity decision. */
  update(view: MetricsView, minute: number): void {
    for (let i = this.#delivered.length; i < view.count; i++) this.#delivered.push(view.at(i).requests);
    if (minute - this.#fittedAt >= REFIT_EVERY_MINUTES && view.count >= DAY) this.#refit(view.count, minute);
    if (minute % PLAN_EVERY_MINUTES !== 0) return;
    const points = this.#points?.filter((p) => p.at >= minute * 60_000) ?? null;
    const r = stepMix(
      this.#state,
      { forecast: points ? { points } : null, availability: this.availability(minute) },
      this.#o.policy,
      minute * 60_000,
    );
    this.#state = r.state;
    const primary = r.decision.reasons[0];
    if (primary) this.reasonCounts[primary] = (this.reasonCounts[primary] ?? 0) + 1;
  }

  /** Interruption warnings for `count` spot instances at `minute`: the breaker's count. */
  warned(count: number, minute: number): void {
    const { breaker } = this.#o.policy.mix.interruptions;
    this.#warnings.push({ minute, count });
    while (this.#warnings.length > 0 && this.#warnings[0]!.minute <= minute - breaker.windowMinutes)
      this.#warnings.shift();
    const recent = this.#warnings.reduce((s, w) => s + w.count, 0);
    const spot = this.#state.plan?.spot ?? 0;
    if (this.#breakerUntil > minute || spot === 0) return;
    if (recent * 100 > breaker.reclaimedPercent * spot) {
      this.#breakerUntil = minute + breaker.openMinutes;
      this.breakerTrips++;
      this.#shift(minute);
    }
  }

  /** A spot launch failed in every listed pool: they are out of reach for poolUnavailableMinutes. */
  launchFailed(pools: readonly number[], minute: number): void {
    const until = minute + this.#o.policy.mix.interruptions.poolUnavailableMinutes;
    for (const p of pools) this.#unavailable.set(this.#types[p]!, until);
    this.#shift(minute);
  }

  #shift(minute: number): void {
    const held = this.#state.plan;
    if (!held) return;
    const plan = replanFor(this.#o.policy, held, this.availability(minute));
    this.#state = { ...this.#state, plan, lastChangeAt: minute * 60_000, pendingSince: null };
    this.shifts++;
  }

  #refit(count: number, minute: number): void {
    this.#fittedAt = minute;
    const history = this.#delivered.slice(Math.max(0, count - HISTORY_DAYS * DAY), count);
    const { mix } = this.#o.policy;
    const horizon =
      Math.ceil((mix.horizonHours * 60 + mix.replacementLeadTimeMinutes + REFIT_EVERY_MINUTES) / 5) * 5;
    const result = forecast(history, {
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
