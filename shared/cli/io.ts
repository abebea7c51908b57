/** What a CLI command may touch: its arguments, output streams and working folder. */
export interface CliIo {
  stdout: (line: string) => void;
  stderr: (line: string) => void;
  /** Whether stderr is a terminal (progress bars only then). */
  stderrIsTTY: boolean;
  cwd: string;
}

/**
 * Exit codes, the same for every command (`governor --help` and the README list them):
 * 0 ok; 1 a check failed (a suite loss, a tuned policy that does not beat target tracking, a
 * failed decision, a history with no usable data) or the run could not finish; 2 bad input
 * (usage, options, input and output paths, a Node older than the CLI needs).
 */
export const EXIT = { ok: 0, failure: 1, usage: 2 } as const;

export type Command = (args: string[], io: CliIo) => Promise<number>;

/** A usage or input problem: the CLI prints the message as one line and exits 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** A run that could not finish for a reason the message names with its fix: one line, exit 1. */
export class RunError extends Error {
  override name = 'RunError';
}

export const processIo = (): CliIo => ({
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
  stderrIsTTY: Boolean(process.stderr.isTTY),
  cwd: process.cwd(),
});
