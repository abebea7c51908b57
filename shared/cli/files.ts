/**
 * Every file a command reads or writes goes through here, so each failure is the one line the
 * CLI promises (the option, the path, what is wrong, the fix) and no command creates folders
 * behind the operator's back:
 *
 * - a missing folder inside the working folder is created, and said ("created folder reports");
 * - a missing folder outside it is refused: create it first (one line, exit 2);
 * - a file written outside the working folder is said with its absolute path;
 * - a path that is a folder, or under a file, is one line (exit 2), checked before any work.
 */
import { constants } from 'node:fs';
import { access, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { type CliIo, RunError, UsageError } from './io.ts';

const codeOf = (error: unknown): string => (error as NodeJS.ErrnoException).code ?? String(error);

/** The fix for a failed read, by errno code. */
const READ_FIX: Record<string, string> = {
  ENOENT: 'check the path',
  EISDIR: 'it is a folder: name a file in it',
  ENOTDIR: 'a part of the path is a file, not a folder: check the path',
  EACCES: 'permission denied: check its permissions',
};

/**
 * The text of an input file, or a usage error naming it: "--trace nope.csv: cannot read the
 * file (ENOENT): check the path". `flag` is the option that named it (null: a positional).
 */
export async function readInput(file: string, flag: string | null, cwd: string): Promise<string> {
  try {
    return await readFile(resolve(cwd, file), 'utf8');
  } catch (error) {
    const code = codeOf(error);
    const at = flag === null ? file : `--${flag} ${file}`;
    throw new UsageError(`${at}: cannot read the file (${code}): ${READ_FIX[code] ?? 'check the path'}`);
  }
}

/** Whether `path` lies outside `cwd` (the working folder). */
export function isOutside(path: string, cwd: string): boolean {
  const rel = relative(cwd, path);
  return rel.startsWith('..') || isAbsolute(rel);
}

/** A path as the operator should read it: relative inside the working folder, absolute outside. */
const shown = (path: string, cwd: string) => (isOutside(path, cwd) ? path : relative(cwd, path) || '.');

export interface OutputOptions {
  /** The option that names the file, without dashes ("json"), for the messages. */
  flag: string;
  /** What to name instead of a folder (default "a file in it"), e.g. "a .csv file". */
  what?: string;
  /** No "wrote FILE" line: the command says it its own way. */
  quiet?: boolean;
}

/** "a file such as reports/report.html" for a folder given to --html. */
const fileIn = (folder: string, flag: string) =>
  flag === 'json' || flag === 'html' ? `a file such as ${join(folder, `report.${flag}`)}` : 'a file in it';

export interface PlannedOutput {
  path: string;
  /** The folder to create before writing (missing, inside the working folder), or null. */
  create: string | null;
  outside: boolean;
}

/** The nearest folder of `path` that exists, or a usage error when a file stands in the way. */
async function nearestFolder(path: string, at: string, cwd: string): Promise<string> {
  let folder = dirname(path);
  for (;;) {
    const info = await stat(folder).catch(() => null);
    if (info?.isDirectory()) return folder;
    if (info)
      throw new UsageError(`${at}: ${shown(folder, cwd)} is a file, not a folder: choose another path`);
    if (dirname(folder) === folder) return folder;
    folder = dirname(folder);
  }
}

/**
 * Checks where `--FLAG FILE` will go before any work is done, and creates nothing: a usage
 * error when it is a folder, lies under a file, needs a folder outside the working folder, or
 * cannot be written.
 */
export async function planOutput(file: string, options: OutputOptions, cwd: string): Promise<PlannedOutput> {
  const path = resolve(cwd, file);
  const at = `--${options.flag} ${file}`;
  const outside = isOutside(path, cwd);
  const info = await stat(path).catch(() => null);
  if (info?.isDirectory())
    throw new UsageError(`${at} is a folder: name ${options.what ?? fileIn(file, options.flag)}`);
  const existing = await nearestFolder(path, at, cwd);
  const create = existing === dirname(path) ? null : dirname(path);
  if (create && outside) {
    throw new UsageError(
      `${at}: folder ${create} does not exist and is outside the working folder (${cwd}): create it first, or write under the working folder`,
    );
  }
  try {
    await access(info ? path : existing, constants.W_OK);
  } catch {
    throw new UsageError(
      `${at}: ${shown(info ? path : existing, cwd)} is not writable: choose a path you can write to`,
    );
  }
  return { path, create, outside };
}

/**
 * Two options naming one file would leave only the last report: a usage error naming both.
 * `outputs` maps option names (without dashes) to their files; undefined ones are skipped.
 */
export function distinctOutputs(outputs: Record<string, string | undefined>, cwd: string): void {
  const seen = new Map<string, string>();
  for (const [flag, file] of Object.entries(outputs)) {
    if (file === undefined) continue;
    const path = resolve(cwd, file);
    const first = seen.get(path);
    if (first) {
      throw new UsageError(`${first} and --${flag} ${file} name the same file: give each its own file`);
    }
    seen.set(path, `--${flag} ${file}`);
  }
}

/** The fix for a failed write, by errno code; a full disk is not the operator's input (exit 1). */
const WRITE_FIX: Record<string, string> = {
  ENOSPC: 'the disk is full: free some space',
  EDQUOT: 'the disk quota is used up: free some space',
  EROFS: 'the file system is read-only: choose another path',
  EACCES: 'permission denied: choose a path you can write to',
};

/**
 * Writes a report (or any output) to `--FLAG FILE`: checked as planOutput says, its folder
 * created (and said) when missing inside the working folder, then "wrote FILE" on stderr (with
 * the absolute path when outside the working folder) unless quiet.
 */
export async function writeOutput(
  file: string,
  text: string,
  io: CliIo,
  options: OutputOptions,
): Promise<void> {
  const plan = await planOutput(file, options, io.cwd);
  const at = `--${options.flag} ${file}`;
  try {
    if (plan.create) {
      await mkdir(plan.create, { recursive: true });
      io.stderr(`created folder ${shown(plan.create, io.cwd)}`);
    }
    await writeFile(plan.path, text);
  } catch (error) {
    const code = codeOf(error);
    const line = `${at}: cannot write the file (${code}): ${WRITE_FIX[code] ?? 'check the path'}`;
    throw code === 'ENOSPC' || code === 'EDQUOT' ? new RunError(line) : new UsageError(line);
  }
  if (options.quiet) return;
  io.stderr(plan.outside ? `wrote ${plan.path} (outside the working folder ${io.cwd})` : `wrote ${file}`);
}
