/**
 * `governor history` against moto over HTTP, through main() and the real AWS SDK (AWS_ENDPOINT_URL
 * at moto, fake credentials): two days of one-minute Invocations seeded into moto's CloudWatch,
 * ending 14 days before now, with three holes and the last two minutes unpublished, come back as a
 * trace the backtest parses: minute by minute for the part under 15 days old (less the 15-minute
 * margin of shared/history/plan.ts), and five-minute sums spread over their minutes before that.
 * The holes are named on stderr and in the note, and filled by interpolation.
 *
 * The clock: Date is faked to NOW (2025-06-09T12:00:10Z) for the command only, and --end is
 * 2025-05-26T12:00Z, so the window straddles the 15-day boundary of plan.ts's worked example
 * (2025-05-25T12:15Z): ages are counted from now, not from --end. moto 5.2 keeps every datapoint
 * at the resolution it was put (it has no retention), takes timestamps in the past, and answers a
 * 300-second period with the Sum of the five one-minute points in it, as CloudWatch does for data
 * over 15 days old.
 *
 * Sized for moto on a loaded 2-core machine (issue 18, item 6): moto sums each period by scanning
 * every datapoint of the call's window, O(periods x datapoints). The 20 days this test once read
 * (21,585 one-minute periods over about 28,800 points) took moto 123 s for one call, past the
 * command's 60 s request limit; the two days here (1,425 periods over 2,880 points, and 291
 * five-minute periods) take well under a second of moto's time. Both spans, the holes in each,
 * the trimmed edge and the stitching at the boundary are the same as before; 15 days of minutes
 * add nothing a 1-minute span of one day does not show (one page each: paging is covered over
 * aws-sdk-client-mock in tests/history/cli.test.ts). PutMetricData of 100 datapoints answers 500
 * in moto 5.2, so the history goes in 20 at a time.
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
const MIN = 60_000;
const DAY = 86_400_000;
const NOW = Date.parse('2025-06-09T12:00:10Z');
/** --end: 14 days before NOW's minute, so the window reaches a day past the 15-day boundary. */
const END = Date.parse('2025-05-26T12:00:00Z');
const DAYS = 2;
const START = END - DAYS * DAY;
/** Where the 1-minute span starts: 15 days before NOW, plus the 10-minute margin, up to 5 minutes. */
const ONE_MINUTE_FROM = Date.parse('2025-05-25T12:15:00Z');
const POLICY = join(process.cwd(), 'events/history/policy.yaml');

/** Holes in the seeded series (no datapoint at all), and the two minutes not yet published. */
const HOLES = [
  { at: Date.parse('2025-05-24T18:00:00Z'), minutes: 15 }, // three whole 5-minute periods
  { at: Date.parse('2025-05-25T15:00:00Z'), minutes: 7 },
  { at: Date.parse('2025-05-26T03:30:00Z'), minutes: 30 },
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

describe.skipIf(!gate.available)('governor history on moto', () => {
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
        [
          'history',
          '--target',
          'chat-llm',
          '--policy',
          POLICY,
          '--days',
          String(DAYS),
          '--end',
          '2025-05-26T12:00Z',
          '--out',
          'history.csv',
        ],
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
  }, 120_000);
  afterAll(async () => {
    await moto?.stop();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  it('writes a trace the backtest parses: every minute from the window’s start to the last datapoint', () => {
    expect(code, err.join('\n')).toBe(0);
    expect(trace.resolution).toBe('minute');
    expect(trace.inputTokens).toBeNull();
    expect(trace.requests).toHaveLength(DAYS * 1440 - UNPUBLISHED);
    expect(out).toEqual([
      `wrote history.csv (2,878 minutes, ${trace.requests.reduce((a, b) => a + b, 0).toLocaleString('en-US')} requests, peak ${Math.max(...trace.requests)} at minute ${trace.requests.indexOf(Math.max(...trace.requests)).toLocaleString('en-US')}; 3 gaps filled) and history.md`,
    ]);
  });

  it('comes back minute by minute, exactly as seeded, for the last 15 days', () => {
    let checked = 0;
    for (let t = ONE_MINUTE_FROM; t < END - UNPUBLISHED * MIN; t += MIN) {
      if (inHole(t)) continue;
      expect(trace.requests[minuteOf(t)]).toBe(seeded(t));
      checked++;
    }
    expect(checked).toBe(1_425 - UNPUBLISHED - 7 - 30);
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
    expect(periods).toBe(291 - 3);
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
      'history chat-llm: AWS/SageMaker Invocations (EndpointName=chat-llm-prod, VariantName=AllTraffic), Sum, in us-east-1, 2025-05-24T12:00Z to 2025-05-26T12:00Z (2 days)',
    );
    expect(err[1]).toMatch(
      /^span 2025-05-24T12:00Z to 2025-05-25T12:15Z: 5-minute periods \(15 to 63 days old\), 291 periods: each 5-minute Sum spread evenly over its 5 minutes/,
    );
    expect(err[2]).toBe(
      'span 2025-05-25T12:15Z to 2025-05-26T12:00Z: 1-minute periods (under 15 days old), 1,425 minutes as read',
    );
    expect(err.filter((l) => l.startsWith('gap '))).toEqual([
      expect.stringMatching(
        /^gap at minute 360 \(2025-05-24T18:00Z\): 15 minutes \(3 x 5-minute periods\) without a datapoint, filled by interpolation between \d+ and \d+ \(\+[\d,]+ requests\)$/,
      ),
      expect.stringMatching(/^gap at minute 1,620 \(2025-05-25T15:00Z\): 7 minutes \(7 x 1-minute periods\)/),
      expect.stringMatching(
        /^gap at minute 2,370 \(2025-05-26T03:30Z\): 30 minutes \(30 x 1-minute periods\)/,
      ),
    ]);
    expect(err).toContain(
      'trimmed: the last 2 minutes of the window (from 2025-05-26T11:58Z) had no datapoint (not published yet, or idle): the trace ends there',
    );
  });

  it('writes the note beside the trace: source, minute 0, spans, spreading, gaps and totals', () => {
    for (const line of [
      '# history.csv',
      '- Metric: `AWS/SageMaker` `Invocations`, statistic Sum, dimensions `EndpointName=chat-llm-prod`, `VariantName=AllTraffic`.',
      '- Minute 0: **2025-05-24T12:00Z** (UTC).',
      '| 2025-05-24T12:00Z to 2025-05-25T12:15Z | 15 to 63 days old | 5-minute | 291 | 288 | 1,455 |',
      '| 2025-05-25T12:15Z to 2025-05-26T12:00Z | under 15 days old | 1-minute | 1,425 | 1,386 | 1,425 |',
      '| rows (minutes) | 2,878 (2.00 days) |',
      '| minutes read at 1-minute periods | 1,423 |',
      '| minutes spread from 5-minute sums | 1,455 |',
      '| minutes in gaps (filled) | 52 |',
      '- 2025-05-24T12:00Z to 2025-05-25T12:15Z: each 5-minute Sum spread evenly over its 5 minutes in whole requests, the remainder one request at a time over the first minutes, so every period keeps its total; for example 2025-05-24T12:00Z: 508 -> 102, 102, 102, 101, 101.',
    ]) {
      expect(note).toContain(line);
    }
    expect(note).toMatch(
      /\| 360 \| 2025-05-24T18:00Z \| 15 \| 3 x 5-minute periods \| filled by interpolation/,
    );
    expect(note).toMatch(/\| 1,620 \| 2025-05-25T15:00Z \| 7 \| 7 x 1-minute periods \|/);
    expect(note).toMatch(/\| 2,370 \| 2025-05-26T03:30Z \| 30 \| 30 x 1-minute periods \|/);
    expect(note).toContain('Read at 2025-06-09T12:00:10.000Z with 2 GetMetricData calls');
  });
});
