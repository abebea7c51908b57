/**
 * EventBridge event-pattern matching for the subset Governor's rules use: nested objects, lists
 * of exact values (any one matches) and `{ "prefix": "..." }`. Enough to test that the alarm
 * rule in template.yaml lets the sample events under events/ through, or not, as the evaluate
 * function expects. A matcher the subset does not know throws instead of guessing.
 */
type Pattern = { [key: string]: Pattern | readonly unknown[] };

function matchesValue(matcher: unknown, value: unknown): boolean {
  if (matcher !== null && typeof matcher === 'object') {
    const keys = Object.keys(matcher);
    if (keys.length === 1 && keys[0] === 'prefix') {
      return typeof value === 'string' && value.startsWith(String((matcher as { prefix: unknown }).prefix));
    }
    throw new Error(`event pattern: matcher ${JSON.stringify(matcher)} is outside the supported subset`);
  }
  return matcher === value;
}

/** Whether event matches pattern (EventBridge semantics for the subset above). */
export function matchesPattern(pattern: Pattern, event: unknown): boolean {
  if (event === null || typeof event !== 'object') return false;
  const fields = event as Record<string, unknown>;
  return Object.entries(pattern).every(([key, expected]) => {
    const value = fields[key];
    if (Array.isArray(expected)) {
      const values = Array.isArray(value) ? value : [value];
      return expected.some((m) => values.some((v) => matchesValue(m, v)));
    }
    return matchesPattern(expected as Pattern, value);
  });
}
