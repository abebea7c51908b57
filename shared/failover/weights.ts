/**
 * Weight arithmetic: how much of a source region's traffic each step moves, and to whom, in
 * whole percents that always sum to 100. `routable` is the invariant the planner checks before it
 * emits any routing action.
 */
import type { Weights } from './types.ts';

/**
 * Splits `total` whole units in proportion to `parts` (largest remainder; ties go to the key
 * first in order). apportion(10, {a: 1, b: 1, c: 1}) = {a: 4, b: 3, c: 3}. With every part 0
 * the split is even.
 */
export function apportion(total: number, parts: Record<string, number>): Record<string, number> {
  const keys = Object.keys(parts).sort();
  const sum = keys.reduce((s, k) => s + (parts[k] ?? 0), 0);
  const exact = keys.map((k) => (sum > 0 ? (total * (parts[k] ?? 0)) / sum : total / keys.length));
  const out: Record<string, number> = {};
  keys.forEach((k, i) => {
    out[k] = Math.floor(exact[i] ?? 0);
  });
  let left = total - keys.reduce((s, k) => s + (out[k] ?? 0), 0);
  const byRemainder = keys
    .map((k, i) => ({ k, r: (exact[i] ?? 0) - (out[k] ?? 0) }))
    .sort((a, b) => b.r - a.r || a.k.localeCompare(b.k));
  for (const { k } of byRemainder) {
    if (left <= 0) break;
    out[k] = (out[k] ?? 0) + 1;
    left--;
  }
  return out;
}

/**
 * Weights with `movedPercent` of the source's base weight moved to the receivers by their shares.
 * Primary 100 / standby 0, 50 % moved: {primary: 50, standby: 50}. Active-active 60/40 with the
 * 60 failing, 10 % moved: {a: 54, b: 46}.
 */
export function shiftedWeights(
  base: Weights,
  source: string,
  shares: Weights,
  movedPercent: number,
): Weights {
  const from = base[source] ?? 0;
  const moved = movedPercent >= 100 ? from : Math.round((from * movedPercent) / 100);
  const gains = apportion(moved, shares);
  const out: Weights = { ...base, [source]: from - moved };
  for (const [region, gain] of Object.entries(gains)) out[region] = (out[region] ?? 0) + gain;
  return out;
}

/** Traffic has somewhere to go: whole percents 0-100, summing to 100, so at least one is above 0. */
export function routable(w: Weights): boolean {
  const values = Object.values(w);
  return (
    values.length > 0 &&
    values.every((v) => Number.isInteger(v) && v >= 0 && v <= 100) &&
    values.reduce((s, v) => s + v, 0) === 100
  );
}

export const sameWeights = (a: Weights, b: Weights): boolean => {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].every((k) => (a[k] ?? 0) === (b[k] ?? 0));
};
