import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '#shared/cli/main.ts';
import { runCli } from '../support/cli.ts';
import { csvOf, dailyHistory } from './fixtures.ts';

const dir = mkdtempSync(join(tmpdir(), 'governor-tune-'));
writeFileSync(join(dir, 'history.csv'), csvOf(dailyHistory(4)));
writeFileSync(join(dir, 'short.csv'), csvOf(dailyHistory(2)));

async function tuneCli(args: string[]) {
  const run = await runCli(['tune', ...args], dir);
  return { ...run, out: run.out.join('\n') };
}

describe('governor tune (CLI)', () => {
  it('prints both parts side by side and the verdict, writes a policy that validates, JSON and HTML', async () => {
    const r = await tuneCli([
      '--trace',
      'history.csv',
      '--out',
      'out/tuned.yaml',
      '--json',
      'out/tune.json',
      '--html',
      'out/tune.html',
      '--candidates',
      '12',
      '--workers',
      '0',
    ]);
    expect(r.out).toMatch(
      /^tune chat-llm on history\.csv: trained on minutes 0-3,859 \(2\.7 days\); judged on minutes 3,859-5,760 \(1\.3 days\), which the search never saw$/m,
    );
    expect(r.out).toMatch(/^training part:$/m);
    expect(r.out).toMatch(/^held-out part:$/m);
    expect(r.out).toMatch(
      /^objective: 99\.5 % of minutes within the SLO over 30 days \(the default: the policy has no slo section\); goal: the lowest cost with at least 99\.75 % of minutes within the SLO in each fold/m,
    );
    expect(r.out).toMatch(
      /^verdict: the (tuned|starting) policy.* (meets|misses) the objective on the held-out part: [\d.]+ % of minutes within the SLO against 99\.5 %/m,
    );
    expect(r.out).toMatch(/^(wrote the tuned policy|kept the starting policy, not the tuned one: .+)$/m);
    const json = JSON.parse(readFileSync(join(dir, 'out/tune.json'), 'utf8'));
    expect(json.search.candidates).toBe(12);
    // Candidates that could no longer qualify stopped early: counted, and not among the dots.
    expect(r.out).toMatch(
      new RegExp(
        `^search: 12 candidates, .*; ${json.search.stoppedEarly} stopped early, once dearer than the starting policy, saving less than the best candidate so far, or over a fold's budget \\(--full-front runs them to the end\\);`,
        'm',
      ),
    );
    expect(json.candidates).toHaveLength(12 - json.search.refused - json.search.stoppedEarly);
    expect(r.code).toBe(json.verdict.meets ? 0 : 1);
    const check = await main(['validate', join(dir, 'out/tuned.yaml')], {
      stdout: () => {},
      stderr: () => {},
      stderrIsTTY: false,
      cwd: dir,
    });
    expect(check).toBe(0);
    expect(readFileSync(join(dir, 'out/tune.html'), 'utf8')).toMatch(/^<!doctype html>/);
  });

  it.each([
    { case: 'no --trace', args: ['--out', 'x.yaml'], message: /--trace HISTORY\.csv is required/ },
    { case: 'no --out', args: ['--trace', 'history.csv'], message: /--out FILE is required/ },
    {
      case: 'a history too short',
      args: ['--trace', 'short.csv', '--out', 'x.yaml'],
      message: /tune needs at least 2880 minutes/,
    },
    {
      case: 'a bad margin',
      args: ['--trace', 'history.csv', '--out', 'x.yaml', '--margin', '1.5'],
      message: /--margin must be a number from 0 to 0.95/,
    },
    {
      case: 'a bad candidate budget',
      args: ['--trace', 'history.csv', '--out', 'x.yaml', '--candidates', '2.5'],
      message: /--candidates must be a whole number/,
    },
    {
      case: 'the retired goal option, with where the objective lives now',
      args: ['--trace', 'history.csv', '--out', 'x.yaml', '--target-violation', '0.5%'],
      message: /--target-violation is gone: .*set slo\.objective\.minutes in the policy/,
    },
    {
      case: 'the retired wall-clock budget, with the candidate budget instead',
      args: ['--trace', 'history.csv', '--out', 'x.yaml', '--budget-seconds', '60'],
      message: /--budget-seconds is gone: the search stops at a candidate budget.*use --candidates N/,
    },
    {
      case: 'a bad fraction',
      args: ['--trace', 'history.csv', '--out', 'x.yaml', '--train-fraction', '1.5'],
      message: /--train-fraction must be a number from 0.1 to 0.95/,
    },
    {
      case: 'an unknown target',
      args: ['--trace', 'history.csv', '--out', 'x.yaml', '--target', 'nope'],
      message: /--target nope is not in/,
    },
  ])('refuses $case in one line, exit 2', async ({ args, message }) => {
    const r = await tuneCli(args);
    expect(r.code).toBe(2);
    expect(r.err).toHaveLength(1);
    expect(r.err[0]).toMatch(message);
  });

  it('writes the same file for the same seed, on the main thread and on two worker threads, with every run whole or not', async () => {
    const tuneTo = (out: string, workers: string, ...more: string[]) =>
      tuneCli([
        '--trace',
        'history.csv',
        '--out',
        out,
        '--candidates',
        '10',
        '--seed',
        '3',
        '--workers',
        workers,
        ...more,
      ]);
    await tuneTo('same/a.yaml', '0');
    await tuneTo('same/b.yaml', '2');
    const full = await tuneTo('same/c.yaml', '2', '--full-front');
    const a = readFileSync(join(dir, 'same/a.yaml'), 'utf8');
    expect(a).toMatch(/^# Tuned by governor tune on history\.csv \(seed 3, 10 candidates\)/);
    expect(readFileSync(join(dir, 'same/b.yaml'), 'utf8')).toBe(a);
    expect(readFileSync(join(dir, 'same/c.yaml'), 'utf8')).toBe(a);
    expect(full.out).toMatch(/; 0 stopped early, /);
  });
});
