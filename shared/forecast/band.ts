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
 */
import { BINS_PER_DAY } from './series.ts';
import { mergeSorted } from './sort.ts';
import { quantileOfSorted, sortedFinite } from './stats.ts';

const P = BINS_PER_DAY;
/** Slots pooled on each side of a slot (+-1: 15 minutes in all). */
const SLOT_POOL = 1;
/** No slot is narrower than a quarter of the flat width (a slot that was quiet for 14 days is not certain). */
const WIDTH_FLOOR = 0.25;
/** Mixes of the slot widths with the flat one that are tried: 0 is flat. */
export const SHAPE_MIXES: readonly number[] = [0, 0.5, 1];
/** Days at the end left out when the shape is tested (the pseudo-origins' errors fall on them). */
const HELD_OUT_DAYS = 2;

export interface SlotWidths {
  up: Float64Array;
  down: Float64Array;
  tail: Float64Array;
  /** The share of the slot widths in the mix (0: flat). */
  mix: number;
}

/** Sorted residuals of slot s over days [0, days). */
function column(e: Float64Array, days: number, s: number): Float64Array {
  const out = new Float64Array(days);
  for (let r = 0; r < days; r++) out[r] = e[r * P + s]!;
  return sortedFinite(out);
}

/**
 * Sorted residuals of slots s - half .. s + half over days [0, days), merged from each slot's
 * sorted column: the same values in the same order as sorting the pool, with 288 sorts of 14
 * values in place of 288 sorts of 42 (tests/forecast/hot-paths.test.ts pins the merge).
 */
function pooled(columns: readonly Float64Array[], s: number, half: number): Float64Array {
  let out = columns[s]!;
  for (let d = 1; d <= half; d++) {
    out = mergeSorted(out, columns[(s - d + P) % P]!);
    out = mergeSorted(out, columns[(s + d) % P]!);
  }
  return out;
}

type Side = 'up' | 'down' | 'tail';
const SIDES: readonly Side[] = ['up', 'down', 'tail'];
type Spreads = Record<Side, number>;

function spread(v: Float64Array): Spreads {
  const m = quantileOfSorted(v, 0.5);
  return {
    up: quantileOfSorted(v, 0.9) - m,
    down: m - quantileOfSorted(v, 0.1),
    tail: quantileOfSorted(v, 0.99) - m,
  };
}

/** The flat spreads of the residuals of days [0, days), and each slot's (null: flat only). */
interface Measured {
  flat: Spreads;
  slots: Record<Side, Float64Array> | null;
}

function measure(e: Float64Array, days: number, withSlots: boolean): Measured {
  const flat = spread(sortedFinite(e.subarray(0, days * P)));
  if (!withSlots || !Number.isFinite(flat.up)) return { flat, slots: null };
  const slots = { up: new Float64Array(P), down: new Float64Array(P), tail: new Float64Array(P) };
  // p99 of a slot's 42 residuals is its largest: the tail keeps the day's ratio to the p90 width.
  const tailRatio = flat.up > 0 ? flat.tail / flat.up : 1;
  const columns = Array.from({ length: P }, (_, s) => column(e, days, s));
  for (let s = 0; s < P; s++) {
    const local = spread(pooled(columns, s, SLOT_POOL));
    slots.up[s] = local.up;
    slots.down[s] = local.down;
    slots.tail[s] = local.up * tailRatio;
  }
  return { flat, slots };
}

/** Widths per slot: the mix of the slot spreads with the flat one, at least WIDTH_FLOOR of flat. */
function mixed(m: Measured, mix: number): SlotWidths {
  const out = { mix } as SlotWidths;
  for (const side of SIDES) {
    const flat = m.flat[side];
    out[side] = new Float64Array(P).fill(flat);
    if (!m.slots || mix === 0) continue;
    for (let s = 0; s < P; s++) {
      const w = (1 - mix) * flat + mix * m.slots[side][s]!;
      out[side][s] = Math.max(WIDTH_FLOOR * flat, Number.isFinite(w) ? w : flat);
    }
  }
  return out;
}

/** Widths per slot from the residuals of days [0, days), mixed with the flat width. */
export const slotWidths = (e: Float64Array, days: number, mix: number): SlotWidths =>
  mixed(measure(e, days, mix > 0), mix);

/** The width for quantile q at a slot: up for p90, tail for p99, down below the median. */
export const widthAt = (w: SlotWidths, q: number, slot: number): number =>
  (q > 0.5 ? (q >= 0.99 ? w.tail : w.up) : w.down)[slot]!;

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
    m = quantileOfSorted(sortedFinite(errors), 0.5);
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

/** p10 and p90 pinball loss (log) of the errors under widths calibrated on them. */
function shapeLoss(errors: Errors[], medians: number[], widths: SlotWidths): number {
  let loss = 0;
  for (const [i, b] of errors.entries()) {
    const m = medians[i]!;
    for (const q of [0.1, 0.9]) {
      const norm = normalized(b, widths, q);
      const scale = quantileOfSorted(sortedFinite(norm), q);
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
  const held = measure(residuals, days - HELD_OUT_DAYS, true);
  const centres = errors.map((b) => medianOf(b.errors));
  let best: number = SHAPE_MIXES[0]!;
  let bestLoss = Number.POSITIVE_INFINITY;
  for (const mix of SHAPE_MIXES) {
    const loss = shapeLoss(errors, centres, mixed(held, mix));
    if (loss < bestLoss) [best, bestLoss] = [mix, loss];
  }
  return slotWidths(residuals, days, best);
}
