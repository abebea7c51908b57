/**
 * The scripts' arguments (scripts/*.ts), read as the governor CLI reads its own
 * (shared/cli/options.ts): `--help` (or `-h`) prints the usage on stdout and exits 0; a mistyped
 * option (with a guess at the one meant), a missing value or a stray argument is one line on
 * stderr, `SCRIPT: what is wrong (usage: SYNOPSIS)`, exit 2, before the script does anything.
 * Never a stack trace, and never an option taken for a file name (held-out-traces once wrote its
 * traces into a folder called `--help`).
 */
import type { ParseArgsConfig, parseArgs } from 'node:util';
import { UsageError } from '#shared/cli/io.ts';
import { numberOption, parseOptions } from '#shared/cli/options.ts';

export interface ScriptUsage {
  /** The script's name as its messages start: `local`, `held-out-traces`. */
  script: string;
  /** One line: how to run it (`node scripts/x.ts FILE [--flag N]`), ending every error. */
  synopsis: string;
  /** What --help prints after the synopsis: what it does and each option. */
  details: string;
  /** At most this many arguments that are not options (default 0). */
  maxPositionals?: number;
}

/** One line on stderr naming what is wrong and how to run the script; exit 2. */
export function usageExit(u: Pick<ScriptUsage, 'script' | 'synopsis'>, message: string): never {
  // The usage follows, so the CLI's own pointer to --help is left out.
  const said = message.replace(/ \(--help lists the options\)$/, '');
  process.stderr.write(`${u.script}: ${said} (usage: ${u.synopsis})\n`);
  process.exit(2);
}

/** The script's options and arguments, or --help's text and exit 0, or one usage line and exit 2. */
export function scriptArgs<T extends ParseArgsConfig>(
  u: ScriptUsage,
  config: T,
  args: string[] = process.argv.slice(2),
): ReturnType<typeof parseArgs<T>> {
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(`usage: ${u.synopsis}\n\n${u.details.trim()}\n`);
    process.exit(0);
  }
  const max = u.maxPositionals ?? 0;
  try {
    const parsed = parseOptions({ ...config, args, strict: true, allowPositionals: true });
    const extra = parsed.positionals[max];
    if (extra !== undefined) {
      throw new UsageError(
        max === 0
          ? `takes no argument, got '${extra}'`
          : `takes at most ${max} argument${max === 1 ? '' : 's'}, got also '${extra}'`,
      );
    }
    return parsed as ReturnType<typeof parseArgs<T>>;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return usageExit(u, error.message);
  }
}

/** A number option within bounds (whole when `integer`, numberOption's check), or one usage line naming it; exit 2. */
export function numberArg(
  u: Pick<ScriptUsage, 'script' | 'synopsis'>,
  name: string,
  raw: string | undefined,
  bounds: { min: number; max?: number; integer?: boolean },
): number | null {
  if (raw === undefined) return null;
  try {
    return numberOption(name, raw, Number.NaN, bounds.min, bounds.max, bounds.integer);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return usageExit(u, error.message);
  }
}
