/**
 * forecast(history, options): demand for the next hours at five-minute steps, with a point
 * forecast and p10/p50/p90/p99. Pure: the origin is an argument, nothing reads the clock.
 *
 * 1. Five-minute bins of requests per minute: up to 28 calendar days (starting at
 *    dayStartMinute), then today up to the origin.
 * 2. Log transform; robust seasonal model with a day level and trend that take level steps
 *    (./model.ts, ./level.ts), fitted with the weekly effects at full and at half weight.
 * 3. Pseudo-origins (./residuals.ts): their errors choose the weight and the correction from
 *    the last hours (./correction.ts), and make the band, shaped over the day (./band.ts).
 * 4. A simpler forecaster replaces the seasonal model when it scored better over the last
 *    24 h (./fallback.ts), and the result says so.
 */
import { chooseFallback, type FallbackChoice, fallbackMessage } from './fallback.ts';
import {
  DEFAULT_PARAMS,
  dayEffectAt,
  daysFits,
  fitModels,
  type Model,
  type ModelParams,
  modelKind,
  WEEKLY_WEIGHTS,
} from './model.ts';
import { quantileSeries, seasonalForecaster } from './quantiles.ts';
import { residualBands } from './residuals.ts';
import {
  BIN_MINUTES,
  BINS_PER_DAY,
  DAYS_PER_WEEK,
  isPresent,
  logOffset,
  minutesIntoDay,
  toFiveMinuteRates,
  toLog,
} from './series.ts';
import {
  type Forecast,
  ForecastInputError,
  type ForecastOptions,
  ForecastOptionsSchema,
  type ForecastResult,
  type ForecastUnavailable,
} from './types.ts';

const P = BINS_PER_DAY;
export const MAX_HISTORY_DAYS = 28;

function parseOptions(history: readonly (number | null | undefined)[], options: ForecastOptions) {
  if (!Array.isArray(history)) throw new ForecastInputError('history must be an array of request counts');
  const parsed = ForecastOptionsSchema.safeParse(options);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ForecastInputError(`options.${issue.path.join('.')} ${issue.message}`);
  }
  let bad = -1;
  for (let i = 0; i < history.length && bad < 0; i++) {
    const v = history[i];
    if (isPresent(v) && v < 0) bad = i;
  }
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
  let elapsed = Math.floor(minutesIntoDay(origin, dayStartMinute) / BIN_MINUTES);
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

function unavailable(rates: Float64Array, days: number, historyMinutes: number): ForecastUnavailable | null {
  if (days < 1) {
    const message = `the history covers ${historyMinutes} minutes; a forecast needs at least one whole day (1440 minutes)`;
    return { ok: false, reason: 'InsufficientHistory', message };
  }
  if (!rates.some(Number.isFinite)) {
    const message = 'every value of the last days is missing; nothing to forecast from';
    return { ok: false, reason: 'NoData', message };
  }
  return null;
}

/** The fallback as the result reports it, or undefined. */
function reported(choice: FallbackChoice | null): Forecast['fallback'] {
  if (!choice) return undefined;
  return {
    to: choice.to,
    seasonalPinballP90: choice.seasonal.p90,
    fallbackPinballP90: choice.fallback.p90,
    message: fallbackMessage(choice),
  };
}

export function forecast(
  history: readonly (number | null | undefined)[],
  options: ForecastOptions,
  params: ModelParams = DEFAULT_PARAMS,
): ForecastResult {
  const { stepMinutes, origin, horizonMinutes, dayStartMinute } = parseOptions(history, options);
  const notes: string[] = [];
  const binned = toFiveMinuteRates(history, stepMinutes);
  const { bins: rates, elapsed, days, padded } = window(binned, origin, dayStartMinute, notes);
  const none = unavailable(rates, days, history.length * stepMinutes);
  if (none) return none;
  // The whole days' offset, not today's: every refit of one day then fits the same log bins, and
  // reuses their fit (./model.ts sharedDaysFit) when its history starts at a day's start.
  const c = logOffset(rates.subarray(0, rates.length - elapsed));
  const z = toLog(rates, c);
  const steps = Math.ceil(horizonMinutes / BIN_MINUTES);
  const fits = daysFits(z, params);
  const models = fitModels(z, elapsed, params, WEEKLY_WEIGHTS, fits(z.length - elapsed));
  const r = residualBands(z, models, steps, params, fits);
  if (r.samples === 0) notes.push('no out-of-sample errors yet: quantiles from widened in-sample residuals');
  modelNotes(r.model, rates.subarray(padded), notes);
  const seasonal = seasonalForecaster(z, r);
  // No fallback without refits: today's pseudo-origins alone see only hours ahead.
  const cuts = r.forecasts.map((f) => f.cut);
  const dayEffect = (t: number) => dayEffectAt(r.model, t);
  const choice = r.samples === 0 ? null : chooseFallback(seasonal, z, cuts, steps, c, dayEffect);
  const fallback = reported(choice);
  if (fallback) notes.push(`fallback: ${fallback.message}`);
  const quantiles = quantileSeries(choice ? choice.forecaster : seasonal, z.length, steps, c);
  return {
    ok: true,
    model: modelKind(r.model),
    notes,
    origin,
    stepMinutes: BIN_MINUTES,
    historyDays: r.model.seasonal.days,
    point: [...quantiles.p50],
    quantiles,
    residualSamples: r.samples,
    ...(fallback ? { fallback } : {}),
  };
}
