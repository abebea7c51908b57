/**
 * Unit economics: cost per 1,000 requests (all of them, and those within the SLO) and per
 * million tokens, over the scored minutes, in the result, the table and the JSON.
 */
import { describe, expect, it } from 'vitest';
import { runBacktest } from '#shared/backtest/run.ts';
import { DEFAULT_SCENARIO } from '#shared/backtest/scenario.ts';
import { formatTable, toJsonReport } from '#shared/backtest/table.ts';
import { parseTrace } from '#shared/backtest/trace.ts';
import { bucketMinutes, costBuckets, tokensPerMinute, unitCost } from '#shared/backtest/unit-cost.ts';
import { dailySteps, variantTarget } from './fixtures.ts';

const target = variantTarget(`    instanceCapacity: { requestsPerMinuteAtSlo: 120 }
    scaling: { minCapacity: 1, maxCapacity: 200 }
    signals:
      - { metric: invocationsPerInstance, target: 75 }`);

/** 30 minutes with a burst: 100 requests a minute, 400 in minutes 12-15; 50 input and 10 output tokens each. */
const requests = Array.from({ length: 30 }, (_, m) => (m >= 12 && m < 16 ? 400 : 100));
const tokenCsv = [
  'minute,requests,input_tokens,output_tokens',
  ...requests.map((r, m) => `${m},${r},${50 * r},${10 * r}`),
].join('\n');
const tokenTrace = parseTrace(tokenCsv, 'tokens.csv');
const totalRequests = requests.reduce((a, b) => a + b, 0);

describe('unitCost', () => {
  it.each([
    {
      case: '3 USD over 1,000, 500 and 500 requests, the second minute violating: 1.50 per 1,000, 2.00 per 1,000 in the SLO',
      input: { costUsd: 3, requests: [1000, 500, 500], tokens: null, violationMinutes: [1], scoreFrom: 0 },
      want: { costPer1kRequestsUsd: 1.5, costPer1kRequestsWithinSloUsd: 2, costPerMillionTokensUsd: null },
    },
    {
      case: 'tokens: 3 USD over 2 million tokens is 1.50 per million',
      input: { costUsd: 3, requests: [1000, 1000], tokens: [1e6, 1e6], violationMinutes: [], scoreFrom: 0 },
      want: { costPer1kRequestsUsd: 1.5, costPer1kRequestsWithinSloUsd: 1.5, costPerMillionTokensUsd: 1.5 },
    },
    {
      case: 'scoring from minute 1 divides by the requests and tokens from minute 1 on only',
      input: {
        costUsd: 2,
        requests: [9000, 500, 500],
        tokens: [9e6, 1e6, 1e6],
        violationMinutes: [0],
        scoreFrom: 1,
      },
      want: { costPer1kRequestsUsd: 2, costPer1kRequestsWithinSloUsd: 2, costPerMillionTokensUsd: 1 },
    },
    {
      case: 'every minute violating leaves no good request to price: null',
      input: { costUsd: 2, requests: [10, 10], tokens: null, violationMinutes: [0, 1], scoreFrom: 0 },
      want: { costPer1kRequestsUsd: 100, costPer1kRequestsWithinSloUsd: null, costPerMillionTokensUsd: null },
    },
    {
      case: 'no requests at all: null, not Infinity',
      input: { costUsd: 2, requests: [0, 0], tokens: [0, 0], violationMinutes: [], scoreFrom: 0 },
      want: {
        costPer1kRequestsUsd: null,
        costPer1kRequestsWithinSloUsd: null,
        costPerMillionTokensUsd: null,
      },
    },
  ])('$case', ({ input, want }) => {
    expect(unitCost(input)).toEqual(want);
  });

  it("scales a minute's tokens with its noisy request count, tokens per request kept", () => {
    expect(
      tokensPerMinute(
        tokenTrace,
        requests.map((r) => 2 * r),
      ),
    ).toEqual(requests.map((r) => 120 * r));
    expect(tokensPerMinute(dailySteps(1), dailySteps(1).requests)).toBeNull();
  });
});

describe('unit cost in the backtest', () => {
  const result = runBacktest({ trace: tokenTrace, target, options: DEFAULT_SCENARIO });
  const oracle = result.policies.find((p) => p.summary.name === 'oracle')!.summary;

  it('prices every policy per 1,000 requests and per million input + output tokens of the trace', () => {
    for (const { summary: s, series } of result.policies) {
      expect(s.costPer1kRequestsUsd).toBeCloseTo(s.costUsd / (totalRequests / 1000), 12);
      expect(s.costPerMillionTokensUsd).toBeCloseTo(s.costUsd / ((60 * totalRequests) / 1e6), 12);
      const late = series.violationMinutes.reduce((a, m) => a + requests[m]!, 0);
      expect(s.costPer1kRequestsWithinSloUsd).toBeCloseTo(s.costUsd / ((totalRequests - late) / 1000), 12);
    }
    expect(oracle.costPer1kRequestsWithinSloUsd).toBe(oracle.costPer1kRequestsUsd);
  });

  it('a policy that breaks the SLO pays more per good request than per request', () => {
    const late = result.policies.filter((p) => p.summary.violationMinutes > 0);
    expect(late.length).toBeGreaterThan(0);
    for (const { summary: s } of late)
      expect(s.costPer1kRequestsWithinSloUsd!).toBeGreaterThan(s.costPer1kRequestsUsd!);
  });

  it('prints USD/1k req, USD/1k in SLO and, with tokens, USD/M tokens columns', () => {
    const table = formatTable(result);
    const head = table.split('\n').find((l) => l.startsWith('policy'))!;
    expect(head).toMatch(/actions {2}USD\/1k req {2}USD\/1k in SLO {2}USD\/M tokens$/);
    const row = table.split('\n').find((l) => l.startsWith('oracle '))!;
    const cells = row.trim().split(/\s{2,}/);
    expect(cells.slice(-3)).toEqual(
      [
        oracle.costPer1kRequestsUsd!,
        oracle.costPer1kRequestsWithinSloUsd!,
        oracle.costPerMillionTokensUsd!,
      ].map((x) => x.toFixed(3)),
    );
  });

  it('writes the three figures to --json, null per million tokens for a trace without tokens', () => {
    const json = toJsonReport(result) as { policies: Record<string, unknown>[] };
    expect(json.policies.find((p) => p.name === 'oracle')).toMatchObject({
      costPer1kRequestsUsd: oracle.costPer1kRequestsUsd,
      costPer1kRequestsWithinSloUsd: oracle.costPer1kRequestsWithinSloUsd,
      costPerMillionTokensUsd: oracle.costPerMillionTokensUsd,
    });
    const plain = runBacktest({ trace: dailySteps(1), target, options: DEFAULT_SCENARIO });
    const plainJson = toJsonReport(plain) as { policies: Record<string, unknown>[] };
    for (const p of plainJson.policies) expect(p.costPerMillionTokensUsd).toBeNull();
    expect(formatTable(plain)).not.toContain('USD/M tokens');
  });

  it('respects --score-from: the figures divide the scored cost by the scored requests', () => {
    const trace = dailySteps(2);
    const from = 1440;
    const scored = runBacktest({ trace, target, options: DEFAULT_SCENARIO, scoreFrom: from });
    const scoredRequests = trace.requests.slice(from).reduce((a, b) => a + b, 0);
    for (const { summary: s } of scored.policies)
      expect(s.costPer1kRequestsUsd).toBeCloseTo(s.costUsd / (scoredRequests / 1000), 12);
  });
});

describe('the chart buckets', () => {
  it.each([
    { case: 'a 27-day trace is charted per day', minutes: 39_693, want: 1440 },
    { case: 'a 3-day trace per hour', minutes: 4320, want: 60 },
    { case: 'an hour-long trace per 5 minutes', minutes: 58, want: 5 },
  ])('$case', ({ minutes, want }) => {
    expect(bucketMinutes(minutes)).toBe(want);
  });

  it('aligns buckets to minute 0 and cuts the first one at --score-from', () => {
    expect(costBuckets([1, 2, 3, 4, 5, 6, 7], 3, 5)).toEqual([
      { start: 3, end: 5, requests: 9 },
      { start: 5, end: 7, requests: 13 },
    ]);
  });
});
