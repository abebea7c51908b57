/** governor commit on an eight-day history: the recommendation, its JSON, and its one-line refusals. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import { csvOf, dailyHistory } from '../tune/fixtures.ts';

const dir = mkdtempSync(join(tmpdir(), 'governor-commit-'));
writeFileSync(join(dir, 'history.csv'), csvOf(dailyHistory(8)));

async function commit(args: string[]) {
  const run = await runCli(['commit', '--trace', 'history.csv', ...args], dir);
  return { ...run, out: run.out.join('\n'), err: run.err.join('\n') };
}

describe('governor commit (CLI)', async () => {
  const r = await commit(['--one-year', '0.99', '--three-year', '0.62', '--json', 'out/commit.json']);
  const json = JSON.parse(readFileSync(join(dir, 'out/commit.json'), 'utf8'));

  it('opens with the recommendation in one sentence and prints a row per term', () => {
    expect(r.code).toBe(0);
    expect(r.out).toMatch(
      /^Commit \d+ instances? \((1|3)-year at [\d.]+ USD an hour\): [\d.]+ % less than all on demand/,
    );
    expect(r.out).toMatch(/^1-year +0\.99 +65\.1 % +\d+/m);
    expect(r.out).toMatch(/^3-year +0\.62 +40\.8 % +\d+/m);
    expect(r.out).toMatch(/^ {2}3-year, last 7 days: commit \d+, [\d.]+ % saved over the whole history/m);
  });

  it('writes what it printed as JSON: the deeper discount never commits fewer', () => {
    expect(json.onDemandUsdPerHour).toBe(1.52);
    const [one, three] = json.plans;
    expect(three.instances).toBeGreaterThanOrEqual(one.instances);
    expect(three.saving).toBeGreaterThan(0);
    expect(json.plans[0].lookbacks.map((l: { days: number }) => l.days)).toEqual([7]);
  });

  it.each([
    { args: [], error: /needs your commitment rates: --one-year USD and\/or --three-year USD/ },
    { args: ['--one-year', '0'], error: /--one-year must be a number from 0\.0001 up, got "0"/ },
    {
      args: ['--one-year', '1', '--target', 'nope'],
      error: /--target nope is not in .*policy\.yaml; its targets are chat-llm/,
    },
  ])('refuses $args in one line, exit 2', async ({ args, error }) => {
    const bad = await commit(args);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(error);
    expect(bad.err.split('\n').filter(Boolean)).toHaveLength(1);
  });
});

describe('governor commit on a policy with a capacity mix, and on a short history', () => {
  it('takes the committed rate and the committed pool\u2019s on-demand price from the policy, and warns under a week', async () => {
    writeFileSync(join(dir, 'day.csv'), csvOf(dailyHistory(1)));
    const r = await runCli(
      ['commit', '--trace', 'day.csv', '--policy', join(process.cwd(), 'examples/capacity-mix.yaml')],
      dir,
    );
    const out = r.out.join('\n');
    expect(r.code).toBe(0);
    expect(out).toMatch(/^Commit \d+ instances? \(policy rate at 0\.76 USD an hour\)/);
    expect(out).toMatch(/on demand at 1\.212 USD an hour/);
    expect(out).toMatch(
      /^warning: 24 hours of history says little about a term of years: base a commitment on at least 7 days/m,
    );
  });
});
