/**
 * The band's slot widths as they were measured before selection replaced the sorts (commit
 * 8e8b36e, shared/forecast/band.ts), kept verbatim as the reference that
 * tests/forecast/widths.test.ts compares the new code with bit for bit. Not used by Governor.
 */
import { mergeSorted } from '#shared/forecast/sort.ts';
import { quantileOfSorted, sortedFinite } from '#shared/forecast/stats.ts';

const P = 288;
const SLOT_POOL = 1;

function column(e: Float64Array, days: number, s: number): Float64Array {
  const out = new Float64Array(days);
  for (let r = 0; r < days; r++) out[r] = e[r * P + s]!;
  return sortedFinite(out);
}

function pooled(columns: readonly Float64Array[], s: number, half: number): Float64Array {
  let out = columns[s]!;
  for (let d = 1; d <= half; d++) {
    out = mergeSorted(out, columns[(s - d + P) % P]!);
    out = mergeSorted(out, columns[(s + d) % P]!);
  }
  return out;
}

type Spreads = { up: number; down: number; tail: number };

function spread(v: Float64Array): Spreads {
  const m = quantileOfSorted(v, 0.5);
  return {
    up: quantileOfSorted(v, 0.9) - m,
    down: m - quantileOfSorted(v, 0.1),
    tail: quantileOfSorted(v, 0.99) - m,
  };
}

export function measureV1(e: Float64Array, days: number, withSlots: boolean) {
  const flat = spread(sortedFinite(e.subarray(0, days * P)));
  if (!withSlots || !Number.isFinite(flat.up)) return { flat, slots: null };
  const slots = { up: new Float64Array(P), down: new Float64Array(P), tail: new Float64Array(P) };
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
