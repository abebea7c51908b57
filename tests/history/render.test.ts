/**
 * What `governor history` writes (shared/history/render.ts, note.ts): a CSV the backtest's
 * parseTrace reads back minute for minute, the lines on stderr, and the sidecar note with the
 * source, minute 0, spans, the spreading, every gap and the figures.
 */
import { describe, expect, it } from 'vitest';
import { parseTrace } from '#shared/backtest/trace.ts';
import { buildHistory, type History } from '#shared/history/build.ts';
import { renderNote } from '#shared/history/note.ts';
import type { Span } from '#shared/history/plan.ts';
import { describePeriods, doneLine, renderCsv, reportLines, utc } from '#shared/history/render.ts';
import type { SpanSums } from '#shared/history/series.ts';
import { componentTarget, policyOf, variantTarget } from '../control/policies.ts';

const MIN = 60_000;
const T0 = Date.parse('2025-05-20T12:00:00Z');
const NOW = T0 + 20 * MIN + 10_000;
const [variant] = policyOf(variantTarget()).targets;
const [component] = policyOf(componentTarget()).targets;

/** 15 minutes at 5-minute periods (503, a gap, 40), then 5 at 1 minute (10, a gap of 2, 16, nothing yet). */
function sample(fill: 'interpolate' | 'zero' = 'interpolate'): History {
  const coarse: Span = { start: T0, end: T0 + 15 * MIN, periodSeconds: 300 };
  const fine: Span = { start: T0 + 15 * MIN, end: T0 + 20 * MIN, periodSeconds: 60 };
  const reads: SpanSums[] = [
    { span: coarse, sums: [503, null, 40], fractional: 0 },
    { span: fine, sums: [10, null, null, 16, null], fractional: 0 },
  ];
  const built = buildHistory(
    { asked: { start: T0, end: T0 + 20 * MIN }, spans: [coarse, fine] },
    reads,
    fill,
  );
  if (!built.ok) throw new Error(built.message);
  return built.history;
}

describe('renderCsv', () => {
  it('writes every minute from 0 with empty token columns, and parseTrace reads it back', () => {
    const csv = renderCsv([3, 0, 12]);
    expect(csv).toBe('minute,requests,input_tokens,output_tokens\n0,3,,\n1,0,,\n2,12,,\n');
    expect(parseTrace(csv, 'history.csv')).toEqual({
      name: 'history.csv',
      resolution: 'minute',
      requests: [3, 0, 12],
      inputTokens: null,
      outputTokens: null,
    });
  });

  it('round-trips a built history', () => {
    const h = sample();
    expect(parseTrace(renderCsv(h.filled.requests), 'h.csv').requests).toEqual(h.filled.requests);
  });
});

describe('the built sample', () => {
  it('spreads, interpolates and trims as documented', () => {
    const h = sample();
    // 503 -> 101 x 3, 100 x 2; a 5-minute gap between 100 and 8 (40 spread is 8 a minute); 8 x 5;
    // 10; 2 minutes between 10 and 16; 16; the last minute trimmed.
    expect(h.filled.requests).toEqual([
      101, 101, 101, 100, 100, 85, 69, 54, 39, 23, 8, 8, 8, 8, 8, 10, 12, 14, 16,
    ]);
    expect(h.summary).toMatchObject({
      minutes: 19,
      requests: 865,
      added: 296,
      peak: { requests: 101, minute: 0, periodSeconds: 300 },
      byPeriod: [
        { periodSeconds: 60, minutes: 4 },
        { periodSeconds: 300, minutes: 15 },
      ],
    });
  });
});

describe('reportLines', () => {
  it('says what was read, each span, each gap and what was trimmed, one line each', () => {
    expect(reportLines(sample(), variant!, 'us-east-1')).toEqual([
      'history chat-llm: AWS/SageMaker Invocations (EndpointName=chat-llm-prod, VariantName=AllTraffic), Sum, in us-east-1, 2025-05-20T12:00Z to 2025-05-20T12:20Z (0 days)',
      'span 2025-05-20T12:00Z to 2025-05-20T12:15Z: 5-minute periods (15 to 63 days old), 3 periods: each 5-minute Sum spread evenly over its 5 minutes in whole requests, the remainder one request at a time over the first minutes, so every period keeps its total; for example 2025-05-20T12:00Z: 503 -> 101, 101, 101, 100, 100',
      'span 2025-05-20T12:15Z to 2025-05-20T12:20Z: 1-minute periods (under 15 days old), 5 minutes as read',
      'gap at minute 5 (2025-05-20T12:05Z): 5 minutes (1 x 5-minute period) without a datapoint, filled by interpolation between 100 and 8 (+270 requests)',
      'gap at minute 16 (2025-05-20T12:16Z): 2 minutes (2 x 1-minute periods) without a datapoint, filled by interpolation between 10 and 16 (+26 requests)',
      'trimmed: the last minute of the window (from 2025-05-20T12:19Z) had no datapoint (not published yet, or idle): the trace ends there',
    ]);
  });

  it('with --gaps zero, says the gaps were read as idle', () => {
    const lines = reportLines(sample('zero'), variant!, 'us-east-1');
    expect(lines.filter((l) => l.startsWith('gap '))).toEqual([
      'gap at minute 5 (2025-05-20T12:05Z): 5 minutes (1 x 5-minute period) without a datapoint, filled with 0 (idle)',
      'gap at minute 16 (2025-05-20T12:16Z): 2 minutes (2 x 1-minute periods) without a datapoint, filled with 0 (idle)',
    ]);
  });

  it('hints at --gaps zero when interpolated gaps sit between near-idle minutes', () => {
    const coarse: Span = { start: T0, end: T0 + 4 * MIN, periodSeconds: 60 };
    const read = { span: coarse, sums: [2, null, 1, 3], fractional: 0 };
    const built = buildHistory(
      { asked: { start: T0, end: coarse.end }, spans: [coarse] },
      [read],
      'interpolate',
    );
    if (!built.ok) throw new Error(built.message);
    expect(reportLines(built.history, variant!, 'us-east-1').at(-1)).toMatch(
      /^hint: 1 of the 1 gap sits between minutes under 5 requests, .* --gaps zero reads it as 0$/,
    );
  });

  it('ends with one line on stdout naming both files', () => {
    expect(doneLine(sample(), 'out/history.csv', 'out/history.md')).toBe(
      'wrote out/history.csv (19 minutes, 865 requests, peak 101 at minute 0; 2 gaps filled) and out/history.md',
    );
  });
});

describe('renderNote', () => {
  const note = renderNote(sample(), {
    csvName: 'history.csv',
    policyFile: 'policy.yaml',
    target: variant!,
    region: 'us-east-1',
    now: NOW,
  });

  it.each([
    '# history.csv',
    '- Target: `chat-llm` (sagemaker-variant: endpoint `chat-llm-prod`, variant `AllTraffic`) of the policy file `policy.yaml`.',
    '- Metric: `AWS/SageMaker` `Invocations`, statistic Sum, dimensions `EndpointName=chat-llm-prod`, `VariantName=AllTraffic`.',
    '- Region: us-east-1. Read at 2025-05-20T12:20:10.000Z with 2 GetMetricData calls (one per span, each following NextToken to its last page).',
    '- Minute 0: **2025-05-20T12:00Z** (UTC).',
    '| 2025-05-20T12:00Z to 2025-05-20T12:15Z | 15 to 63 days old | 5-minute | 3 | 2 | 15 |',
    '| 2025-05-20T12:15Z to 2025-05-20T12:20Z | under 15 days old | 1-minute | 5 | 2 | 5 |',
    '- 2025-05-20T12:00Z to 2025-05-20T12:15Z: each 5-minute Sum spread evenly over its 5 minutes in whole requests, the remainder one request at a time over the first minutes, so every period keeps its total; for example 2025-05-20T12:00Z: 503 -> 101, 101, 101, 100, 100.',
    '| 5 | 2025-05-20T12:05Z | 5 | 1 x 5-minute period | filled by interpolation between 100 and 8 (+270 requests) |',
    '| 16 | 2025-05-20T12:16Z | 2 | 2 x 1-minute periods | filled by interpolation between 10 and 16 (+26 requests) |',
    '- Trimmed: the last minute of the window (from 2025-05-20T12:19Z) had no datapoint (not published yet, or idle): the trace ends there.',
    '| rows (minutes) | 19 (0.01 days) |',
    '| total requests | 865 (296 of them filled into gaps) |',
    '| peak requests / minute | 101 (minute 0, 2025-05-20T12:00Z, spread from a 5-minute sum) |',
    '| minutes read at 1-minute periods | 4 |',
    '| minutes spread from 5-minute sums | 15 |',
    '| minutes in gaps (filled) | 7 |',
  ])('has a line starting %s', (line) => {
    expect(note.split('\n').some((l) => l.startsWith(line))).toBe(true);
  });

  it('has its sections in the order of traces/*.md', () => {
    const headings = note.split('\n').filter((l) => l.startsWith('#'));
    expect(headings).toEqual([
      '# history.csv',
      '## Source',
      '## Spans and periods',
      '## How coarse spans were spread',
      '## Gaps',
      '## Numbers',
      '## Caveats',
    ]);
  });

  it('names both sources of an inference component’s demand', () => {
    const ic = renderNote(sample(), {
      csvName: 'h.csv',
      policyFile: 'p.yaml',
      target: component!,
      region: 'us-east-1',
      now: NOW,
    });
    expect(ic).toContain(
      '`AWS/SageMaker` `Invocations`, statistic Sum, dimensions `InferenceComponentName=embedder-ic`',
    );
    expect(ic).toContain('`AWS/SageMaker` `NoCapacityInvocationFailures`, statistic Sum');
  });

  it('says when there was nothing to spread and no gap', () => {
    const span: Span = { start: T0, end: T0 + 3 * MIN, periodSeconds: 60 };
    const built = buildHistory(
      { asked: { start: T0, end: span.end }, spans: [span] },
      [{ span, sums: [1, 2, 3], fractional: 0 }],
      'interpolate',
    );
    if (!built.ok) throw new Error(built.message);
    const plain = renderNote(built.history, {
      csvName: 'h.csv',
      policyFile: 'p.yaml',
      target: variant!,
      region: 'us-east-1',
      now: NOW,
    });
    expect(plain).toContain('- None: every minute was read at 1-minute periods.');
    expect(plain).toContain('- None: every period between the first datapoint and the last had one.');
  });
});

describe('describePeriods and utc', () => {
  it.each([
    { periods: { 300: 3 }, text: '3 x 5-minute periods' },
    { periods: { 60: 1 }, text: '1 x 1-minute period' },
    { periods: { 60: 4, 3600: 2, 300: 1 }, text: '2 x 1-hour + 1 x 5-minute + 4 x 1-minute periods' },
  ])('$text', ({ periods, text }) => {
    expect(describePeriods(periods)).toBe(text);
  });

  it('writes times to the minute, in UTC', () => {
    expect(utc(Date.parse('2025-06-09T12:00:59.999Z'))).toBe('2025-06-09T12:00Z');
  });
});
