/** Option parsing helpers: node's parseArgs errors become one-line usage errors. */
import { UsageError } from './io.ts';

export function parseOptions<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

/** A whole or decimal number option within bounds, or a usage error naming the option. */
export function numberOption(
  name: string,
  raw: string | undefined,
  fallback: number,
  min: number,
  max = Infinity,
): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value) || value < min || value > max) {
    throw new UsageError(
      `--${name} must be a number from ${min}${Number.isFinite(max) ? ` to ${max}` : ' up'}, got "${raw}"`,
    );
  }
  return value;
}
