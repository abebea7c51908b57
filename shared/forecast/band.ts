/**
 * The band's shape over the day. Some traffic is as noisy at every hour; some has bursts at
 * fixed minutes (the Twitter sample stream bursts at :00-:10 and :30-:40 of alternate hours,
 * 3-4x for a few minutes), where a band of one width all day is too narrow at those slots and
 * too wide everywhere else. So each slot of the day gets widths from the in-sample residuals
 * of its own slot and the two beside it over all days (42 values with 14 days): up (p90 less
 * p50), down (p50 less p10), and tail (the up width times the day's p99-to-p90 ratio: a p99
 * of 42 values is their largest), and the pseudo-origins' errors, divided by the width at
 * their slot, say how many widths wide the band is out of sample (normalized conformal
 * prediction: normalizedScales). On Twitter, p90 pinball 547 with one width, 457 with these.
 *
 * Whether the shape is real or noise is tested, not assumed: flash crowds at random hours
 * leave wide slots that the next crowd will not hit (slot widths taken as they come made the
 * flash-crowd series' p90 loss 12.2 against 8.4 flat). The shape is measured on the days
 * before the last two, the errors the pseudo-origins made on the last two are scored under it
 * (p10 and p90 pinball, log), and the mix with the flat width that scores best is kept.
 * ./widths.ts measures the widths.
 */
import { quantileInPlace } from './sort.ts';
import { quantileOfSorted, sortedFinite } from './stats.ts';
import { keptWidths, type SlotWidths, slotWidths, widthAt } from './widths.ts';

/** Mixes of the slot widths with the flat one that are tried: 0 is flat. */
export const SHAPE_MIXES: readonly number[] = [0, 0.5, 1];
/** Days at the end left out when the shape is tested (the pseudo-origins' errors fall on them). */
const HELD_OUT_DAYS = 2;

export interface Errors {
  errors: Float64Array;
  slots: Int32Array;
  /** Which pseudo-origin each error came from (0, 1, ...). */
  origins: Int32Array;
}

/**
 * The median of a band's errors, sorted once per band: the shape test, the scales and the
 * cross-calibration read it 36 times per forecast (13 % of a NASA forecast went to sorting).
 */
const medians = new WeakMap<Float64Array, number>();
function medianOf(errors: Float64Array): number {
  let m = medians.get(errors);
  if (m === undefined) {
    m = quantileInPlace(errors.slice(), errors.length, 0.5);
    medians.set(errors, m);
  }
  return m;
}

/** Errors less their median, divided by the width for quantile q at their slot. */
function normalized(b: Errors, widths: SlotWidths, q: number): Float64Array {
  const m = medianOf(b.errors);
  const out = new Float64Array(b.errors.length);
  for (let j = 0; j < out.length; j++) out[j] = (b.errors[j]! - m) / widthAt(widths, q, b.slots[j]!);
  return out;
}

/**
 * Normalized quantiles of errors (centred on their median) for the given levels, each at the
 * level cross-calibrated over the pseudo-origins: the offset of quantile q at a slot is
 * scale x widthAt(q, slot).
 */
export function normalizedScales(b: Errors, widths: SlotWidths, qs: readonly number[]): number[] {
  return qs.map((q) => {
    if (q === 0.5) return 0;
    const norm = normalized(b, widths, q);
    const sorted = sortedFinite(norm);
    return quantileOfSorted(sorted, crossCalibrated(norm, b.origins, q, sorted));
  });
}

/** Index of the first value above x in sorted a. */
function upperBound(a: Float64Array, x: number): number {
  let [lo, hi] = [0, a.length];
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (a[mid]! <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The level at which the pooled scores make a band that covers q of a pseudo-origin it did not
 * see. The errors of one pseudo-origin share its level error, so six of them hold six draws of
 * it, not thousands: a band that covers 90 % of them in sample covered 85 % of the next days
 * on the growth series (tests/forecast/stress.ts). Each origin is scored against the others'
 * quantile (leave one origin out, as cross-conformal prediction does), and q moves away from
 * 0.5 in steps of 0.01 until the held-out coverage reaches q, at most halfway to 0 or 1 (p90
 * to p95). Over six seeds of each stress series, p90 coverage went from 0.85-0.89 to
 * 0.87-0.91 on growth and from 0.84-0.90 to 0.85-0.92 after a collapse; on NASA from 0.91 to
 * 0.92 (p90 pinball 2.488 to 2.500), on Twitter 0.895 to 0.899 (451.5 to 455.5).
 */
export function crossCalibrated(
  norm: Float64Array,
  origins: Int32Array,
  q: number,
  all: Float64Array = sortedFinite(norm),
): number {
  const ids = [...new Set(origins)];
  if (ids.length < 3) return q;
  const own = byOrigin(norm, origins, ids);
  const n = all.length;
  const upper = q > 0.5;
  const limit = upper ? (1 + q) / 2 : q / 2;
  const step = upper ? 0.01 : -0.01;
  for (let level = q; upper ? level <= limit + 1e-9 : level >= limit - 1e-9; level += step) {
    let hits = 0;
    for (const mine of own.values()) {
      const bound = quantileOfOthers(all, mine, level);
      // Upper quantiles count scores at or under the bound (they must reach q), lower ones the
      // scores under it (they must not exceed q).
      hits += upper ? upperBound(mine, bound) : upperBound(mine, bound - 1e-12);
    }
    if (upper ? hits / n >= q : hits / n <= q) return level;
  }
  return limit;
}

/** The scores of each origin (in the order of ids), sorted: one pass over them, not one per origin. */
function byOrigin(
  norm: Float64Array,
  origins: Int32Array,
  ids: readonly number[],
): Map<number, Float64Array> {
  const slot = new Map(ids.map((id, i) => [id, i]));
  const counts = new Int32Array(ids.length);
  for (let j = 0; j < norm.length; j++) counts[slot.get(origins[j]!)!]!++;
  const parts = Array.from(counts, (n) => new Float64Array(n));
  counts.fill(0);
  for (let j = 0; j < norm.length; j++) {
    const i = slot.get(origins[j]!)!;
    parts[i]![counts[i]!++] = norm[j]!;
  }
  return new Map(ids.map((id, i) => [id, sortedFinite(parts[i]!)]));
}

/** The level-quantile (nearest rank) of the scores in `all` that are not in `mine` (both sorted). */
function quantileOfOthers(all: Float64Array, mine: Float64Array, level: number): number {
  const others = all.length - mine.length;
  const rank = Math.min(others - 1, Math.max(0, Math.round(level * (others - 1))));
  // The smallest index j with (j + 1) - (mine <= all[j]) > rank: binary search, it only grows.
  let [lo, hi] = [0, all.length - 1];
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (mid + 1 - upperBound(mine, all[mid]!) > rank) hi = mid;
    else lo = mid + 1;
  }
  return all[lo]!;
}

const pinball = (q: number, y: number, f: number): number => (y >= f ? q * (y - f) : (1 - q) * (f - y));

/** The levels the shape is scored at. */
const SHAPE_QS: readonly number[] = [0.1, 0.9];

/** p10 and p90 pinball loss (log) of the errors under widths calibrated on them. */
function shapeLoss(errors: Errors[], medians: number[], widths: SlotWidths): number {
  let loss = 0;
  // Bands pooled from the same errors are one object (./residuals.ts): their scales, once.
  const scales = SHAPE_QS.map(() => new Map<Errors, number>());
  const scaleOf = (b: Errors, i: number): number => {
    let scale = scales[i]!.get(b);
    if (scale === undefined) {
      const norm = normalized(b, widths, SHAPE_QS[i]!);
      scale = quantileInPlace(norm, norm.length, SHAPE_QS[i]!);
      scales[i]!.set(b, scale);
    }
    return scale;
  };
  for (const [i, b] of errors.entries()) {
    const m = medians[i]!;
    for (let qi = 0; qi < SHAPE_QS.length; qi++) {
      const q = SHAPE_QS[qi]!;
      const scale = scaleOf(b, qi);
      for (let j = 0; j < b.errors.length; j++) {
        const e = b.errors[j]! - m;
        if (Number.isFinite(e)) loss += pinball(q, e, scale * widthAt(widths, q, b.slots[j]!));
      }
    }
  }
  return loss;
}

/**
 * The band's shape: the mix of slot and flat widths whose shape, measured without the last two
 * days, scores best on the pseudo-origins' errors there; then measured on every day.
 */
export function chooseShape(residuals: Float64Array, days: number, errors: Errors[]): SlotWidths {
  if (errors.length === 0 || days <= HELD_OUT_DAYS) return slotWidths(residuals, days, 0);
  const centres = errors.map((b) => medianOf(b.errors));
  let best: number = SHAPE_MIXES[0]!;
  let bestLoss = Number.POSITIVE_INFINITY;
  for (const mix of SHAPE_MIXES) {
    const loss = shapeLoss(errors, centres, keptWidths(residuals, days - HELD_OUT_DAYS, true, mix));
    if (loss < bestLoss) [best, bestLoss] = [mix, loss];
  }
  return slotWidths(residuals, days, best);
}
