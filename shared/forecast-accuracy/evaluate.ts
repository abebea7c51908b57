/**
 * Rolling-origin evaluation over a trace: every 6 hours, each method forecasts the next hours
 * from what came before, and is scored at five-minute resolution (mean requests per minute in
 * each five-minute bin) against what happened. Pure: a trace in, scores out.
 */

import { forecast } from '../forecast/forecast.ts';
import {
  BIN_MINUTES,
  BINS_PER_DAY,
  DAYS_PER_WEEK,
  historyStart,
  toFiveMinuteRates,
} from '../forecast/series.ts';
import { type ForecastFallback, ForecastInputError, type ForecastModel } from '../forecast/types.ts';
import {
  type BaselineForecast,
  ec2Style,
  naiveLastWeek,
  naiveWithQuantiles,
  naiveYesterday,
} from './baselines.ts';
import { accumulate, emptyTotals, finish, type Scored, type Scores, type ScoreTotals } from './metrics.ts';

const P = BINS_PER_DAY;
/** Origins every 6 hours: EC2 predictive scaling's refresh cadence, so it is never stale here. */
export const ORIGIN_EVERY_HOURS = 6;

export interface EvaluationOptions {
  /** Days of history Governor's forecaster is given at each origin (1 to 28). */
  historyDays: number;
  /** Hours ahead each forecast is scored over (1 to 48). */
  horizonHours: number;
}

export type MethodId = 'governor' | 'naive-day' | 'naive-week' | 'naive-day-q' | 'naive-week-q' | 'ec2-style';

export interface MethodScores extends Scores {
  id: MethodId;
  label: string;
  /** Whether the method's p90 is a real quantile or its point forecast reused. */
  quantiles: 'empirical' | 'point';
}

export interface Evaluation {
  resolution: '5min';
  historyDays: number;
  horizonHours: number;
  originEveryHours: number;
  origins: number;
  firstOriginMinute: number;
  lastOriginMinute: number;
  methods: MethodScores[];
  /** The naive method (of the four) with the lowest p90 pinball loss. */
  bestNaive: MethodId;
  /** 1 - governor p90 pinball / best naive p90 pinball: 0.2 means 20 % lower. */
  p90GainVsBestNaive: number;
  /** How many origins each Governor model served (less than a week of history: 'daily'). */
  governorModels: Partial<Record<ForecastModel, number>>;
  /** How many origins Governor's forecast fell back to a simpler forecaster (Forecast.fallback). */
  governorFallbacks: Partial<Record<ForecastFallback['to'], number>>;
}

const LABELS: Record<MethodId, [string, MethodScores['quantiles']]> = {
  governor: ['Governor forecaster', 'empirical'],
  'naive-day': ['seasonal naive, yesterday', 'point'],
  'naive-week': ['seasonal naive, last week', 'point'],
  'naive-day-q': ['seasonal naive, yesterday + error quantiles', 'empirical'],
  'naive-week-q': ['seasonal naive, last week + error quantiles', 'empirical'],
  'ec2-style': ['EC2-style hourly (14 d history, 48 h, every 6 h)', 'point'],
};
const NAIVE: MethodId[] = ['naive-day', 'naive-week', 'naive-day-q', 'naive-week-q'];

interface Origin {
  minutes: readonly number[];
  rates: Float64Array;
  bin: number;
  steps: number;
  historyDays: number;
}

function governorAt(
  o: Origin,
  tally: Pick<Evaluation, 'governorModels' | 'governorFallbacks'>,
): Scored | null {
  // As the look-ahead and the forecast function read it: whole days from a day's start, then today.
  const start = historyStart(o.bin * BIN_MINUTES, o.historyDays);
  const history = o.minutes.slice(start, o.bin * BIN_MINUTES);
  const result = forecast(history, {
    stepMinutes: 1,
    origin: o.bin * BIN_MINUTES,
    horizonMinutes: o.steps * BIN_MINUTES,
  });
  if (!result.ok) return null;
  const { governorModels: models, governorFallbacks: fallbacks } = tally;
  models[result.model] = (models[result.model] ?? 0) + 1;
  if (result.fallback) fallbacks[result.fallback.to] = (fallbacks[result.fallback.to] ?? 0) + 1;
  return { point: result.point, p50: result.quantiles.p50, p90: result.quantiles.p90 };
}

function baselinesAt(o: Origin): Record<Exclude<MethodId, 'governor'>, BaselineForecast> {
  const { rates, bin, steps } = o;
  const window = Math.max(o.historyDays, 1) * P;
  return {
    'naive-day': naiveYesterday(rates, bin, steps),
    'naive-week': naiveLastWeek(rates, bin, steps),
    'naive-day-q': naiveWithQuantiles(rates, bin, steps, P, window),
    'naive-week-q': naiveWithQuantiles(rates, bin, steps, DAYS_PER_WEEK * P, window),
    'ec2-style': ec2Style(rates, bin, steps),
  };
}

function checkOptions(minutes: readonly number[], options: EvaluationOptions) {
  const { historyDays, horizonHours } = options;
  if (!Number.isInteger(historyDays) || historyDays < 1 || historyDays > 28)
    throw new ForecastInputError(`historyDays must be a whole number from 1 to 28, got ${historyDays}`);
  if (!Number.isInteger(horizonHours) || horizonHours < 1 || horizonHours > 48)
    throw new ForecastInputError(`horizonHours must be a whole number from 1 to 48, got ${horizonHours}`);
  const firstBin = Math.max(historyDays, DAYS_PER_WEEK) * P;
  const steps = horizonHours * 12;
  const bins = Math.floor(minutes.length / BIN_MINUTES);
  if (firstBin + steps > bins) {
    const needDays = (firstBin + steps) / P;
    throw new ForecastInputError(
      `the trace covers ${minutes.length} minutes (${(minutes.length / 1440).toFixed(1)} days); evaluating needs ${needDays.toFixed(1)} days (a week or the history, whichever is longer, plus the horizon): use a longer trace or a smaller history or horizon`,
    );
  }
  return { firstBin, steps, bins };
}

export function evaluateForecasts(minutes: readonly number[], options: EvaluationOptions): Evaluation {
  const { firstBin, steps, bins } = checkOptions(minutes, options);
  // Aligned from minute 0 (as the trace), dropping a partial last bin.
  const rates = toFiveMinuteRates(minutes.slice(0, bins * BIN_MINUTES), 1);
  const totals = Object.fromEntries(Object.keys(LABELS).map((id) => [id, emptyTotals()])) as Record<
    MethodId,
    ScoreTotals
  >;
  const tally: Pick<Evaluation, 'governorModels' | 'governorFallbacks'> = {
    governorModels: {},
    governorFallbacks: {},
  };
  const every = ORIGIN_EVERY_HOURS * 12;
  let origins = 0;
  let bin = firstBin;
  for (; bin + steps <= bins; bin += every) {
    const o: Origin = { minutes, rates, bin, steps, historyDays: options.historyDays };
    const actual = rates.subarray(bin, bin + steps);
    const governor = governorAt(o, tally);
    if (governor) accumulate(totals.governor, actual, governor);
    for (const [id, f] of Object.entries(baselinesAt(o))) accumulate(totals[id as MethodId], actual, f);
    origins++;
  }
  const methods = (Object.keys(LABELS) as MethodId[]).map((id) => ({
    id,
    label: LABELS[id][0],
    quantiles: LABELS[id][1],
    ...finish(totals[id]),
  }));
  const score = (id: MethodId) => methods.find((m) => m.id === id)!.pinballP90;
  const bestNaive = NAIVE.reduce((best, id) => (score(id) < score(best) ? id : best));
  return {
    resolution: '5min',
    ...options,
    originEveryHours: ORIGIN_EVERY_HOURS,
    origins,
    firstOriginMinute: firstBin * BIN_MINUTES,
    lastOriginMinute: (bin - every) * BIN_MINUTES,
    methods,
    bestNaive,
    p90GainVsBestNaive: 1 - score('governor') / score(bestNaive),
    ...tally,
  };
}
