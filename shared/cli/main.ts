/** The governor CLI: dispatches to a subcommand and turns errors into exit codes. */
import { COMMANDS } from './commands.ts';
import { type CliIo, EXIT, UsageError } from './io.ts';

export function usage(): string {
  const lines = Object.values(COMMANDS).map((c) => `  governor ${c.summary}`);
  return [
    'usage: governor <command> [options]',
    '',
    'commands:',
    ...lines,
    '',
    "governor <command> --help lists a command's options.",
  ].join('\n');
}

export async function main(argv: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout(usage());
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  const entry = COMMANDS[name];
  if (!entry) {
    io.stderr(`governor: unknown command "${name}"; run "governor --help" for the list`);
    return EXIT.usage;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.stdout(entry.help);
    return EXIT.ok;
  }
  try {
    return await (await entry.load())(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`governor ${name}: ${error.message}`);
      return EXIT.usage;
    }
    io.stderr(`governor ${name}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return EXIT.failure;
  }
}
