/**
 * Governor's look-ahead in the backtest, as functions/forecast does it in AWS. It reads only
 * delivered datapoints, so the forecast never sees the future it is scored on, and every hour
 * (or every refreshMinutes for the forecast) it refits:
 *   - the measured noise of demand around its level (shared/sizing/noise-model.ts), once an
 *     hour of minutes is in: it widens the request signal's band in the engine, and before a
 *     forecast exists it sets a floor of its own (the last level plus its noise);
 *   - the forecast (shared/forecast), once a day of minutes is in, turned into a capacity floor
 *     for each minute t: the largest of the forecast quantile at the planned requests per
 *     instance and of the forecast median plus its measured noise at the SLO capacity, held in
 *     30-minute blocks over the block and the lead after it (shared/sizing/floor-needs.ts
 *     heldNeed, as the forecast function stores it), so what must serve at t + lead is asked
 *     for by t;
 *   - warm capacity from the forecast's spread and the burst history, of the kind the target can
 *     keep (shared/sizing/warm-capacity.ts).
 * The lead is the configured one until the governor policy measures longer scale-outs
 * (setLeadMinutes), as the forecast function does with the samples the evaluator records.
 */

import { ceilCapacity } from '../../engine/signals.ts';
import { forecast } from '../../forecast/forecast.ts';
import { historyStart } from '../../forecast/series.ts';
import type { Forecast } from '../../forecast/types.ts';
import type { ForecastPolicy, NoisePolicy, TargetKind, WarmPoolPolicy } from '../../policy/schema.ts';
import { type FloorSizing, heldNeed, levelFloor, stepNeeds } from '../../sizing/floor-needs.ts';
import { fitLevelNoise, type NoiseModel } from '../../sizing/noise-model.ts';
import { TrailingMedian } from '../../sizing/rolling-median.ts';
import { planWarmCapacity, type WarmCosts, warmCosts } from '../../sizing/warm-capacity.ts';
import type { MetricsView } from '../metrics.ts';
import { DeliveredWindow } from './delivered-window.ts';

export interface LookaheadOptions {
  forecast: ForecastPolicy;
  warmPool?: WarmPoolPolicy;
  noise?: NoisePolicy;
  /** The target's kind: which warm capacity it can keep (a pool, or standby headroom). */
  kind: TargetKind;
  /** Minutes from asking for an instance to it serving, plus the metric delay, until measured. */
  leadMinutes: number;
  coldStartMinutes: number;
  /** Requests per minute (trace units) one instance is planned at, for the quantile floor. */
  requestsPerInstance: number;
  /** Requests per minute (trace units) one instance serves at the SLO: the noise floor and warm pool. */
  instanceCapacity: number;
  /** Trace minutes, so the recorded band has one value per minute. */
  minutes: number;
  /**
   * How forecasts and noise fits are computed (default: directly). Both depend on the delivered
   * history and their own options only, never on the policy's other settings, so `governor
   * tune` passes one that remembers them across the candidates it tries (lookaheadMemo).
   */
  fits?: LookaheadFits;
}

export interface LookaheadFits {
  /** The forecast of the window's minutes (options.origin is the minute after its end). */
  forecast: (
    history: DeliveredWindow,
    options: Parameters<typeof forecast>[1],
    params?: Parameters<typeof forecast>[2],
  ) => ReturnType<typeof forecast>;
  /**
   * The noise of the window's minutes. `levels`, when given, gives their trailingMedians at
   * levelMinutes, kept by the caller as minutes arrive; called only when the fit is computed (a
   * shared fit needs no copy of them).
   */
  levelNoise: (
    history: DeliveredWindow,
    levelMinutes: number,
    levels?: () => ArrayLike<number>,
  ) => NoiseModel | null;
}

export const DIRECT_FITS: LookaheadFits = {
  forecast: (history, options, params) => forecast(history.values(), options, params),
  levelNoise: (history, levelMinutes, levels) => fitLevelNoise(history.values(), levelMinutes, levels?.()),
};

/** A memo that also takes forecasts computed elsewhere (another thread's) for the same trace. */
export interface LookaheadMemo extends LookaheadFits {
  /** The forecast of the `length` minutes before options.origin, as forecast() gave it. */
  seedForecast(
    length: number,
    options: Parameters<typeof forecast>[1],
    result: ReturnType<typeof forecast>,
  ): void;
}

/**
 * Fits computed once per trace: a forecast keyed by origin, horizon, history length and day
 * start; a noise model by the history's length and end, and the level window (for one trace
 * the history is fixed by where it ends and how long it is).
 */
export function lookaheadMemo(): LookaheadMemo {
  const forecasts = new Map<string, ReturnType<typeof forecast>>();
  const noises = new Map<string, NoiseModel | null>();
  const keyOf = (length: number, o: Parameters<typeof forecast>[1]) =>
    `${o.origin}|${o.horizonMinutes}|${length}|${o.dayStartMinute}|${o.stepMinutes}`;
  return {
    forecast: (history, options, params) => {
      const key = keyOf(history.length, options);
      if (!forecasts.has(key)) forecasts.set(key, forecast(history.values(), options, params));
      return forecasts.get(key)!;
    },
    seedForecast: (length, options, result) => {
      forecasts.set(keyOf(length, options), result);
    },
    levelNoise: (history, levelMinutes, levels) => {
      const key = `${history.to}|${history.length}|${levelMinutes}`;
      if (!noises.has(key)) noises.set(key, fitLevelNoise(history.values(), levelMinutes, levels?.()));
      return noises.get(key)!;
    },
  };
}

/** The floor for a minute, and where it came from. */
export interface LookaheadFloor {
  capacity: number;
  kind: 'forecast' | 'level';
  /** The simpler forecaster a forecast floor came from (ForecastFallback on the decision). */
  fallback?: 'recent-level' | 'naive-day';
}

const DAY = 1440;
/** The noise is refitted, and the floor before a forecast re-planned, once an hour, as the forecast function runs. */
const NOISE_REFRESH_MINUTES = 60;

export class Lookahead {
  readonly #o: LookaheadOptions;
  #lead: number;
  #fittedAt = Number.NEGATIVE_INFINITY;
  #noiseAt = Number.NEGATIVE_INFINITY;
  #floors: Int32Array = new Int32Array(0);
  #floorsFrom = 0;
  /** The simpler forecaster the current floors came from, when the forecast fell back to one. */
  #fallback: Forecast['fallback'] = undefined;
  /** Before the first forecast: the floor of the last level plus its noise, for an hour. */
  #levelFloor: { from: number; capacity: number } | null = null;
  #noise: NoiseModel | null = null;
  #warmPool = 0;
  /** Requests of every delivered minute so far, in order. */
  readonly #delivered: number[] = [];
  /**
   * The noise's level of every delivered minute (trailingMedians at noise.levelMinutes), kept as
   * minutes arrive: each hourly refit read two days of them again (about 6 % of a run).
   */
  readonly #levels: number[] = [];
  readonly #median: TrailingMedian | null;
  readonly #warm: WarmCosts | undefined;
  /** The band actually used, per minute (0 before the first forecast): for the report. */
  readonly p50: number[];
  readonly p90: number[];

  constructor(options: LookaheadOptions) {
    this.#o = options;
    this.#lead = options.leadMinutes;
    this.#warm = options.warmPool?.enabled ? warmCosts(options.kind, options.warmPool) : undefined;
    this.p50 = new Array<number>(options.minutes).fill(0);
    this.p90 = new Array<number>(options.minutes).fill(0);
    this.#median = options.noise?.enabled ? new TrailingMedian(options.noise.levelMinutes) : null;
  }

  /** Idle warm-pool instances to keep: undefined when the target keeps none (or standby instead). */
  get warmPoolSize(): number | undefined {
    return this.#warm?.kind === 'warm-pool' ? this.#warmPool : undefined;
  }

  /** Standby instances kept above the floor (SageMaker): 0 for a target with a warm pool or none. */
  get standby(): number {
    return this.#warm?.kind === 'standby' ? this.#warmPool : 0;
  }

  /** The measured noise (trace units), or null before an hour of minutes or with noise off. */
  get noise(): NoiseModel | null {
    return this.#noise;
  }

  /** The lead the next floors are planned over (the governor policy's measured one). */
  setLeadMinutes(minutes: number): void {
    this.#lead = minutes;
  }

  /** Refits when due; call once per minute before floorAt. */
  update(view: MetricsView, minute: number): void {
    // Delivered minutes are appended once, not copied again at every refit (NASA: 220 refits of
    // 14 days were 4.4 million reads, ~0.4 s of npm start).
    for (let i = this.#delivered.length; i < view.count; i++) {
      const requests = view.valueAt(i, 'requests');
      this.#delivered.push(requests);
      if (this.#median) this.#levels.push(this.#median.next(requests));
    }
    if (minute - this.#noiseAt >= NOISE_REFRESH_MINUTES) this.#refitNoise(minute);
    const { forecast: f } = this.#o;
    if (!f.enabled && !this.#warm) return;
    if (minute - this.#fittedAt < f.refreshMinutes || view.count < DAY) return;
    this.#fittedAt = minute;
    // From a day's start (historyStart), so the refits of one day reuse its days' fits.
    const history = new DeliveredWindow(
      this.#delivered,
      historyStart(view.count, f.historyDays, f.dayStartMinute),
      view.count,
    );
    const horizon = Math.ceil((minute - view.count + f.refreshMinutes + this.#lead + 5) / 5) * 5;
    const result = (this.#o.fits ?? DIRECT_FITS).forecast(history, {
      stepMinutes: 1,
      origin: view.count,
      horizonMinutes: Math.max(5, horizon),
      dayStartMinute: f.dayStartMinute,
    });
    if (!result.ok) return;
    this.#plan(result, minute);
    if (this.#warm) this.#sizePool(result, history.values());
  }

  /**
   * The floor for `minute`: the forecast's (standby headroom included) where one covers it, else
   * the last level plus its noise while that is under an hour old, else undefined.
   */
  floorAt(minute: number): LookaheadFloor | undefined {
    const i = minute - this.#floorsFrom;
    if (this.#o.forecast.enabled && i >= 0 && i < this.#floors.length) {
      const capacity = this.#floors[i]! + this.standby;
      return this.#fallback
        ? { capacity, kind: 'forecast', fallback: this.#fallback.to }
        : { capacity, kind: 'forecast' };
    }
    const level = this.#levelFloor;
    return level && minute - level.from < NOISE_REFRESH_MINUTES
      ? { capacity: level.capacity, kind: 'level' }
      : undefined;
  }

  #refitNoise(minute: number): void {
    const n = this.#o.noise;
    if (!n?.enabled) return;
    const seen = this.#delivered.length;
    if (seen < n.levelMinutes + 20) return;
    this.#noiseAt = minute;
    const from = Math.max(0, seen - n.historyMinutes);
    const history = new DeliveredWindow(this.#delivered, from, seen);
    // The history's own trailing medians: the kept levels, but none for its first levelMinutes
    // (trailingMedians of the slice has none there either).
    const levels = () => {
      const out = new Float64Array(seen - from);
      for (let i = 0; i < out.length; i++) out[i] = i < n.levelMinutes ? Number.NaN : this.#levels[from + i]!;
      return out;
    };
    this.#noise = (this.#o.fits ?? DIRECT_FITS).levelNoise(history, n.levelMinutes, levels);
    const need = levelFloor(this.#delivered, n.levelMinutes, this.#sizing());
    this.#levelFloor = need === null ? null : { from: minute, capacity: ceilCapacity(need) };
  }

  #sizing(): FloorSizing {
    const { requestsPerInstance, instanceCapacity, noise } = this.#o;
    return {
      requestsPerInstance,
      instanceCapacity,
      floorSigmas: noise?.enabled ? noise.floorSigmas : 0,
      noise: this.#noise,
    };
  }

  #plan(result: Forecast, minute: number): void {
    const { forecast: f } = this.#o;
    const lead = this.#lead;
    const needs = stepNeeds(result.quantiles[f.quantile], result.quantiles.p50, this.#sizing());
    const at = (t: number) => Math.min(needs.length - 1, Math.max(0, Math.floor((t - result.origin) / 5)));
    const span = f.refreshMinutes + lead;
    this.#floorsFrom = minute;
    this.#floors = new Int32Array(span);
    this.#fallback = result.fallback;
    for (let k = 0; k < span; k++) {
      const t = minute + k;
      this.#floors[k] = ceilCapacity(heldNeed(needs, result.origin, result.stepMinutes, t, lead));
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
      leadMinutes: this.#lead,
      instanceCapacity: this.#o.instanceCapacity,
    }).size;
  }
}
