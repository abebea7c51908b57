/** What a CLI command may touch: its arguments, output streams and working folder. */
export interface CliIo {
  stdout: (line: string) => void;
  stderr: (line: string) => void;
  /** Whether stderr is a terminal (progress bars only then). */
  stderrIsTTY: boolean;
  cwd: string;
}

/** Exit codes: 0 success, 1 a failure while running, 2 bad input or usage. */
export const EXIT = { ok: 0, failure: 1, usage: 2 } as const;

export type Command = (args: string[], io: CliIo) => Promise<number>;

/** A usage or input problem: the CLI prints the message as one line and exits 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export const processIo = (): CliIo => ({
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
  stderrIsTTY: Boolean(process.stderr.isTTY),
  cwd: process.cwd(),
});
