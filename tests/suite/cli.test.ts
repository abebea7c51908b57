import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import { suiteFixtures } from './fixtures.ts';

const fx = suiteFixtures();
// A policy that can only lose where some target tracking target meets the objective (the ramp at
// 10 instances at peak: 0.55 x saturation does): it never goes below 60 instances, so it costs more.
const example = readFileSync('examples/policy.yaml', 'utf8');
fx.write('dear.yaml', example.replace(/minCapacity: \d+/, 'minCapacity: 60'));

async function suite(args: string[]) {
  const run = await runCli(['suite', ...args], fx.dir);
  return { ...run, out: run.out.join('\n') };
}

describe('governor suite', () => {
  it('prints every cell, the summary line and writes the JSON and HTML reports', async () => {
    const r = await suite([
      '--trace',
      'ramp.csv',
      '--trace',
      'surge.csv',
      '--variants',
      'reference,peak-10',
      '--workers',
      '0',
      '--json',
      'out/suite.json',
      '--html',
      'out/suite.html',
    ]);
    expect(r.out).toMatch(/^ramp\s+reference\s/m);
    expect(r.out).toMatch(/^surge\s+peak-10\s/m);
    expect(r.out).toMatch(/suite: 4 cells, \d wins, \d losses; median saving at equal SLO (-?[\d.]+ %|n\/a)/);
    expect(r.err).toContain(
      'suite: 1/4 ramp.csv reference: ' +
        JSON.parse(readFileSync(join(fx.dir, 'out/suite.json'), 'utf8')).cells[0].outcome,
    );
    const json = JSON.parse(readFileSync(join(fx.dir, 'out/suite.json'), 'utf8'));
    expect(json.cells).toHaveLength(4);
    expect(json.summary.cells).toBe(4);
    expect(json.baseline).toBe('aws-target-tracking-best');
    expect(json.cells[0]).toHaveProperty('savingAtEqualSlo');
    expect(json.summary).toHaveProperty('medianSaving');
    expect(readFileSync(join(fx.dir, 'out/suite.html'), 'utf8')).toMatch(/^<!doctype html>/);
    expect(r.code).toBe(json.summary.losses > 0 ? 1 : 0);
  });

  it('exits 1 when a cell is a loss, and names why', async () => {
    const r = await suite([
      '--policy',
      'dear.yaml',
      '--trace',
      'ramp.csv',
      '--variants',
      'peak-10',
      '--workers',
      '0',
    ]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/LOSS: costs [\d.]+ % more than target tracking at [\d.]+ x saturation/);
    expect(r.out).toMatch(/0 wins, 1 losses; median saving at equal SLO -[\d.]+ %$/);
  });

  it.each([
    {
      case: 'an unknown variant',
      args: ['--variants', 'cold-5'],
      message: /--variants: unknown variant "cold-5"/,
    },
    {
      case: 'a trace that does not exist',
      args: ['--trace', 'nope.csv'],
      message: /nope\.csv: cannot read the trace \(ENOENT\)/,
    },
    {
      case: 'a policy that does not exist',
      args: ['--policy', 'nope.yaml'],
      message: /--policy nope\.yaml: cannot read the file/,
    },
    {
      case: 'a fractional worker count',
      args: ['--workers', '1.5'],
      message: /--workers must be a whole number/,
    },
    { case: 'an unknown option', args: ['--bogus'], message: /Unknown option '--bogus'/ },
  ])('refuses $case in one line with exit 2', async ({ args, message }) => {
    const r = await suite(args);
    expect(r.code).toBe(2);
    expect(r.err).toHaveLength(1);
    expect(r.err[0]).toMatch(message);
  });

  it('--help lists every option it accepts', async () => {
    const r = await suite(['--help']);
    expect(r.code).toBe(0);
    for (const option of ['--policy', '--target', '--trace', '--variants', '--workers', '--json', '--html']) {
      expect(r.out).toContain(option);
    }
  });
});
