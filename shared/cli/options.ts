/** Option parsing helpers: node's parseArgs errors become one-line usage errors. */
import { UsageError } from './io.ts';

/**
 * Node's parseArgs says some things over several lines ("--peak-instances -3": "argument is
 * ambiguous." then two lines of advice); the operator gets one line with the fix.
 */
export function oneLine(message: string): string {
  const ambiguous = /^Option '(--[\w-]+)[^']*' argument is ambiguous\./.exec(message);
  if (ambiguous) {
    const flag = ambiguous[1]!;
    return `${flag} needs a value: a value starting with "-" is read as an option (write ${flag}=VALUE; numbers here are 0 or more)`;
  }
  return message.split('\n')[0]!.trim();
}

export function parseOptions<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new UsageError(oneLine(error instanceof Error ? error.message : String(error)));
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
