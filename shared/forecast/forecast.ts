/**
 * forecast(history, options): demand for the next hours at five-minute steps, with a point
 * forecast and p10/p50/p90/p99. Pure: the origin is an argument, nothing reads the clock.
 *
 * 1. Five-minute bins of requests per minute, the last whole days (1 to 28) up to the origin.
 * 2. Log transform; robust seasonal model + adaptive level + decaying recent deviation
 *    (./model.ts).
 * 3. Quantiles from the spread of out-of-sample errors at pseudo-origins (./residuals.ts).
 */
import { DEFAULT_PARAMS, fitModel, type Model, type ModelParams, modelKind, predictLog } from './model.ts';
import { errorQuantile, type ResidualBands, residualBands } from './residuals.ts';
import {
  BIN_MINUTES,
  BINS_PER_DAY,
  DAYS_PER_WEEK,
  fromLog,
  isPresent,
  logOffset,
  toFiveMinuteRates,
  toLog,
} from './series.ts';
import {
  ForecastInputError,
  type ForecastOptions,
  ForecastOptionsSchema,
  type ForecastResult,
  QUANTILES,
  type QuantileName,
} from './types.ts';

const P = BINS_PER_DAY;
export const MAX_HISTORY_DAYS = 28;
/** Standard normal quantiles, for the in-sample fallback with under 1.5 days of history. */
const NORMAL_Z: Record<QuantileName, number> = { p10: -1.2816, p50: 0, p90: 1.2816, p99: 2.3263 };
/**
 * The fallback widens in-sample residuals by 1.5: they flatter a model that has seen the
 * data, and miss day-to-day level changes. Used with under 1.5 days of history, and with 7 to
 * 7.7 days, when no pseudo-origin fit would have the week the real one has.
 */
const IN_SAMPLE_WIDENING = 1.5;

function parseOptions(history: readonly (number | null | undefined)[], options: ForecastOptions) {
  if (!Array.isArray(history)) throw new ForecastInputError('history must be an array of request counts');
  const parsed = ForecastOptionsSchema.safeParse(options);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ForecastInputError(`options.${issue.path.join('.')} ${issue.message}`);
  }
  const bad = history.findIndex((v) => isPresent(v) && v < 0);
  if (bad >= 0) {
    throw new ForecastInputError(
      `history[${bad}] is ${history[bad]}; request counts must be 0 or more (use null or NaN for a gap)`,
    );
  }
  return parsed.data;
}

/**
 * The bins the model sees: days that start at dayStartMinute (at most 28, the oldest padded
 * with gaps when the history starts inside it), then the bins of today up to the origin. So
 * 7 x 24 h of history ending at 06:00 is 7 days: 18 h of the first, 6 whole, and 6 h of
 * today. With less than a whole day before today (24 h ending at noon), days are counted back
 * from the origin instead, and a note says so.
 */
function window(rates: Float64Array, origin: number, dayStartMinute: number, notes: string[]) {
  const intoDay = (((origin - dayStartMinute) % 1440) + 1440) % 1440;
  let elapsed = Math.floor(intoDay / BIN_MINUTES);
  if (rates.length - elapsed < P) {
    elapsed = 0;
    if (rates.length >= P)
      notes.push('less than a whole day before today: days counted back from the origin');
  }
  let days = Math.ceil((rates.length - elapsed) / P);
  if (days > MAX_HISTORY_DAYS) {
    days = MAX_HISTORY_DAYS;
    notes.push(`history longer than ${MAX_HISTORY_DAYS} days: used the last ${MAX_HISTORY_DAYS}`);
  }
  const bins = new Float64Array(days * P + elapsed).fill(Number.NaN);
  const kept = Math.min(bins.length, rates.length);
  bins.set(rates.subarray(rates.length - kept), bins.length - kept);
  return { bins, elapsed, days: rates.length < P ? 0 : days, padded: bins.length - kept };
}

function modelNotes(model: Model, rates: Float64Array, notes: string[]): void {
  const days = model.seasonal.days;
  if (days < DAYS_PER_WEEK) {
    notes.push(
      `${days} day${days === 1 ? '' : 's'} of history, less than a week: daily seasonality only, no weekly cycle`,
    );
  } else if (days < 2 * DAYS_PER_WEEK) {
    notes.push(
      `${days} days of history, less than two weeks: weekday shapes seen in one week only count half`,
    );
  }
  const missing = rates.reduce((n, v) => n + (Number.isFinite(v) ? 0 : 1), 0);
  if (missing > 0)
    notes.push(`${((100 * missing) / rates.length).toFixed(1)} % of five-minute bins missing: skipped`);
}

/**
 * Log offset of a quantile from the model's median at step k: the spread of out-of-sample
 * errors around their median (the p50 is the model's own), else the widened in-sample scale.
 * Centring on the errors' median, not on zero, matters when the pseudo-origins' fits are a
 * weaker model than the real one (7 days of history leaves them under a week: daily only):
 * their errors say how wide the band is, not which way the real model leans. On NASA with
 * 7 days of history p50 pinball fell from 11.5 to 7.2; with 14 days it rose from 5.5 to 5.6.
 */
function quantileOffset(bands: ResidualBands, model: Model, k: number, name: QuantileName): number {
  if (bands.samples > 0) return errorQuantile(bands, k, QUANTILES[name]) - errorQuantile(bands, k, 0.5);
  return NORMAL_Z[name] * IN_SAMPLE_WIDENING * model.seasonal.fitScale;
}

export function forecast(
  history: readonly (number | null | undefined)[],
  options: ForecastOptions,
  params: ModelParams = DEFAULT_PARAMS,
): ForecastResult {
  const { stepMinutes, origin, horizonMinutes, dayStartMinute } = parseOptions(history, options);
  const notes: string[] = [];
  const {
    bins: rates,
    elapsed,
    days,
    padded,
  } = window(toFiveMinuteRates(history, stepMinutes), origin, dayStartMinute, notes);
  if (days < 1) {
    const minutes = history.length * stepMinutes;
    return {
      ok: false,
      reason: 'InsufficientHistory',
      message: `the history covers ${minutes} minutes; a forecast needs at least one whole day (1440 minutes)`,
    };
  }
  if (!rates.some(Number.isFinite)) {
    return {
      ok: false,
      reason: 'NoData',
      message: 'every value of the last days is missing; nothing to forecast from',
    };
  }
  const c = logOffset(rates);
  const z = toLog(rates, c);
  const model = fitModel(z, elapsed, params);
  const steps = Math.ceil(horizonMinutes / BIN_MINUTES);
  const bands = residualBands(z, elapsed, steps, params);
  if (bands.samples === 0)
    notes.push('no out-of-sample errors yet: quantiles from widened in-sample residuals');
  modelNotes(model, rates.subarray(padded), notes);
  const names = Object.keys(QUANTILES) as QuantileName[];
  const quantiles = Object.fromEntries(names.map((n) => [n, new Array<number>(steps)])) as Record<
    QuantileName,
    number[]
  >;
  for (let k = 0; k < steps; k++) {
    const centre = predictLog(model, k, bands.decay ?? params.deviationDecay);
    for (const n of names) quantiles[n][k] = fromLog(centre + quantileOffset(bands, model, k, n), c);
  }
  return {
    ok: true,
    model: modelKind(model),
    notes,
    origin,
    stepMinutes: BIN_MINUTES,
    historyDays: model.seasonal.days,
    point: [...quantiles.p50],
    quantiles,
    residualSamples: bands.samples,
  };
}
