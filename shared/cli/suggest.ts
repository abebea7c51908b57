/** "Did you mean": the known name closest to a mistyped command or option. */

/**
 * Edits between two strings, a swap of neighbours counting as one (optimal string alignment):
 * "backtset" is 1 from "backtest", "trce" 1 from "trace", "sute" 1 from "suite".
 */
export function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      }
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The candidate `input` most likely meant, or undefined: the closest within a third of its
 * length (at least 1 edit: "--trce" -> "--trace"; "valdiate" -> "validate"), else the only
 * candidate it starts (3 letters or more: "--pol" -> "--policy"). Case and leading dashes are
 * ignored when comparing.
 */
export function didYouMean(input: string, candidates: readonly string[]): string | undefined {
  const bare = (s: string) => s.replace(/^-+/, '').toLowerCase();
  const typed = bare(input);
  if (typed === '') return undefined;
  let best: { name: string; distance: number } | undefined;
  for (const name of candidates) {
    const distance = editDistance(typed, bare(name));
    if (!best || distance < best.distance) best = { name, distance };
  }
  if (best && best.distance <= Math.max(1, Math.floor(typed.length / 3))) return best.name;
  const started = candidates.filter((name) => bare(name).startsWith(typed));
  return typed.length >= 3 && started.length === 1 ? started[0] : undefined;
}
