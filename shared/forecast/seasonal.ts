/**
 * Robust seasonal decomposition of a log-demand series cut into whole days, oldest first
 * (block m-1 is yesterday, block m-8 the same weekday a week earlier):
 *
 *   z[r][s] = level[r] + daily[s] + weekly-interaction[class r][s] + residual
 *
 * level and daily come from a median polish (Tukey), so a launch-day spike, which is one day
 * in fourteen at each slot, barely moves them. The day-of-week effect of level[r] and the
 * weekday-specific shape (a Saturday morning is flatter than a Tuesday morning) are taken
 * across weeks with robustCenter, which ignores one deviant week. When the day levels took a
 * step that came to stay (./level.ts), the day-of-week effects are taken again with the days
 * before it moved onto the new level (withStep).
 */

import type { LevelStep } from './level.ts';
import { BINS_PER_DAY, DAYS_PER_WEEK } from './series.ts';
import {
  meanFinite,
  median,
  medianInPlace,
  medianOfFinite,
  robustCenter,
  robustScale,
  theilSen,
} from './stats.ts';

export interface Seasonal {
  /** Day blocks fitted (m). */
  days: number;
  /** Median log level of each day block, oldest first (NaN for an empty block). */
  levels: Float64Array;
  /** Time-of-day profile (log), one per five-minute slot, mean 0. */
  daily: Float64Array;
  /** Day-of-week effect (log) per block class, mean 0; null with less than a week. */
  weekly: Float64Array | null;
  /** Weekday-specific shape, class x 288 + slot (log); null with less than a week. */
  interaction: Float64Array | null;
  /** Robust standard deviation of the residuals before the weekday shape (log): the clipping scale. */
  scale: number;
  /** The level step the day levels took, null when none (./level.ts); weekly is taken across it. */
  step: LevelStep | null;
  /** In-sample residuals of the whole fit (log), per bin of the fitted days (NaN where data is missing). */
  residuals: Float64Array;
}

const P = BINS_PER_DAY;
/** Residuals beyond 3 robust standard deviations are clipped before they shape the week. */
const CLIP_SIGMAS = 3;
/** The weekday shape is averaged over +-6 bins (65 minutes) before it is compared across weeks. */
const SHAPE_SMOOTH_BINS = 6;
/**
 * A weekday shape seen in one week only is halved: one week cannot tell a habit from an
 * accident. On NASA, halving beat keeping it whole (p90 pinball 4.12 against 4.23 with 7 days
 * of history, 2.70 against 2.76 with 14; docs/forecast.md, "Tuning").
 */
const SINGLE_WEEK_SHRINK = 0.5;
/** The daily profile is averaged over +-4 bins (45 minutes) to take out slot-to-slot noise. */
const DAILY_SMOOTH_BINS = 4;

/** Block class: whole days back from today, modulo a week (0 = yesterday, -1 = today, -2 = tomorrow). */
export const blockClass = (blocksBack: number): number =>
  ((blocksBack % DAYS_PER_WEEK) + DAYS_PER_WEEK) % DAYS_PER_WEEK;

/** Moving mean of the finite values within +-half, wrapping around (a daily profile is circular). */
function circularSmooth(values: Float64Array, half: number): Float64Array {
  const n = values.length;
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let sum = 0;
    let k = 0;
    for (let d = -half; d <= half; d++) {
      const v = values[(((i + d) % n) + n) % n]!;
      if (Number.isFinite(v)) {
        sum += v;
        k++;
      }
    }
    out[i] = k === 0 ? 0 : sum / k;
  }
  return out;
}

/** Alternating row and column medians: levels per block, the daily profile per slot. */
function medianPolish(z: Float64Array, m: number): { levels: Float64Array; daily: Float64Array } {
  const levels = new Float64Array(m);
  const daily = new Float64Array(P);
  const row = new Float64Array(P);
  const col = new Float64Array(m);
  // Slot-major copy, so each column pass reads contiguous memory.
  const bySlot = new Float64Array(z.length);
  for (let r = 0; r < m; r++) for (let s = 0; s < P; s++) bySlot[s * m + r] = z[r * P + s]!;
  // Only the finite differences are copied, in order: what medianInPlace keeps of a full copy.
  const rowPass = () => {
    for (let r = 0; r < m; r++) {
      let k = 0;
      for (let s = 0; s < P; s++) {
        const v = z[r * P + s]! - daily[s]!;
        if (Number.isFinite(v)) row[k++] = v;
      }
      levels[r] = medianOfFinite(row, k);
    }
  };
  rowPass();
  for (let iter = 0; iter < 2; iter++) {
    for (let s = 0; s < P; s++) {
      let k = 0;
      for (let r = 0; r < m; r++) {
        const v = bySlot[s * m + r]! - levels[r]!;
        if (Number.isFinite(v)) col[k++] = v;
      }
      daily[s] = medianOfFinite(col, k);
    }
    rowPass();
  }
  const smooth = circularSmooth(daily, DAILY_SMOOTH_BINS);
  const shift = meanFinite(smooth);
  for (let s = 0; s < P; s++) daily[s] = smooth[s]! - shift;
  rowPass();
  return { levels, daily };
}

/**
 * The week-free level under each block: the centred 7-block mean where it exists, extended
 * to the first and last 3 blocks along its robust (Theil-Sen) slope. A plain mean of the last
 * 7 blocks would be centred 3 days back and, under a 3 %-a-day trend, would read the last
 * Sunday 9 % higher than it is (the trend test in tests/forecast/forecast.test.ts).
 */
function weekFreeLevels(levels: Float64Array): Float64Array {
  const m = levels.length;
  const first = 3;
  const last = m - 4;
  const ma = new Float64Array(m).fill(Number.NaN);
  for (let r = first; r <= last; r++) ma[r] = meanFinite(levels, r - 3, r + 4);
  const slope = theilSen(ma, first, last + 1);
  for (let r = 0; r < first; r++) ma[r] = ma[first]! - slope * (first - r);
  for (let r = last + 1; r < m; r++) ma[r] = ma[last]! + slope * (r - last);
  return ma;
}

/**
 * A week-free level that keeps a step sharp: the median of the 7 blocks around each (the 7
 * nearest at either end), after taking out the median day-over-day change. Across a collapse
 * it has the old level on one side and the new on the other, where a centred mean reads the
 * days before it as up to 0.4 above their level; it is noisier than the mean otherwise, so it
 * serves only to look for steps (./model.ts).
 */
function weekFreeMedians(levels: Float64Array): Float64Array {
  const m = levels.length;
  const diffs: number[] = [];
  for (let r = 1; r < m; r++)
    if (Number.isFinite(levels[r]! - levels[r - 1]!)) diffs.push(levels[r]! - levels[r - 1]!);
  const typical = diffs.length === 0 ? 0 : median(diffs);
  const out = new Float64Array(m);
  const buf = new Float64Array(DAYS_PER_WEEK);
  for (let r = 0; r < m; r++) {
    const from = Math.min(Math.max(0, r - 3), m - DAYS_PER_WEEK);
    for (let i = 0; i < DAYS_PER_WEEK; i++) buf[i] = levels[from + i]! - typical * (from + i - r);
    out[r] = medianInPlace(buf, DAYS_PER_WEEK);
  }
  return out;
}

/** Day-of-week effects against the step-keeping week-free level: what steps are looked for under. */
export const stepRobustWeekly = (levels: Float64Array): Float64Array | null =>
  levels.length >= DAYS_PER_WEEK ? weeklyEffects(levels, weekFreeMedians(levels)) : null;

/** Each block's level against the week-free level under it, centred by class across weeks. */
function weeklyEffects(levels: Float64Array, under = weekFreeLevels(levels)): Float64Array {
  const m = levels.length;
  const byClass: number[][] = Array.from({ length: DAYS_PER_WEEK }, () => []);
  for (let r = 0; r < m; r++) {
    if (Number.isFinite(levels[r]!) && Number.isFinite(under[r]!))
      byClass[blockClass(m - 1 - r)]!.push(levels[r]! - under[r]!);
  }
  const weekly = Float64Array.from(byClass, (devs) => robustCenter(devs));
  const shift = meanFinite(weekly);
  return weekly.map((w) => w - shift);
}

/** Levels with the days before a step moved onto the new level (the step's size added). */
export function stepAdjusted(levels: Float64Array, step: LevelStep | null): Float64Array {
  if (!step) return levels;
  return levels.map((l, r) => (r < step.at ? l + step.size : l));
}

/**
 * The fit after a level step (./level.ts): day-of-week effects again, from the levels with the
 * days before the step moved onto the new level. Taken across a step, a centred 7-day mean
 * reads the days before a collapse to 40 % as up to 0.4 above their level, and the last days
 * (extended along its slope) as far above theirs too: at day 22 of the collapse series, a
 * Monday effect of +0.41 that put the next Tuesday's forecast at a third of the demand.
 */
export function withStep(fit: Seasonal, step: LevelStep): Seasonal {
  if (!fit.weekly) return { ...fit, step };
  return { ...fit, weekly: weeklyEffects(stepAdjusted(fit.levels, step)), step };
}

/** Residuals after each block's own level and the daily profile (NaN where data is missing). */
function residuals(z: Float64Array, levels: Float64Array, daily: Float64Array): Float64Array {
  // The block level already holds the day-of-week effect: subtracting it again would offset
  // every weekday's residuals and turn "both weeks agree" into "they disagree".
  const e = new Float64Array(z.length);
  for (let r = 0, t = 0; t < z.length; r++) {
    const level = levels[r]!;
    for (let s = 0; s < P && t < z.length; s++, t++) e[t] = z[t]! - level - daily[s]!;
  }
  return e;
}

/** Weekday shape: clipped, smoothed residuals, centred across weeks per class and slot. */
function interactionEffects(e: Float64Array, m: number, scale: number): Float64Array {
  const limit = CLIP_SIGMAS * Math.max(scale, 1e-6);
  const clipped = new Float64Array(e.length);
  for (let t = 0; t < e.length; t++) {
    const v = e[t]!;
    clipped[t] = Number.isFinite(v) ? Math.min(limit, Math.max(-limit, v)) : Number.NaN;
  }
  const smooth = windowMeans(clipped, SHAPE_SMOOTH_BINS);
  const out = new Float64Array(DAYS_PER_WEEK * P);
  const samples = new Float64Array(Math.ceil(m / DAYS_PER_WEEK));
  for (let c = 0; c < DAYS_PER_WEEK; c++) {
    for (let s = 0; s < P; s++) {
      let n = 0;
      for (let r = m - 1 - c; r >= 0; r -= DAYS_PER_WEEK) samples[n++] = smooth[r * P + s]!;
      out[c * P + s] = robustCenter(samples, n) * (n === 1 ? SINGLE_WEEK_SHRINK : 1);
    }
    const shift = meanFinite(out, c * P, (c + 1) * P);
    for (let s = 0; s < P; s++) out[c * P + s]! -= shift;
  }
  return out;
}

/** Mean of the finite values within +-half of each index (running sums: O(n)); NaN where none. */
function windowMeans(values: Float64Array, half: number): Float64Array {
  const n = values.length;
  const sum = new Float64Array(n + 1);
  const count = new Float64Array(n + 1);
  for (let i = 0; i < n; i++) {
    const v = values[i]!;
    const ok = Number.isFinite(v);
    sum[i + 1] = sum[i]! + (ok ? v : 0);
    count[i + 1] = count[i]! + (ok ? 1 : 0);
  }
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const lo = Math.max(0, i - half);
    const hi = Math.min(n, i + half + 1);
    const k = count[hi]! - count[lo]!;
    out[i] = k === 0 ? Number.NaN : (sum[hi]! - sum[lo]!) / k;
  }
  return out;
}

/** Decomposes z (whole day blocks, oldest first, last block ending at the origin). */
export function fitSeasonal(z: Float64Array): Seasonal {
  const m = Math.floor(z.length / P);
  const { levels, daily } = medianPolish(z, m);
  const weekly = m >= DAYS_PER_WEEK ? weeklyEffects(levels) : null;
  const base = { days: m, levels, daily, weekly, step: null };
  const e = residuals(z, levels, daily);
  const scale = robustScale(e) || 0;
  const interaction = m >= DAYS_PER_WEEK ? interactionEffects(e, m, scale) : null;
  if (interaction)
    for (let t = 0; t < e.length; t++)
      e[t]! -= interaction[blockClass(m - 1 - Math.floor(t / P)) * P + (t % P)]!;
  return { ...base, interaction, scale, residuals: e };
}

/** The seasonal part (daily + weekly + interaction) at slot s of a block of the given class. */
export function seasonalAt(fit: Seasonal, cls: number, s: number, weight = 1): number {
  const w = fit.weekly ? weight * fit.weekly[cls]! : 0;
  const i = fit.interaction ? fit.interaction[cls * P + s]! : 0;
  return fit.daily[s]! + w + i;
}
