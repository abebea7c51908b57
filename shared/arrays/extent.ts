/**
 * The largest and smallest of an array of any length, and appending one array to another.
 * `Math.max(...values)` and `target.push(...items)` pass every element as an argument, and V8
 * runs out of stack at about 125,000 of them: a 90-day per-minute trace (129,600 minutes) threw
 * "Maximum call stack size exceeded" in the backtest (issue 18). These loops take any length;
 * tests/scripts/no-spread.test.ts keeps the spreads from coming back.
 */

/** The largest value, or `empty` when there is none (Math.max() of nothing is -Infinity). */
export function maxOf(values: ArrayLike<number>, empty = Number.NEGATIVE_INFINITY): number {
  let out = empty;
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    // Math.max semantics: NaN wins, so a NaN in the data is not hidden by the loop.
    if (v > out || Number.isNaN(v)) out = v;
    if (Number.isNaN(out)) return out;
  }
  return out;
}

/** The smallest value, or `empty` when there is none (Math.min() of nothing is +Infinity). */
export function minOf(values: ArrayLike<number>, empty = Number.POSITIVE_INFINITY): number {
  let out = empty;
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (v < out || Number.isNaN(v)) out = v;
    if (Number.isNaN(out)) return out;
  }
  return out;
}

/** Appends `items` to `target` in place and returns it: push(...items) for any length. */
export function appendAll<T>(target: T[], items: Iterable<T>): T[] {
  for (const item of items) target.push(item);
  return target;
}
