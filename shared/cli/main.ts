/**
 * The governor CLI: dispatches to a subcommand, and is its error boundary: whatever goes wrong
 * is one line on stderr naming the fix, with the exit codes of EXIT (shared/cli/io.ts).
 */
import { readFile } from 'node:fs/promises';
import { describeFailure } from './boundary.ts';
import { COMMANDS } from './commands.ts';
import { type CliIo, EXIT } from './io.ts';
import { didYouMean } from './suggest.ts';

export const EXIT_CODES = [
  'exit codes:',
  '  0  ok',
  '  1  a check failed (suite: a loss; tune: no better than target tracking; invoke: a failed',
  '     decision; history: no usable data) or the run could not finish',
  '  2  bad input: usage, options, input or output paths, a Node older than 22.18',
].join('\n');

export function usage(): string {
  const lines = Object.values(COMMANDS).map((c) => `  governor ${c.summary}`);
  return [
    'usage: governor <command> [options]',
    '',
    'commands:',
    ...lines,
    '',
    "governor <command> --help lists a command's options; governor --version prints the version.",
    '',
    EXIT_CODES,
  ].join('\n');
}

/** package.json's version, read from beside this file so it works from any folder. */
export async function version(): Promise<string> {
  const text = await readFile(new URL('../../package.json', import.meta.url), 'utf8');
  return (JSON.parse(text) as { version: string }).version;
}

const HELP = ['--help', '-h', 'help'];
const VERSION = ['--version', '-V', '-v', 'version'];

/** "unknown command", with the closest command or global option when there is one. */
function unknown(name: string): string {
  const what = name.startsWith('-') ? 'option' : 'command';
  const candidates = name.startsWith('-') ? ['--help', '--version'] : Object.keys(COMMANDS);
  const guess = didYouMean(name, candidates);
  return `governor: unknown ${what} "${name}"${guess ? `: did you mean "${guess}"?` : ''} (governor --help lists the commands)`;
}

export async function main(argv: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || HELP.includes(name)) {
    // Without a command the usage goes to stderr: stdout stays for a command's output.
    (name === undefined ? io.stderr : io.stdout)(usage());
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  if (VERSION.includes(name)) {
    io.stdout(`governor ${await version()}`);
    return EXIT.ok;
  }
  const entry = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!entry) {
    io.stderr(unknown(name));
    return EXIT.usage;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.stdout(entry.help);
    return EXIT.ok;
  }
  try {
    return await (await entry.load())(rest, io);
  } catch (error) {
    const { line, code } = describeFailure(error, Boolean(process.env.GOVERNOR_DEBUG));
    io.stderr(`governor ${name}: ${line}`);
    return code;
  }
}
