import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CliIo } from '#shared/cli/io.ts';
import { main } from '#shared/cli/main.ts';
import { synthetic } from './synthetic.ts';

const dir = mkdtempSync(join(tmpdir(), 'governor-forecast-'));
const write = (name: string, text: string) => writeFileSync(join(dir, name), text);
const csv = (minutes: number[]) => ['minute,requests', ...minutes.map((r, m) => `${m},${r}`)].join('\n');

// 9 days: a week of history for every method, then 6-hour horizons over two more days.
write('nine-days.csv', csv(synthetic({ days: 9, weekendFactor: 0.6, noise: 0.2 })));
write('one-hour.csv', csv(synthetic({ days: 1 }).slice(0, 60)));
write('bad-header.csv', 'time,count\n0,1\n');

async function forecastCli(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { stdout: (l) => out.push(l), stderr: (l) => err.push(l), stderrIsTTY: false, cwd: dir };
  const code = await main(['forecast', ...args], io);
  return { code, out, err };
}

describe('governor forecast', () => {
  it('prints every method side by side with the verdict, and writes the figures as JSON', async () => {
    const { code, out, err } = await forecastCli([
      '--trace',
      'nine-days.csv',
      '--history-days',
      '7',
      '--horizon-hours',
      '6',
      '--json',
      'out/eval.json',
    ]);
    expect(err).toEqual(['created folder out', 'wrote out/eval.json']);
    expect(code).toBe(0);
    const text = out.join('\n');
    expect(text).toMatch(
      /8 origins every 6 h \(day 7\.0 to 8\.8\), 6 h ahead, 7 whole days and today of history for Governor/,
    );
    expect(text).toMatch(/scored at five-minute resolution/);
    for (const label of [
      'Governor forecaster',
      'seasonal naive, yesterday',
      'seasonal naive, last week',
      'EC2-style hourly',
    ])
      expect(text).toContain(label);
    expect(text).toMatch(/Governor's p90 pinball loss is \d+\.\d % lower than the best naive baseline/);
    expect(text).toMatch(
      /Governor (used its seasonal model at all 8 origins|fell back to a simpler forecaster at \d of 8 origins)/,
    );
    const json = JSON.parse(readFileSync(join(dir, 'out/eval.json'), 'utf8'));
    expect(json).toMatchObject({
      trace: 'nine-days.csv',
      resolution: '5min',
      origins: 8,
      historyDays: 7,
      horizonHours: 6,
    });
    expect(json.methods).toHaveLength(6);
    expect(json.governorFallbacks).toBeTypeOf('object');
  });

  it.each([
    { case: 'no --trace', args: [], message: /--trace FILE is required/ },
    {
      case: 'a trace that does not exist',
      args: ['--trace', 'nope.csv'],
      message: /^governor forecast: --trace nope\.csv: cannot read the file \(ENOENT\): check the path$/,
    },
    {
      case: 'a trace with the wrong header',
      args: ['--trace', 'bad-header.csv'],
      message: /bad-header\.csv: line 1: header/,
    },
    {
      case: 'a trace too short to evaluate',
      args: ['--trace', 'one-hour.csv'],
      message: /one-hour\.csv: the trace covers 60 minutes \(0\.0 days\); evaluating needs 16\.0 days/,
    },
    {
      case: '--history-days 0',
      args: ['--trace', 'nine-days.csv', '--history-days', '0'],
      message: /--history-days must be a number from 1 to 28/,
    },
    {
      case: '--horizon-hours 49',
      args: ['--trace', 'nine-days.csv', '--horizon-hours', '49'],
      message: /--horizon-hours must be a number from 1 to 48/,
    },
    {
      case: 'a fractional history',
      args: ['--trace', 'nine-days.csv', '--history-days', '7.5'],
      message: /must be whole numbers/,
    },
    {
      case: 'an unknown option',
      args: ['--trace', 'nine-days.csv', '--days', '3'],
      message: /Unknown option '--days'/,
    },
    { case: 'a stray argument', args: ['nine-days.csv'], message: /unexpected argument "nine-days\.csv"/ },
  ])('$case is one line on stderr and exit 2', async ({ args, message }) => {
    const { code, out, err } = await forecastCli(args);
    expect(code).toBe(2);
    expect(out).toEqual([]);
    expect(err).toHaveLength(1);
    expect(err[0]).toMatch(/^governor forecast: /);
    expect(err[0]).toMatch(message);
  });
});
