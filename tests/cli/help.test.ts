/**
 * `governor --help` and `governor COMMAND --help`: every command answers with its usage and
 * exit 0, and the backtest's help names every option its parser accepts, so the two cannot drift.
 */
import { describe, expect, it } from 'vitest';
import { OPTIONS } from '#shared/cli/backtest.ts';
import { COMMANDS } from '#shared/cli/commands.ts';
import type { CliIo } from '#shared/cli/io.ts';
import { main } from '#shared/cli/main.ts';

async function run(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    cwd: process.cwd(),
    stdout: (l: string) => out.push(l),
    stderr: (l: string) => err.push(l),
    stderrIsTTY: false,
  };
  const code = await main(argv, io);
  return { code, out: out.join('\n'), err };
}

describe('governor help', () => {
  it('lists the commands and says how to get a command’s options', async () => {
    const { code, out } = await run(['--help']);
    expect(code).toBe(0);
    for (const name of Object.keys(COMMANDS)) expect(out).toContain(`governor ${name}`);
    expect(out).toMatch(/governor <command> --help lists a command's options/);
  });

  it.each(Object.entries(COMMANDS).map(([name, c]) => ({ name, summary: c.summary })))(
    "$name's summary starts its description in the one column every command's does",
    ({ summary }) => {
      // The usage padded to 25 characters and a space ('schema [--write FILE]     print ...'), so
      // --help reads as two columns; 'pause [--stack NAME]' once had one space too many.
      expect(summary[25]).toBe(' ');
      expect(summary[26]).not.toBe(' ');
    },
  );

  it.each(Object.keys(COMMANDS).map((name) => ({ name })))(
    'governor $name --help prints its usage and exits 0, touching nothing',
    async ({ name }) => {
      const { code, out, err } = await run([name, '--help']);
      expect(code).toBe(0);
      expect(err).toEqual([]);
      expect(out).toMatch(new RegExp(`^usage: governor ${name}`));
    },
  );

  it('names every option the backtest accepts', async () => {
    const { out } = await run(['backtest', '-h']);
    for (const option of Object.keys(OPTIONS)) expect(out).toContain(`--${option}`);
  });
});
