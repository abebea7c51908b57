/**
 * `governor history` against moto over HTTP, through main() and the real AWS SDK (AWS_ENDPOINT_URL
 * at moto, fake credentials): 20 days of one-minute Invocations seeded into moto's CloudWatch,
 * with three holes and the last two minutes unpublished, come back as a trace the backtest
 * parses: minute by minute for the last 15 days (less the 15-minute margin of
 * shared/history/plan.ts), and five-minute sums spread over their minutes before that. The holes
 * are named on stderr and in the note, and filled by interpolation.
 *
 * The clock: Date is faked to NOW (2025-06-09T12:00:10Z) for the command only, so the spans are
 * those of plan.ts's worked example. moto 5.2 keeps every datapoint at the resolution it was put
 * (it has no retention), takes timestamps 20 days in the past, and answers a 300-second period
 * with the Sum of the five one-minute points in it, as CloudWatch does for data over 15 days old.
 *
 * The cost: moto sums each period by scanning every datapoint of the call's window, so the
 * 1-minute span (21,585 periods over about 21,600 points) takes about a minute of moto's time.
 * PutMetricData of 100 datapoints answers 500 in moto 5.2, so the history goes in 20 at a time.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CloudWatchClient, type MetricDatum, PutMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseTrace, type Trace } from '#shared/backtest/trace.ts';
import type { CliIo } from '#shared/cli/io.ts';
import { main } from '#shared/cli/main.ts';
import { interpolate } from '#shared/history/gaps.ts';
import { spreadEvenly } from '#shared/history/series.ts';
import { awsTestConfig, type MotoServer, motoGate, startMoto, TEST_CREDENTIALS } from '../support/moto.ts';

const gate = motoGate();
/**
 * Opt-in (GOVERNOR_SLOW_MOTO=1): on this machine image's moto, one GetMetricData over 15 days of
 * one-minute data takes about two minutes (measured: 123 s for 21,600 periods over 28,800
 * datapoints; moto scans every datapoint for every period), past history's 60 s per-request
 * limit, so the command ends in ETIMEDOUT after four attempts (about 260 s) however quiet the
 * machine. Issue 18, item 6: size the data for moto, or give the test its own request limit.
 */
const SLOW_MOTO = process.env.GOVERNOR_SLOW_MOTO === '1';
if (gate.available && !SLOW_MOTO) {
  console.log(
    'history-moto: skipped: moto answers a 15-day one-minute GetMetricData in about 2 minutes, past the 60 s request limit; set GOVERNOR_SLOW_MOTO=1 to run it',
  );
}
const MIN = 60_000;
const DAY = 86_400_000;
const NOW = Date.parse('2025-06-09T12:00:10Z');
const END = Date.parse('2025-06-09T12:00:00Z');
const START = END - 20 * DAY;
/** Where the 1-minute span starts: 15 days before NOW, plus the 10-minute margin, up to 5 minutes. */
const ONE_MINUTE_FROM = Date.parse('2025-05-25T12:15:00Z');
const POLICY = join(process.cwd(), 'events/history/policy.yaml');

/** Holes in the seeded series (no datapoint at all), and the two minutes not yet published. */
const HOLES = [
  { at: Date.parse('2025-05-22T06:00:00Z'), minutes: 15 }, // three whole 5-minute periods
  { at: Date.parse('2025-06-01T03:00:00Z'), minutes: 7 },
  { at: Date.parse('2025-06-05T20:30:00Z'), minutes: 30 },
];
const UNPUBLISHED = 2;
const inHole = (t: number) => HOLES.some((h) => t >= h.at && t < h.at + h.minutes * MIN);

/** A daily cycle between 60 and 140 requests a minute, with a little saw-tooth: whole numbers. */
const seeded = (t: number) => {
  const minuteOfDay = ((t % DAY) + DAY) % DAY;
  return 60 + Math.round(40 * (1 + Math.sin((2 * Math.PI * minuteOfDay) / DAY))) + ((t / MIN) % 5);
};
/** The trace's minute of a time: minute 0 is START. */
const minuteOf = (t: number) => (t - START) / MIN;

describe.skipIf(!gate.available || !SLOW_MOTO)('governor history on moto', () => {
  let moto: MotoServer;
  let folder: string;
  let code: number;
  const out: string[] = [];
  const err: string[] = [];
  let trace: Trace;
  let note: string;

  beforeAll(async () => {
    moto = await startMoto();
    folder = mkdtempSync(join(tmpdir(), 'governor-history-'));
    const data: MetricDatum[] = [];
    for (let t = START; t < END - UNPUBLISHED * MIN; t += MIN) {
      if (inHole(t)) continue;
      data.push({
        MetricName: 'Invocations',
        Dimensions: [
          { Name: 'EndpointName', Value: 'chat-llm-prod' },
          { Name: 'VariantName', Value: 'AllTraffic' },
        ],
        Timestamp: new Date(t + 30_000),
        Value: seeded(t),
        Unit: 'None',
      });
    }
    const cw = new CloudWatchClient(awsTestConfig(moto.endpoint));
    for (let i = 0; i < data.length; i += 20)
      await cw.send(
        new PutMetricDataCommand({ Namespace: 'AWS/SageMaker', MetricData: data.slice(i, i + 20) }),
      );

    vi.stubEnv('AWS_ENDPOINT_URL', moto.endpoint);
    vi.stubEnv('AWS_ACCESS_KEY_ID', TEST_CREDENTIALS.accessKeyId);
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', TEST_CREDENTIALS.secretAccessKey);
    vi.stubEnv('AWS_SESSION_TOKEN', '');
    vi.stubEnv('AWS_PROFILE', '');
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(NOW);
    const io: CliIo = {
      cwd: folder,
      stdout: (l) => out.push(l),
      stderr: (l) => err.push(l),
      stderrIsTTY: false,
    };
    try {
      code = await main(
        ['history', '--target', 'chat-llm', '--policy', POLICY, '--days', '20', '--out', 'history.csv'],
        io,
      );
    } finally {
      vi.useRealTimers();
      vi.unstubAllEnvs();
    }
    // The exit code and stderr first: a slow emulator says so here, not as a missing file.
    if (code !== 0) throw new Error(`governor history exited ${code}: ${err.join(' | ')}`);
    trace = parseTrace(readFileSync(join(folder, 'history.csv'), 'utf8'), 'history.csv');
    note = readFileSync(join(folder, 'history.md'), 'utf8');
  }, 300_000);
  afterAll(async () => {
    await moto?.stop();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  it('writes a trace the backtest parses: every minute from the window’s start to the last datapoint', () => {
    expect(code, err.join('\n')).toBe(0);
    expect(trace.resolution).toBe('minute');
    expect(trace.inputTokens).toBeNull();
    expect(trace.requests).toHaveLength(20 * 1440 - UNPUBLISHED);
    expect(out).toEqual([
      `wrote history.csv (28,798 minutes, ${trace.requests.reduce((a, b) => a + b, 0).toLocaleString('en-US')} requests, peak ${Math.max(...trace.requests)} at minute ${trace.requests.indexOf(Math.max(...trace.requests)).toLocaleString('en-US')}; 3 gaps filled) and history.md`,
    ]);
  });

  it('comes back minute by minute, exactly as seeded, for the last 15 days', () => {
    let checked = 0;
    for (let t = ONE_MINUTE_FROM; t < END - UNPUBLISHED * MIN; t += MIN) {
      if (inHole(t)) continue;
      expect(trace.requests[minuteOf(t)]).toBe(seeded(t));
      checked++;
    }
    expect(checked).toBe(21_585 - UNPUBLISHED - 7 - 30);
  });

  it('spreads each five-minute sum before that over its minutes, keeping the total', () => {
    let periods = 0;
    for (let t = START; t < ONE_MINUTE_FROM; t += 5 * MIN) {
      if (inHole(t)) continue;
      const seededSum = [0, 1, 2, 3, 4].reduce((a, k) => a + seeded(t + k * MIN), 0);
      const m = minuteOf(t);
      expect(trace.requests.slice(m, m + 5)).toEqual(spreadEvenly(seededSum, 5));
      periods++;
    }
    expect(periods).toBe(1_443 - 3);
  });

  it('fills each hole by interpolation between the minutes on either side', () => {
    for (const hole of HOLES) {
      const m = minuteOf(hole.at);
      const before = trace.requests[m - 1]!;
      const after = trace.requests[m + hole.minutes]!;
      expect(trace.requests.slice(m, m + hole.minutes)).toEqual(interpolate(before, after, hole.minutes));
    }
  });

  it('says on stderr which span was coarsened and how, and names every hole', () => {
    expect(err[0]).toBe(
      'history chat-llm: AWS/SageMaker Invocations (EndpointName=chat-llm-prod, VariantName=AllTraffic), Sum, in us-east-1, 2025-05-20T12:00Z to 2025-06-09T12:00Z (20 days)',
    );
    expect(err[1]).toMatch(
      /^span 2025-05-20T12:00Z to 2025-05-25T12:15Z: 5-minute periods \(15 to 63 days old\), 1,443 periods: each 5-minute Sum spread evenly over its 5 minutes/,
    );
    expect(err[2]).toBe(
      'span 2025-05-25T12:15Z to 2025-06-09T12:00Z: 1-minute periods (under 15 days old), 21,585 minutes as read',
    );
    expect(err.filter((l) => l.startsWith('gap '))).toEqual([
      expect.stringMatching(
        /^gap at minute 2,520 \(2025-05-22T06:00Z\): 15 minutes \(3 x 5-minute periods\) without a datapoint, filled by interpolation between \d+ and \d+ \(\+[\d,]+ requests\)$/,
      ),
      expect.stringMatching(
        /^gap at minute 16,740 \(2025-06-01T03:00Z\): 7 minutes \(7 x 1-minute periods\)/,
      ),
      expect.stringMatching(
        /^gap at minute 23,550 \(2025-06-05T20:30Z\): 30 minutes \(30 x 1-minute periods\)/,
      ),
    ]);
    expect(err).toContain(
      'trimmed: the last 2 minutes of the window (from 2025-06-09T11:58Z) had no datapoint (not published yet, or idle): the trace ends there',
    );
  });

  it('writes the note beside the trace: source, minute 0, spans, spreading, gaps and totals', () => {
    for (const line of [
      '# history.csv',
      '- Metric: `AWS/SageMaker` `Invocations`, statistic Sum, dimensions `EndpointName=chat-llm-prod`, `VariantName=AllTraffic`.',
      '- Minute 0: **2025-05-20T12:00Z** (UTC).',
      '| 2025-05-20T12:00Z to 2025-05-25T12:15Z | 15 to 63 days old | 5-minute | 1,443 | 1,440 | 7,215 |',
      '| 2025-05-25T12:15Z to 2025-06-09T12:00Z | under 15 days old | 1-minute | 21,585 | 21,546 | 21,585 |',
      '| rows (minutes) | 28,798 (20.00 days) |',
      '| minutes read at 1-minute periods | 21,583 |',
      '| minutes spread from 5-minute sums | 7,215 |',
      '| minutes in gaps (filled) | 52 |',
      '- 2025-05-20T12:00Z to 2025-05-25T12:15Z: each 5-minute Sum spread evenly over its 5 minutes in whole requests, the remainder one request at a time over the first minutes, so every period keeps its total; for example 2025-05-20T12:00Z: 508 -> 102, 102, 102, 101, 101.',
    ]) {
      expect(note).toContain(line);
    }
    expect(note).toMatch(
      /\| 2,520 \| 2025-05-22T06:00Z \| 15 \| 3 x 5-minute periods \| filled by interpolation/,
    );
    expect(note).toMatch(/\| 16,740 \| 2025-06-01T03:00Z \| 7 \| 7 x 1-minute periods \|/);
    expect(note).toMatch(/\| 23,550 \| 2025-06-05T20:30Z \| 30 \| 30 x 1-minute periods \|/);
    expect(note).toContain('Read at 2025-06-09T12:00:10.000Z with 2 GetMetricData calls');
  });
});
