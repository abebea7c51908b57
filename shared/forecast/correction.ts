/**
 * Level corrections: how far the demand of the last hours sits from the model, and how long
 * that lasts. Two terms, both medians of the model's log deviations before the origin, and how
 * long the trend lasts:
 *
 *   correction(k) = long + (short - long) x decay^(k + 1) + (trend kept longer, when chosen)
 *
 * short: the last half hour, fading by `decay` per five-minute step; long: the last `window`
 * bins (3, 12 or 24 h; 0: none), held for the whole horizon. A busy half hour on NASA lasts
 * hours (decay 0.99); a level that fell this morning stays down (long over 3 h: half a day
 * after a collapse to 40 % the next day was forecast at 1.83x the demand without it, 1.07x
 * with); a model that reads last week's level too high is corrected by the last day (long over
 * 24 h). Which holds is a property of the traffic, chosen by the pseudo-origins
 * (./residuals.ts).
 */
import { BINS_PER_DAY } from './series.ts';
import { medianInPlace } from './stats.ts';

export interface Correction {
  /** Bins of the long term (0: none). */
  window: number;
  /** Per-step decay of the half hour's deviation beyond the long term. */
  decay: number;
  /** Per-day damping of the trend when projected (the model's own, or 1: a trend that lasts). */
  damping: number;
}

/** Bins (30 minutes) of the short term. */
const SHORT_BINS = 6;
/** Long-term windows in bins: none, 3 h, 12 h, 24 h. */
export const WINDOW_CANDIDATES: readonly number[] = [0, 36, 144, 288];
export const DECAY_CANDIDATES = [0, 0.9, 0.97, 0.99] as const;
/**
 * Trend dampings tried besides the model's own (0.8): 1 keeps the trend whole over the
 * horizon, chosen by the same errors. On the growth series (3 % a day for four weeks) p90
 * coverage over three seeds went from 0.855-0.891 with 0.8 alone to 0.865-0.903.
 */
export const DAMPING_CANDIDATES: readonly number[] = [1];
/** Every correction for a model whose own damping is `damping` (that one first). */
export const corrections = (damping: number): Correction[] =>
  [damping, ...DAMPING_CANDIDATES.filter((d) => d !== damping)].flatMap((damp) =>
    WINDOW_CANDIDATES.flatMap((window) =>
      DECAY_CANDIDATES.map((decay) => ({ window, decay, damping: damp })),
    ),
  );

/** The longest tail a median is taken over. */
// spread-ok: four windows, once at load
const SCRATCH_BINS = Math.max(SHORT_BINS, ...WINDOW_CANDIDATES);

/** Median of the finite values of devs in [end - bins, end); 0 when none. */
function tailMedian(devs: Float64Array, end: number, bins: number, scratch: Float64Array): number {
  const from = Math.max(0, end - bins);
  for (let i = from; i < end; i++) scratch[i - from] = devs[i]!;
  const m = medianInPlace(scratch, end - from);
  return Number.isFinite(m) ? m : 0;
}

/** The model's trend at a cut: log change per day, its damping, and bins of the cut's day before it. */
export interface TrendAt {
  trend: number;
  damping: number;
  start: number;
}

export interface Terms extends TrendAt {
  short: number;
  /** The long term for each window of WINDOW_CANDIDATES. */
  long: Float64Array;
}

/** The short and long terms at a cut `end` bins into devs (devs before `end` only). */
export function termsAt(devs: Float64Array, end: number, trend: TrendAt): Terms {
  const scratch = new Float64Array(SCRATCH_BINS);
  const short = tailMedian(devs, end, SHORT_BINS, scratch);
  const long = new Float64Array(WINDOW_CANDIDATES.length);
  for (let i = 0; i < long.length; i++) {
    const w = WINDOW_CANDIDATES[i]!;
    long[i] = w === 0 ? 0 : tailMedian(devs, end, w, scratch);
  }
  return { short, long, ...trend };
}

/** Sum of phi^i for i = 1 .. days: how many days of trend a block that many days ahead gets. */
export function dampedDays(phi: number, days: number): number {
  let sum = 0;
  let factor = 1;
  for (let i = 0; i < days; i++) {
    factor *= phi;
    sum += factor;
  }
  return sum;
}

/** What a damping other than the model's adds k steps after the cut. */
export function dampingShift(terms: Terms, damping: number, k: number): number {
  if (damping === terms.damping || terms.trend === 0) return 0;
  const days = Math.floor((terms.start + k) / BINS_PER_DAY) + 1;
  return terms.trend * (dampedDays(damping, days) - dampedDays(terms.damping, days));
}

const windowIndex = (window: number): number => WINDOW_CANDIDATES.indexOf(window as never);

/** The log correction k steps after a cut with these terms. */
export function correctionAt(terms: Terms, c: Correction, k: number): number {
  const long = terms.long[Math.max(0, windowIndex(c.window))]!;
  return long + (terms.short - long) * c.decay ** (k + 1) + dampingShift(terms, c.damping, k);
}
