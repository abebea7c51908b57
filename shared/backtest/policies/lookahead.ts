/**
 * Governor's look-ahead in the backtest, as functions/forecast does it in AWS: every
 * refreshMinutes it fits the forecaster (shared/forecast) on the demand history CloudWatch has
 * delivered so far, and turns the forecast into
 *   - a capacity floor for each minute t: the largest forecast quantile over [t, t + lead],
 *     in instances of requestsPerInstance, so what must serve at t + lead is asked for at t;
 *   - a warm-pool size from the forecast's spread and the burst history (sizeWarmPool).
 *   - warm capacity from the forecast's spread and the burst history (sizeWarmPool), of the
 *     kind the target can keep (shared/forecast/warm-capacity.ts): a warm pool of stopped
 *     instances for an Auto Scaling group, standby headroom above the floor for SageMaker,
 *     which has no warm pool (in service, billed in full, sized at that cost).
 * Only delivered datapoints are read: the forecast never sees the future it is scored on.
 */

import { ceilCapacity } from '../../engine/signals.ts';
import { forecast } from '../../forecast/forecast.ts';
import type { Forecast } from '../../forecast/types.ts';
import { planWarmCapacity, type WarmCosts, warmCosts } from '../../forecast/warm-capacity.ts';
import type { ForecastPolicy, TargetKind, WarmPoolPolicy } from '../../policy/schema.ts';
import type { MetricsView } from '../metrics.ts';

export interface LookaheadOptions {
  forecast: ForecastPolicy;
  warmPool?: WarmPoolPolicy;
  /** The target's kind: which warm capacity it can keep (a pool, or standby headroom). */
  kind: TargetKind;
  /** Minutes from asking for an instance to it serving, plus the metric delay. */
  leadMinutes: number;
  coldStartMinutes: number;
  /** Requests per minute (trace units) one instance is planned at, for the floor. */
  requestsPerInstance: number;
  /** Requests per minute (trace units) one instance serves at the SLO, for the warm pool. */
  instanceCapacity: number;
  /** Trace minutes, so the recorded band has one value per minute. */
  minutes: number;
}

const DAY = 1440;
/**
 * The floor holds steady in blocks: within a block it covers the forecast to the block's end plus
 * the lead time, so a ramp is met in one step per block instead of one per five-minute bin
 * (NASA: 2,215 scaling actions with 5-minute steps, see docs/forecast.md).
 */
export const FLOOR_BLOCK_MINUTES = 30;

export class Lookahead {
  readonly #o: LookaheadOptions;
  #fittedAt = Number.NEGATIVE_INFINITY;
  #floors: Int32Array = new Int32Array(0);
  #floorsFrom = 0;
  #warmPool = 0;
  /** Requests of every delivered minute so far, in order. */
  readonly #delivered: number[] = [];
  readonly #warm: WarmCosts | undefined;
  /** The band actually used, per minute (0 before the first forecast): for the report. */
  readonly p50: number[];
  readonly p90: number[];

  constructor(options: LookaheadOptions) {
    this.#o = options;
    this.#warm = options.warmPool?.enabled ? warmCosts(options.kind, options.warmPool) : undefined;
    this.p50 = new Array<number>(options.minutes).fill(0);
    this.p90 = new Array<number>(options.minutes).fill(0);
  }

  /** Idle warm-pool instances to keep: undefined when the target keeps none (or standby instead). */
  get warmPoolSize(): number | undefined {
    return this.#warm?.kind === 'warm-pool' ? this.#warmPool : undefined;
  }

  /** Standby instances kept above the floor (SageMaker): 0 for a target with a warm pool or none. */
  get standby(): number {
    return this.#warm?.kind === 'standby' ? this.#warmPool : 0;
  }

  /** Refits when due; call once per minute before floorAt. */
  update(view: MetricsView, minute: number): void {
    const { forecast: f } = this.#o;
    if (minute - this.#fittedAt < f.refreshMinutes || view.count < DAY) return;
    this.#fittedAt = minute;
    // Delivered minutes are appended once, not copied again at every refit (NASA: 220 refits of
    // 14 days were 4.4 million reads, ~0.4 s of npm start).
    for (let i = this.#delivered.length; i < view.count; i++) this.#delivered.push(view.at(i).requests);
    const history = this.#delivered.slice(Math.max(0, view.count - f.historyDays * DAY), view.count);
    const horizon = Math.ceil((minute - view.count + f.refreshMinutes + this.#o.leadMinutes + 5) / 5) * 5;
    const result = forecast(history, {
      stepMinutes: 1,
      origin: view.count,
      horizonMinutes: Math.max(5, horizon),
      dayStartMinute: f.dayStartMinute,
    });
    if (!result.ok) return;
    this.#plan(result, minute);
    if (this.#warm) this.#sizePool(result, history);
  }

  /** The floor for `minute` (standby headroom included), or undefined when no forecast covers it. */
  floorAt(minute: number): number | undefined {
    if (!this.#o.forecast.enabled) return undefined; // fitted for the warm pool only
    const i = minute - this.#floorsFrom;
    return i >= 0 && i < this.#floors.length ? this.#floors[i]! + this.standby : undefined;
  }

  #plan(result: Forecast, minute: number): void {
    const { leadMinutes, requestsPerInstance, forecast: f } = this.#o;
    const q = result.quantiles[f.quantile];
    const at = (t: number) => Math.min(q.length - 1, Math.max(0, Math.floor((t - result.origin) / 5)));
    const span = f.refreshMinutes + leadMinutes;
    this.#floorsFrom = minute;
    this.#floors = new Int32Array(span);
    for (let k = 0; k < span; k++) {
      const t = minute + k;
      let peak = 0;
      const blockEnd = Math.ceil((t + 1) / FLOOR_BLOCK_MINUTES) * FLOOR_BLOCK_MINUTES;
      for (let s = at(t); s <= at(blockEnd + leadMinutes); s++) peak = Math.max(peak, q[s]!);
      this.#floors[k] = ceilCapacity(peak / requestsPerInstance);
      if (t < this.p50.length) {
        this.p50[t] = result.quantiles.p50[at(t)]!;
        this.p90[t] = result.quantiles.p90[at(t)]!;
      }
    }
  }

  #sizePool(result: Forecast, history: number[]): void {
    this.#warmPool = planWarmCapacity({
      kind: this.#o.kind,
      pool: this.#o.warmPool!,
      forecast: result,
      demand: history,
      demandStepMinutes: 1,
      coldStartMinutes: this.#o.coldStartMinutes,
      leadMinutes: this.#o.leadMinutes,
      instanceCapacity: this.#o.instanceCapacity,
    }).size;
  }
}
