/** Reading a command's input files and writing its reports, with the one-line errors the CLI promises. */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { type CliIo, UsageError } from './io.ts';

/** The text of `--FLAG FILE`, or a usage error naming the flag, the file and the fix. */
export async function readInput(file: string, flag: string, cwd: string): Promise<string> {
  try {
    return await readFile(resolve(cwd, file), 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new UsageError(`--${flag} ${file}: cannot read the file (${code}): check the path`);
  }
}

/** Writes a report (parent folders created) and says so on stderr. */
export async function writeOutput(file: string, text: string, io: CliIo): Promise<void> {
  const path = resolve(io.cwd, file);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
  io.stderr(`wrote ${file}`);
}
