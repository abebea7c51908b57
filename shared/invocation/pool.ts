/**
 * Bounded concurrency for the evaluator's per-item work: at most `limit` calls of fn in flight,
 * results in the order of the items. With 500 targets, Promise.all would put 500 DescribeEndpoint
 * (or 500 claims) on the wire at once: the service throttles, the SDK's retries pile up, and every
 * target passes its deadline check at t = 0, so "not started for lack of time" could never
 * happen. With a pool, the 17th target starts when one of the first 16 finishes and checks the
 * time left then.
 *
 * mapBounded([a, b, c], 2, f): f(a) and f(b) start at once, f(c) when either settles.
 */

/** At most `limit` (>= 1) of fn running at a time; resolves to fn's results in item order. */
export async function mapBounded<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  if (!Number.isInteger(limit) || limit < 1)
    throw new Error(`mapBounded: limit must be a whole number >= 1, got ${limit}`);
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** Items in consecutive chunks of at most `size`: chunks([1, 2, 3], 2) -> [[1, 2], [3]]. */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
