/**
 * Demand history: where each kind of target's requests are counted, the window (complete
 * five-minute periods only), and GetMetricData results to the forecaster's history: pages and
 * parts summed per period, zeros after the first datapoint, gaps before it, bad results refused.
 */
import { describe, expect, it } from 'vitest';
import {
  demandHistory,
  demandQueries,
  demandSources,
  describeSources,
  forecastHistoryWindow,
  type HistoryQuery,
  historyWindow,
} from '#shared/signals/demand.ts';
import type { RawMetricResult } from '#shared/signals/readings.ts';
import { componentTarget, groupTarget, policyOf, variantTarget } from '../control/policies.ts';

const [variant, component, group] = policyOf(variantTarget(), componentTarget(), groupTarget()).targets;
const T0 = Date.parse('2025-06-02T12:00:00Z');
const STEP = 300_000;

describe('demandSources', () => {
  it.each([
    {
      case: 'a variant counts Invocations by endpoint and variant',
      t: variant!,
      expected: [
        ['AWS/SageMaker', 'Invocations', { EndpointName: 'chat-llm-prod', VariantName: 'AllTraffic' }],
      ],
    },
    {
      case: 'an inference component adds the requests turned away at zero copies',
      t: component!,
      expected: [
        ['AWS/SageMaker', 'Invocations', { InferenceComponentName: 'embedder-ic' }],
        ['AWS/SageMaker', 'NoCapacityInvocationFailures', { InferenceComponentName: 'embedder-ic' }],
      ],
    },
    {
      case: 'an Auto Scaling group reads the documented custom metric',
      t: group!,
      expected: [['Governor/Demand', 'Requests', { AutoScalingGroupName: 'batch-gpu-asg' }]],
    },
  ])('$case, as a Sum', ({ t, expected }) => {
    const sources = demandSources(t);
    expect(sources.map((s) => [s.namespace, s.metricName, s.dimensions])).toEqual(expected);
    expect(sources.every((s) => s.statistic === 'Sum' && s.scale === 1)).toBe(true);
  });

  it('names where it looked, for the log line of a target without history', () => {
    expect(describeSources(component!)).toBe(
      'AWS/SageMaker Invocations (InferenceComponentName=embedder-ic) + AWS/SageMaker NoCapacityInvocationFailures (InferenceComponentName=embedder-ic)',
    );
  });

  it('numbers the queries of several targets d0, d1, ... in target order', () => {
    expect(
      demandQueries([variant!, component!]).map((q) => `${q.id}:${q.targetId}:${q.source.metricName}`),
    ).toEqual([
      'd0:chat-llm:Invocations',
      'd1:embedder:Invocations',
      'd2:embedder:NoCapacityInvocationFailures',
    ]);
  });
});

describe('historyWindow', () => {
  it.each([
    { case: 'on the hour it ends at the boundary 3 minutes back', now: '12:00:10', end: '11:55:00' },
    {
      case: 'at 3 minutes past a boundary it includes the period just ended',
      now: '12:08:00',
      end: '12:05:00',
    },
    { case: 'a second earlier that period may still be incomplete', now: '12:07:59', end: '12:00:00' },
  ])('$case', ({ now, end }) => {
    const w = historyWindow(Date.parse(`2025-06-02T${now}Z`), 14);
    expect(new Date(w.end).toISOString()).toBe(`2025-06-02T${end}.000Z`);
    expect(w.end - w.start).toBe(14 * 86_400_000);
  });
});

describe('forecastHistoryWindow', () => {
  const at = (iso: string) => Date.parse(iso);
  it.each([
    {
      case: 'days turning over at midnight: 14 whole days before today, then today',
      now: '2025-06-02T12:00:10Z',
      dayStart: 0,
      start: '2025-05-19T00:00:00.000Z',
    },
    {
      case: 'at 00:02 the window still ends yesterday (3 minutes back): today has not begun',
      now: '2025-06-02T00:02:00Z',
      dayStart: 0,
      start: '2025-05-18T00:00:00.000Z',
    },
    {
      case: 'days turning over at noon UTC: at 11:55 today began yesterday at noon',
      now: '2025-06-02T12:00:10Z',
      dayStart: 720,
      start: '2025-05-18T12:00:00.000Z',
    },
  ])('$case', ({ now, dayStart, start }) => {
    const w = forecastHistoryWindow(at(now), 14, dayStart);
    expect(new Date(w.start).toISOString()).toBe(start);
    expect(w.end).toBe(historyWindow(at(now), 14).end);
    expect(w.end - w.start).toBeGreaterThanOrEqual(14 * 86_400_000);
    expect(w.end - w.start).toBeLessThan(15 * 86_400_000);
  });
});

describe('demandHistory', () => {
  const window = { start: T0, end: T0 + 8 * STEP };
  const queries: HistoryQuery[] = demandQueries([component!]);
  const at = (i: number) => new Date(T0 + i * STEP);
  const result = (
    id: string,
    points: [number, number][],
    over: Partial<RawMetricResult> = {},
  ): RawMetricResult => ({
    Id: id,
    Timestamps: points.map(([i]) => at(i)),
    Values: points.map(([, v]) => v),
    StatusCode: 'Complete',
    ...over,
  });

  it.each([
    {
      case: 'periods before the first datapoint are gaps, missing ones after it are no requests',
      results: [
        result('d0', [
          [2, 50],
          [3, 60],
          [6, 10],
        ]),
      ],
      history: [null, null, 50, 60, 0, 0, 10, 0],
    },
    {
      case: 'the parts of a component are added per period',
      results: [
        result('d0', [
          [0, 50],
          [1, 60],
        ]),
        result('d1', [
          [1, 5],
          [2, 7],
        ]),
      ],
      history: [50, 65, 7, 0, 0, 0, 0, 0],
    },
    {
      case: 'pages of one query are merged',
      results: [
        result('d0', [
          [0, 1],
          [1, 2],
        ]),
        result('d0', [
          [2, 3],
          [3, 4],
        ]),
      ],
      history: [1, 2, 3, 4, 0, 0, 0, 0],
    },
    {
      case: 'points outside the window and results of other queries are left out',
      results: [
        result('d0', [
          [-1, 99],
          [4, 4],
          [8, 99],
        ]),
        result('d9', [[5, 99]]),
      ],
      history: [null, null, null, null, 4, 0, 0, 0],
    },
  ])('$case', ({ results, history }) => {
    expect(demandHistory(queries, results, window)).toMatchObject({ ok: true, history });
  });

  it('counts the periods that had datapoints', () => {
    const h = demandHistory(
      queries,
      [
        result('d0', [
          [2, 50],
          [3, 60],
          [6, 10],
        ]),
      ],
      window,
    );
    expect(h).toMatchObject({ presentBins: 3, firstPresent: 2 });
  });

  it('with no datapoint at all there is no history', () => {
    expect(demandHistory(queries, [result('d0', []), result('d1', [])], window)).toEqual({
      ok: false,
      reason: 'NoData',
      message: 'no datapoint in the window',
    });
  });

  it.each([
    {
      case: 'an error status',
      r: result('d0', [[0, 1]], { StatusCode: 'Forbidden' }),
      message: /status Forbidden/,
    },
    {
      case: 'lengths that differ',
      r: { Id: 'd0', Timestamps: [at(0)], Values: [] },
      message: /1 timestamps but 0 values/,
    },
    { case: 'a negative count', r: result('d0', [[0, -5]]), message: /point 0 is not a time and a count/ },
    { case: 'a value that is not a number', r: result('d0', [[0, Number.NaN]]), message: /point 0/ },
  ])('refuses $case rather than reading it as demand', ({ r, message }) => {
    const h = demandHistory(queries, [r], window);
    expect(h).toMatchObject({ ok: false, reason: 'Rejected' });
    expect(h.ok ? '' : h.message).toMatch(message);
  });
});
