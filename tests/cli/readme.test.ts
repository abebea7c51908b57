/**
 * The README's CLI lines that need nothing but a clone, run exactly as written (`npx governor
 * ...` in a shell, in the repository): above all the `governor invoke` line, which must work
 * with no emulator, no network and no credentials.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/** The commands of the README's "The CLI" block, comments stripped. */
function cliLines(): string[] {
  const section = readFileSync('README.md', 'utf8').split('## The CLI')[1] ?? '';
  const block = section.split('```sh\n')[1]?.split('```')[0] ?? '';
  return block
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter(Boolean);
}

const line = (prefix: string) => {
  const found = cliLines().find((l) => l.startsWith(prefix));
  if (!found) throw new Error(`README.md, "The CLI": no line starts with ${prefix}`);
  return found;
};

/** A README line in a shell, with no AWS endpoint or credentials in the environment. */
function shell(command: string) {
  const env = { ...process.env };
  for (const name of ['AWS_ENDPOINT_URL', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_PROFILE']) {
    delete env[name];
  }
  return spawnSync('bash', ['--norc', '-c', command], { encoding: 'utf8', env, timeout: 60_000 });
}

describe("the README's CLI, as written", () => {
  it('governor invoke: the handler on the recorded tick and readings, offline, prints one decision', () => {
    const command = line('npx governor invoke');
    expect(command).toContain('--metrics events/invoke/chat-llm.json');
    expect(command).not.toContain('AWS_ENDPOINT_URL');
    const run = shell(command);
    expect(run.status, run.stderr).toBe(0);
    const records = run.stdout.trim().split('\n');
    expect(records).toHaveLength(1);
    expect(JSON.parse(records[0]!)).toMatchObject({
      targetId: 'chat-llm',
      decision: { action: 'scale-out', currentCapacity: 2, desiredCapacity: 6, reasons: ['PanicScaleOut'] },
    });
    expect(run.stderr).toMatch(/^offline: readings and capacity from events\/invoke\/chat-llm\.json; /m);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it.each([
    { prefix: 'npx governor validate', stdout: /^examples\/policy\.yaml: valid: 1 target: chat-llm/ },
    { prefix: 'npx governor --help', stdout: /^usage: governor <command>[\s\S]*exit codes:/ },
    { prefix: 'npx governor --version', stdout: /^governor \d+\.\d+\.\d+\n$/ },
  ])('$prefix', ({ prefix, stdout }) => {
    const run = shell(line(prefix));
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(stdout);
  });
});
