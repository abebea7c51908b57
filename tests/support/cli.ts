/** The CLI in-process, its output captured line by line: what every CLI test needs. */
import type { CliIo } from '#shared/cli/io.ts';
import { main } from '#shared/cli/main.ts';

export interface CliRun {
  code: number;
  out: string[];
  err: string[];
}

/** `governor ...args` in `cwd` (the process's by default), stderr not a terminal. */
export async function runCli(args: readonly string[], cwd: string = process.cwd()): Promise<CliRun> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { stdout: (l) => out.push(l), stderr: (l) => err.push(l), stderrIsTTY: false, cwd };
  const code = await main([...args], io);
  return { code, out, err };
}
