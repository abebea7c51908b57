import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CliIo } from '#shared/cli/io.ts';
import { main } from '#shared/cli/main.ts';

const dir = mkdtempSync(join(tmpdir(), 'governor-backtest-'));
const write = (name: string, text: string) => writeFileSync(join(dir, name), text);

// 90 minutes: a quiet hour, then a half-hour surge (peak 400).
const minutes = Array.from({ length: 90 }, (_, m) => (m < 60 ? 100 + (m % 7) * 5 : 400 - (m % 5) * 10));
write('ok.csv', ['minute,requests', ...minutes.map((r, m) => `${m},${r}`)].join('\n'));
write('bad-header.csv', 'time,count\n0,1\n');
write('negative.csv', 'minute,requests\n0,5\n1,-3\n');
write('empty.csv', 'minute,requests\n');
write('no-tokens.csv', 'minute,requests\n0,5\n1,6\n');
write('bad-policy.yaml', 'version: 1\ntargets: []\n');

function fakeIo(stderrIsTTY = false) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { stdout: (l) => out.push(l), stderr: (l) => err.push(l), stderrIsTTY, cwd: dir };
  return { io, out, err };
}

const backtest = async (args: string[], tty = false) => {
  const { io, out, err } = fakeIo(tty);
  const code = await main(['backtest', ...args], io);
  return { code, out: out.join('\n'), err };
};

describe('governor backtest: bad input is one line and exit 2', () => {
  it.each([
    { case: 'no --trace', args: [], message: /--trace FILE is required/ },
    {
      case: 'a trace that does not exist',
      args: ['--trace', 'nope.csv'],
      message: /--trace nope\.csv: cannot read the file \(ENOENT\)/,
    },
    { case: 'a bad header', args: ['--trace', 'bad-header.csv'], message: /line 1: header is "time,count"/ },
    { case: 'a negative count', args: ['--trace', 'negative.csv'], message: /line 3: requests is "-3"/ },
    { case: 'an empty trace', args: ['--trace', 'empty.csv'], message: /no rows/ },
    {
      case: 'an invalid policy',
      args: ['--trace', 'ok.csv', '--policy', 'bad-policy.yaml'],
      message: /--policy bad-policy\.yaml: targets needs at least one target/,
    },
    {
      case: 'a policy that does not exist',
      args: ['--trace', 'ok.csv', '--policy', 'none.yaml'],
      message: /--policy none\.yaml: cannot read/,
    },
    {
      case: 'an unknown target',
      args: ['--trace', 'ok.csv', '--target', 'nope'],
      message: /--target nope is not in .*; its targets are chat-llm/,
    },
    {
      case: 'a peak of 0 instances',
      args: ['--trace', 'ok.csv', '--peak-instances', '0'],
      message: /--peak-instances must be a number from 1 up, got "0"/,
    },
    {
      case: 'a fractional cold start',
      args: ['--trace', 'ok.csv', '--cold-start', '1.5'],
      message: /--cold-start must be a whole number, got "1.5"/,
    },
    {
      case: 'a price that is not a number',
      args: ['--trace', 'ok.csv', '--price', 'abc'],
      message: /--price must be a number from 0 up, got "abc"/,
    },
    {
      case: 'an unknown option',
      args: ['--trace', 'ok.csv', '--bogus'],
      message: /Unknown option '--bogus'/,
    },
    {
      case: 'a negative number, which parseArgs reads as an option, in one line',
      args: ['--trace', 'ok.csv', '--peak-instances', '-3'],
      message:
        /^governor backtest: --peak-instances needs a value: a value starting with "-" is read as an option/,
    },
    {
      case: 'two forecast threads',
      args: ['--trace', 'ok.csv', '--workers', '2'],
      message: /--workers must be a whole number from 0 to 1, got "2"/,
    },
    {
      case: 'a forecast thread for the mix backtest',
      args: ['--trace', 'ok.csv', '--spot', '--workers', '1'],
      message: /--workers is for the default backtest: --spot runs in one thread/,
    },
    {
      case: 'token work on a trace without tokens',
      args: ['--trace', 'no-tokens.csv', '--token-work'],
      message: /has no token columns/,
    },
  ])('$case', async ({ args, message }) => {
    const { code, out, err } = await backtest(args);
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err).toHaveLength(1);
    expect(err[0]).not.toContain('\n');
    expect(err[0]).toMatch(/^governor backtest: /);
    expect(err[0]).toMatch(message);
  });
});

// Three days of a daily cycle: the governor forecasts from the second day on.
const days = Array.from({ length: 3 * 1440 }, (_, m) =>
  Math.round(200 + 150 * Math.sin((2 * Math.PI * m) / 1440) + (m % 7)),
);
write('days.csv', ['minute,requests', ...days.map((r, m) => `${m},${r}`)].join('\n'));

describe('governor backtest --workers', () => {
  it('prints and writes the same with the forecasts on a worker thread (1) as in one thread (0)', async () => {
    const runs = await Promise.all(
      ['0', '1'].map(async (workers) => {
        const json = join(dir, `days-${workers}.json`);
        const { code, out } = await backtest(['--trace', 'days.csv', '--workers', workers, '--json', json]);
        expect(code).toBe(0);
        return { out, json: readFileSync(json, 'utf8') };
      }),
    );
    expect(runs[1]!.out).toBe(runs[0]!.out);
    expect(runs[1]!.json).toBe(runs[0]!.json);
    expect(runs[0]!.out).toMatch(/ForecastFloor|forecast/);
  }, 120_000);
});

describe('governor backtest: output', () => {
  it('prints one row per policy and the governor reason counts, with the bundled example policy', async () => {
    const { code, out, err } = await backtest(['--trace', 'ok.csv']);
    expect(code).toBe(0);
    expect(err).toEqual([]);
    const rows = out.split('\n');
    for (const name of [
      'governor',
      'aws-target-tracking',
      'aws-target-tracking-at-slo',
      'aws-target-tracking-concurrency',
      'k8s-hpa',
      'static-peak',
      'oracle',
    ]) {
      expect(rows.filter((r) => new RegExp(`^${name} +[\\d,]+\\.\\d `).test(r))).toHaveLength(1);
    }
    // The verdict first, in one sentence; the best target's row names its target.
    expect(rows[0]).toMatch(
      /^Governor (meets|misses) 99\.5 % of minutes within the SLO \([\d.]+ %\) at [\d.]+x the oracle/,
    );
    expect(
      rows.filter((r) => /^aws-target-tracking-best \((none meets; closest )?[\d.]+ x sat\.\)/.test(r)),
    ).toHaveLength(1);
    expect(out).toMatch(/^trace ok\.csv: 90 minutes/m);
    expect(out).toMatch(/^target tracking swept over 19 targets, 0\.1 to 1 x saturation: /m);
    expect(out).toMatch(/governor decisions by reason: .*WithinBand/);
    // 40 at peak for 90 minutes is 3600 instance-minutes = 60.0 instance-hours.
    expect(rows.find((r) => r.startsWith('static-peak '))).toMatch(/^static-peak\s+60\.0\s/);
  });

  it('writes the JSON report with exactly the documented keys, creating its folder', async () => {
    const { code } = await backtest(['--trace', 'ok.csv', '--json', 'out/deeper/r.json', '--price', '2']);
    expect(code).toBe(0);
    const json = JSON.parse(readFileSync(join(dir, 'out/deeper/r.json'), 'utf8'));
    expect(Object.keys(json)).toEqual(['trace', 'scenario', 'policies', 'slo']);
    expect(Object.keys(json.slo)).toEqual(['objective', 'sweep', 'best', 'savingAtEqualSlo', 'verdict']);
    const keys = [
      'name',
      'instanceMinutes',
      'costUsd',
      'costVsOracle',
      'violationMinutes',
      'violationRatio',
      'requestsInViolationRatio',
      'scalingActions',
      'costPer1kRequestsUsd',
      'costPer1kRequestsWithinSloUsd',
      'costPerMillionTokensUsd',
      'attainment',
      'requestsAttainment',
      'budgetSpent',
      'meetsObjective',
    ];
    for (const p of json.policies) {
      // Governor policies (with and without the look-ahead) explain themselves by reason code;
      // target tracking at its best target names its target.
      const governor = (p.name as string).startsWith('governor');
      const best = p.name === 'aws-target-tracking-best';
      expect(Object.keys(p)).toEqual(
        governor ? [...keys, 'reasonCounts'] : best ? [...keys, 'targetOfSaturation'] : keys,
      );
    }
    expect(json.policies.map((p: { name: string }) => p.name).slice(0, 2)).toEqual([
      'governor',
      'governor-reactive',
    ]);
    expect(json.scenario.pricePerInstanceHour).toBe(2);
    const peak = json.policies.find((p: { name: string }) => p.name === 'static-peak');
    expect(peak).toMatchObject({ instanceMinutes: 3600, costUsd: 120, violationMinutes: 0 });
  });

  it('writes the HTML report from the same result', async () => {
    const { code } = await backtest(['--trace', 'ok.csv', '--html', 'html/report.html']);
    expect(code).toBe(0);
    expect(readFileSync(join(dir, 'html/report.html'), 'utf8')).toMatch(/^<!doctype html>/i);
  });

  it.each([
    { case: 'draws a progress bar on stderr when it is a terminal', tty: true, bar: true },
    { case: 'keeps stderr clean when it is not', tty: false, bar: false },
  ])('$case', async ({ tty, bar }) => {
    const { err } = await backtest(['--trace', 'ok.csv'], tty);
    expect(err.some((l) => l.includes('] 100 % done'))).toBe(bar);
  });

  it.each([
    {
      case: 'says which options beyond the reference are on',
      args: ['--noise-seed', '4', '--warm-pool', '3'],
      line: /^beyond the reference: Poisson noise, seed 4; governor warm pool of 3/m,
    },
    { case: 'says nothing of them when none is', args: [], line: null },
  ])('$case', async ({ args, line }) => {
    const { code, out } = await backtest(['--trace', 'ok.csv', ...args]);
    expect(code).toBe(0);
    if (line) expect(out).toMatch(line);
    else expect(out).not.toMatch(/beyond the reference/);
  });

  it('warns that --warm-pool on a SageMaker target is a what-if, and still runs', async () => {
    const { code, err } = await backtest(['--trace', 'ok.csv', '--warm-pool', '2']);
    expect(code).toBe(0);
    expect(err.join('\n')).toMatch(
      /--warm-pool simulates stopped warm-pool instances, which chat-llm \(sagemaker-variant\) cannot keep/,
    );
  });

  it('warns when the metric delay makes a signal stale, and still runs', async () => {
    const { code, err } = await backtest(['--trace', 'ok.csv', '--metric-delay', '3']);
    expect(code).toBe(0);
    expect(err.join('\n')).toMatch(
      /invocationsPerInstance arrives 240 s old .* past its staleAfterSeconds 180/,
    );
  });
});

describe('backtest --spot', () => {
  it('prints the mix table: Governor with the mix, all on-demand, target tracking 70/30 and the oracle', async () => {
    const { code, out } = await backtest(['--trace', 'ok.csv', '--spot', '--interruption-scale', '3']);
    expect(code).toBe(0);
    for (const name of [
      'governor + mix',
      'governor, all on-demand',
      'SpotHedge (governor capacity)',
      'target tracking 70/30',
      'oracle (cheapest mix)',
    ])
      expect(out).toContain(name);
    expect(out).toContain('interruption rate x3, seed 1');
    expect(out).toContain('in 3 zones (us-east-1a, us-east-1b, us-east-1c): 9 pools');
    expect(out).toContain('commitment: none');
    expect(out).not.toContain('governor, committed + on-demand');
  });

  it('--committed auto plans the commitment on the all on-demand fleet and bills it where it belongs', async () => {
    const { code, out } = await backtest([
      '--trace',
      'ok.csv',
      '--spot',
      '--committed',
      'auto',
      '--committed-price',
      '0.5',
      '--zone-wide',
      '0.5',
      '--json',
      'auto.json',
    ]);
    expect(code).toBe(0);
    expect(out).toMatch(/commitment: \d+ instances at 0\.50 USD\/h, planned .* in-sample/);
    expect(out).toContain('50 % of it zone-wide');
    const report = JSON.parse(readFileSync(join(dir, 'auto.json'), 'utf8'));
    const c = report.spot.commitment;
    expect(c.chosen).toBe('planned');
    expect(c.instances).toBe(c.plan.instances);
    expect(c.instances).toBeGreaterThan(0);
    const row = (name: string) => report.runs.find((r: { name: string }) => r.name === name);
    expect(row('governor, all on-demand').committedUsd).toBe(0);
    expect(row('target tracking, all on-demand').committedUsd).toBe(0);
    // 90 minutes of c committed instances at 0.50 an hour.
    expect(row('governor, committed + on-demand').committedUsd).toBeCloseTo(c.instances * 0.5 * 1.5, 6);
    expect(row('governor + mix').committedUsd).toBeCloseTo(c.instances * 0.5 * 1.5, 6);
  });

  it('runs the committed base it bills: paid whether it runs or not, it serves (CommittedFloor)', async () => {
    const { code } = await backtest([
      ...['--trace', 'ok.csv', '--spot', '--committed', '36', '--committed-price', '0.5'],
      ...['--json', 'floor.json'],
    ]);
    expect(code).toBe(0);
    const report = JSON.parse(readFileSync(join(dir, 'floor.json'), 'utf8'));
    const row = (name: string) => report.runs.find((r: { name: string }) => r.name === name);
    const onDemand = row('governor, all on-demand');
    // In the quiet hour all on-demand runs about 20 instances (its target is half the saturation
    // rate), the committed rows the 36 they pay for: at least 36 x 1.5 instance-hours over the 90
    // minutes, and more headroom for no more money.
    for (const name of ['governor, committed + on-demand', 'governor + mix']) {
      expect(row(name).instanceHours).toBeGreaterThanOrEqual(36 * 1.5);
      expect(row(name).instanceHours).toBeGreaterThan(onDemand.instanceHours + 10);
      expect(row(name).violationMinutes).toBeLessThanOrEqual(onDemand.violationMinutes);
    }
  });

  it.each([
    [['--spot-price', '0.3'], '--spot-price needs --spot'],
    [
      ['--spot', '--interruption-band', '30%'],
      '--interruption-band must be one of <5% 5-10% 10-15% 15-20% >20%',
    ],
    [['--spot', '--html', 'r.html'], '--html does not apply to --spot'],
    [['--spot', '--spot-price', '2'], '--spot-price'],
    [
      ['--spot', '--committed', 'auto'],
      '--committed auto needs the committed rate: add --committed-price USD',
    ],
    [['--spot', '--committed', 'some'], '--committed'],
    [['--spot', '--zone-wide', '2'], '--zone-wide must be a number from 0 to 1, got "2"'],
    [['--zone-wide', '0.5'], '--zone-wide needs --spot'],
    [['--spot', '--zones', '7'], '--zones must be a number from 1 to 6, got "7"'],
    [['--spot', '--max-pool-share', '2.5'], '--max-pool-share must be a whole number, got "2.5"'],
    [['--spot', '--loss-domain', 'region'], '--loss-domain must be pool or zone, got "region"'],
    [['--spot', '--over-provision', '101'], '--over-provision must be a number from 0 to 100, got "101"'],
    [['--over-provision', '1'], '--over-provision needs --spot'],
    [['--zones', '2'], '--zones needs --spot'],
  ])('refuses %j in one line', async (args, message) => {
    const { code, err } = await backtest(['--trace', 'ok.csv', ...args]);
    expect(code).toBe(2);
    expect(err.join('\n')).toContain(message);
  });
});

describe('backtest --spot --json', () => {
  it("writes the runs with the planner's reasons: an hour of history is too short for a forecast, so the floor is planned and the rest grows on spot", async () => {
    const { code } = await backtest(['--trace', 'ok.csv', '--spot', '--json', 'spot.json']);
    expect(code).toBe(0);
    const report = JSON.parse(readFileSync(join(dir, 'spot.json'), 'utf8'));
    expect(report.model).toEqual({ reclaimShare: 0.5, dryMinutes: 60, noticeMinutes: 2 });
    const mix = report.runs.find((r: { name: string }) => r.name === 'governor + mix');
    expect(mix.mix.reasonCounts).toEqual({ ForecastMissing: 18 });
    // Above the floor (minCapacity 1) the group grows at spot.maxPercent 70: most of it on spot.
    expect(mix.spotShare).toBeGreaterThan(0.5);
    expect(mix.spotShare).toBeLessThanOrEqual(0.7);
  });

  it('--over-provision 2 holds spot headroom in governor + mix only: the table says so, and the other rows do not move', async () => {
    const plain = await backtest(['--trace', 'ok.csv', '--spot', '--json', 'plain.json']);
    const more = await backtest([
      '--trace',
      'ok.csv',
      '--spot',
      '--over-provision',
      '2',
      '--json',
      'more.json',
    ]);
    expect([plain.code, more.code]).toEqual([0, 0]);
    expect(plain.out).not.toContain('spot headroom:');
    expect(more.out).toContain(
      'spot headroom: governor + mix holds 2 spot beyond what the load asks while its plan runs spot (spot.overProvision); SpotHedge holds 2 beyond its capacity always',
    );
    const [a, b] = ['plain.json', 'more.json'].map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')));
    expect([a.spot.spotHeadroom, b.spot.spotHeadroom]).toEqual([0, 2]);
    const row = (r: { runs: { name: string; instanceHours: number }[] }, name: string) =>
      r.runs.find((x) => x.name === name)!;
    expect(row(b, 'governor + mix').instanceHours).toBeGreaterThan(row(a, 'governor + mix').instanceHours);
    for (const name of ['governor, all on-demand', 'SpotHedge (governor capacity)'])
      expect(row(b, name)).toEqual(row(a, name));
  });
});
