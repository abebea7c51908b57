/**
 * The band's widths at each slot of the day (./band.ts says why and how the shape is chosen):
 * from the in-sample residuals of a slot and the two beside it over all days (42 values with
 * 14 days), up (p90 less p50), down (p50 less p10) and tail (the up width times the day's
 * p99-to-p90 ratio: a p99 of 42 values is their largest), mixed with the flat width of all the
 * residuals.
 *
 * Measured without sorting all of them: the flat quantiles by selection (./select.ts), each
 * slot's column of days sorted by insertion in one buffer and the pool of three merged into
 * another, so a measure allocates a few buffers instead of ~1,400 arrays. Bit for bit the
 * sorted version: a pool's sorted values are one sequence whichever way it is sorted (no NaN,
 * -0 before +0), and selection reads the sort's values (tests/forecast/widths.test.ts).
 */

import { BINS_PER_DAY } from './series.ts';
import { before, quantilesInPlace } from './sort.ts';
import { quantileOfSorted } from './stats.ts';

const P = BINS_PER_DAY;
/** Slots pooled on each side of a slot (+-1: 15 minutes in all). */
const SLOT_POOL = 1;
/** No slot is narrower than a quarter of the flat width (a slot that was quiet for 14 days is not certain). */
const WIDTH_FLOOR = 0.25;

export interface SlotWidths {
  up: Float64Array;
  down: Float64Array;
  tail: Float64Array;
  /** The share of the slot widths in the mix (0: flat). */
  mix: number;
}

type Side = 'up' | 'down' | 'tail';
const SIDES: readonly Side[] = ['up', 'down', 'tail'];
type Spreads = Record<Side, number>;

/** Quantiles a spread reads: median, p90, p10, p99. */
const SPREAD_QS: readonly number[] = [0.5, 0.9, 0.1, 0.99];

const spreadOf = (m: number, p90: number, p10: number, p99: number): Spreads => ({
  up: p90 - m,
  down: m - p10,
  tail: p99 - m,
});

/** The spreads of the finite residuals e[0..n), by selection on a copy. */
function flatSpread(e: Float64Array, n: number): Spreads {
  const q = new Float64Array(SPREAD_QS.length);
  const copy = e.slice(0, n);
  quantilesInPlace(copy, copy.length, SPREAD_QS, q);
  return spreadOf(q[0]!, q[1]!, q[2]!, q[3]!);
}

/** The spreads of sorted v[0..n) (type-7 quantiles, as quantileOfSorted). */
function sortedSpread(v: Float64Array, n: number): Spreads {
  const s = v.subarray(0, n);
  const m = quantileOfSorted(s, 0.5);
  return spreadOf(m, quantileOfSorted(s, 0.9), quantileOfSorted(s, 0.1), quantileOfSorted(s, 0.99));
}

/** Each slot's finite residuals over days [0, days), sorted (-0 before +0): slot s at s x days. */
interface Columns {
  values: Float64Array;
  counts: Int32Array;
  days: number;
}

function sortedColumns(e: Float64Array, days: number): Columns {
  const values = new Float64Array(P * days);
  const counts = new Int32Array(P);
  for (let s = 0; s < P; s++) {
    const at = s * days;
    let n = 0;
    for (let r = 0; r < days; r++) {
      const v = e[r * P + s]!;
      if (!Number.isFinite(v)) continue;
      let j = at + n++;
      while (j > at && before(v, values[j - 1]!)) {
        values[j] = values[j - 1]!;
        j--;
      }
      values[j] = v;
    }
    counts[s] = n;
  }
  return { values, counts, days };
}

/** Merges sorted a[0..na) with column s into out; returns the count. */
function mergeColumn(a: Float64Array, na: number, c: Columns, s: number, out: Float64Array): number {
  const b = c.values;
  const from = s * c.days;
  const end = from + c.counts[s]!;
  let [i, j, n] = [0, from, 0];
  while (i < na && j < end) out[n++] = before(b[j]!, a[i]!) ? b[j++]! : a[i++]!;
  while (i < na) out[n++] = a[i++]!;
  while (j < end) out[n++] = b[j++]!;
  return n;
}

/** Sorted residuals of slots s - half .. s + half into pool (through scratch); returns the count. */
function pooled(c: Columns, s: number, half: number, pool: Float64Array, scratch: Float64Array): number {
  let n = c.counts[s]!;
  pool.set(c.values.subarray(s * c.days, s * c.days + n));
  for (let d = 1; d <= half; d++) {
    n = mergeColumn(pool, n, c, (s - d + P) % P, scratch);
    n = mergeColumn(scratch, n, c, (s + d) % P, pool);
  }
  return n;
}

/** The flat spreads of the residuals of days [0, days), and each slot's (null: flat only). */
export interface Measured {
  flat: Spreads;
  slots: Record<Side, Float64Array> | null;
}

export function measure(e: Float64Array, days: number, withSlots: boolean): Measured {
  const flat = flatSpread(e, days * P);
  if (!withSlots || !Number.isFinite(flat.up)) return { flat, slots: null };
  const slots = { up: new Float64Array(P), down: new Float64Array(P), tail: new Float64Array(P) };
  // p99 of a slot's 42 residuals is its largest: the tail keeps the day's ratio to the p90 width.
  const tailRatio = flat.up > 0 ? flat.tail / flat.up : 1;
  const columns = sortedColumns(e, days);
  const pool = new Float64Array((2 * SLOT_POOL + 1) * days);
  const scratch = new Float64Array(pool.length);
  for (let s = 0; s < P; s++) {
    const local = sortedSpread(pool, pooled(columns, s, SLOT_POOL, pool, scratch));
    slots.up[s] = local.up;
    slots.down[s] = local.down;
    slots.tail[s] = local.up * tailRatio;
  }
  return { flat, slots };
}

/** Widths per slot: the mix of the slot spreads with the flat one, at least WIDTH_FLOOR of flat. */
export function mixed(m: Measured, mix: number): SlotWidths {
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

/**
 * Measures and mixes kept per residuals array: every refit of one day reads the same fit of its
 * whole days (./model.ts sharedDaysFit), so the same residuals, and measured them again each time
 * (a sixth of a NASA refit). The last KEPT_RESIDUALS arrays are kept, found by identity, most
 * recent first: a lifetime bounded by count, like the fits' own, not by the collector's timing
 * (a WeakMap's entries wait for a full collection once their key is old). Pure in effect: neither
 * the residuals nor what is returned is ever written after it is made (tests/forecast/widths.test.ts).
 */
export const KEPT_RESIDUALS = 24;

interface KeptResiduals {
  residuals: Float64Array;
  /** By 2 x days + withSlots. */
  measures: Map<number, Measured>;
  /** By the measure, then the mix. */
  widths: Map<Measured, Map<number, SlotWidths>>;
}

const keptResiduals: KeptResiduals[] = [];

function keptFor(e: Float64Array): KeptResiduals {
  const at = keptResiduals.findIndex((k) => k.residuals === e);
  if (at === 0) return keptResiduals[0]!;
  const k =
    at > 0 ? keptResiduals.splice(at, 1)[0]! : { residuals: e, measures: new Map(), widths: new Map() };
  keptResiduals.unshift(k);
  if (keptResiduals.length > KEPT_RESIDUALS) keptResiduals.pop();
  return k;
}

/** The value under key, made once. */
function once<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = make();
    map.set(key, value);
  }
  return value;
}

/** measure(), once per residuals array (of the last KEPT_RESIDUALS), days and withSlots. */
export function keptMeasure(e: Float64Array, days: number, withSlots: boolean): Measured {
  return once(keptFor(e).measures, 2 * days + (withSlots ? 1 : 0), () => measure(e, days, withSlots));
}

/** mixed(keptMeasure(e, days, withSlots), mix), once. */
export function keptWidths(e: Float64Array, days: number, withSlots: boolean, mix: number): SlotWidths {
  const m = keptMeasure(e, days, withSlots);
  const byMix = once(keptFor(e).widths, m, () => new Map<number, SlotWidths>());
  return once(byMix, mix, () => mixed(m, mix));
}

/** Widths per slot from the residuals of days [0, days), mixed with the flat width (kept: see keptMeasure). */
export const slotWidths = (e: Float64Array, days: number, mix: number): SlotWidths =>
  keptWidths(e, days, mix > 0, mix);

/** The width for quantile q at a slot: up for p90, tail for p99, down below the median. */
export const widthAt = (w: SlotWidths, q: number, slot: number): number =>
  (q > 0.5 ? (q >= 0.99 ? w.tail : w.up) : w.down)[slot]!;
