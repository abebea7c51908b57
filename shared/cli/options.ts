/** Option parsing helpers: node's parseArgs errors become one-line usage errors. */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { UsageError } from './io.ts';
import { didYouMean } from './suggest.ts';

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

/** "Unknown option '--trce': did you mean --trace?", or where the options are listed. */
export function unknownOption(option: string, known: readonly string[]): string {
  const guess = didYouMean(option, known);
  return guess
    ? `Unknown option '${option}': did you mean ${guess}?`
    : `Unknown option '${option}' (--help lists the options)`;
}

/** parseArgs (strict), with every problem as one usage line; a mistyped option gets a suggestion. */
export function parseOptions<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const unknown = /^Unknown option '([^']+)'/.exec(message);
    if (unknown) {
      const known = Object.keys(config.options ?? {}).map((name) => `--${name}`);
      throw new UsageError(unknownOption(unknown[1]!, known));
    }
    throw new UsageError(oneLine(message));
  }
}

/**
 * A number option within bounds (a whole one when `whole`), or a usage error naming the option.
 */
export function numberOption(
  name: string,
  raw: string | undefined,
  fallback: number,
  min: number,
  max = Infinity,
  whole = false,
): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (
    raw.trim() === '' ||
    !Number.isFinite(value) ||
    value < min ||
    value > max ||
    (whole && !Number.isInteger(value))
  ) {
    throw new UsageError(
      `--${name} must be ${whole ? 'a whole number' : 'a number'} from ${min}${Number.isFinite(max) ? ` to ${max}` : ' up'}, got "${raw}"`,
    );
  }
  return value;
}
