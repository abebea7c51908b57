/**
 * The CLI's error boundary: whatever a command throws becomes one line on stderr and an exit
 * code (shared/cli/io.ts EXIT), never a stack trace, unless GOVERNOR_DEBUG is set. A closed
 * stdout (`governor schema | head`) ends the command quietly.
 */
import { EXIT, RunError, UsageError } from './io.ts';

export interface Failure {
  line: string;
  code: number;
}

/** How to fix a failed file-system call, by errno code (calls outside shared/cli/files.ts). */
const SYSTEM_FIX: Record<string, string> = {
  ENOENT: 'check the path',
  EISDIR: 'the path is a folder: name a file',
  ENOTDIR: 'a part of the path is a file, not a folder: check the path',
  EACCES: 'permission denied: check the permissions or choose another path',
  EPERM: 'not permitted: check the permissions or choose another path',
  EROFS: 'the file system is read-only: choose another path',
  ENOSPC: 'the disk is full: free some space',
  ECONNREFUSED: 'nothing answers at that address: start the service or check AWS_ENDPOINT_URL',
  ENOTFOUND: 'the host name does not resolve: check the network or AWS_ENDPOINT_URL',
};

const firstLine = (text: string) => text.split('\n')[0]!.trim();

const DEBUG_HINT = 'set GOVERNOR_DEBUG=1 to see the stack trace, and please report it';

/** One line and an exit code for anything a command throws; the stack only when `debug`. */
export function describeFailure(error: unknown, debug = false): Failure {
  if (error instanceof UsageError) return { line: firstLine(error.message), code: EXIT.usage };
  if (error instanceof RunError) return { line: firstLine(error.message), code: EXIT.failure };
  const system = error as NodeJS.ErrnoException & { address?: string };
  if (system instanceof Error && typeof system.code === 'string' && SYSTEM_FIX[system.code]) {
    const where = system.path ? ` ${system.path}` : system.address ? ` ${system.address}` : '';
    const call = system.syscall ? `${system.syscall}${where}` : firstLine(system.message);
    return { line: `${call} failed (${system.code}): ${SYSTEM_FIX[system.code]}`, code: EXIT.failure };
  }
  const message =
    error instanceof Error ? `${error.name}: ${firstLine(error.message)}` : firstLine(String(error));
  if (debug && error instanceof Error && error.stack) return { line: error.stack, code: EXIT.failure };
  return { line: `unexpected error: ${message} (${DEBUG_HINT})`, code: EXIT.failure };
}

/**
 * For the process running the CLI (bin/governor.ts): a closed stdout or stderr ends the command
 * with the exit code it has so far (0 unless set), without a word; an error thrown outside the
 * command's promise (a stream, a timer) is one line and exit 1, like any other failure.
 */
export function installProcessBoundary(name = 'governor'): void {
  const fail = (error: unknown) => {
    const { line, code } = describeFailure(error, Boolean(process.env.GOVERNOR_DEBUG));
    try {
      process.stderr.write(`${name}: ${line}\n`);
    } finally {
      process.exit(code);
    }
  };
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(process.exitCode ?? EXIT.ok);
      fail(error);
    });
  }
  process.on('uncaughtException', fail);
  process.on('unhandledRejection', fail);
}
