/**
 * Which GetMetricData calls read a region's demand (shared/signals/history-plan.ts): the noise's
 * one-minute queries ride in the forecast's five-minute call where CloudWatch keeps one-minute
 * data for the whole window and that costs no more pages; otherwise a second, shorter call.
 */
import { describe, expect, it } from 'vitest';
import { demandHistory } from '#shared/signals/demand.ts';
import { MAX_QUERIES_PER_CALL, oneMinuteMinutes, planRegionHistory } from '#shared/signals/history-plan.ts';
import { componentTarget, policyOf, variantTarget } from './policies.ts';

const NOW = Date.parse('2025-06-09T12:00:10Z');
const END = Date.parse('2025-06-09T11:55:00Z');
const DAY = 86_400_000;
const MIN = 60_000;
const noisy = (i: number, historyDays = 14, historyMinutes = 2880) =>
  variantTarget({
    id: `llm-${i}`,
    endpointName: `llm-${i}-prod`,
    instanceCapacity: { requestsPerMinuteAtSlo: 100 },
    forecast: { requestsPerInstance: 100, historyDays },
    noise: { historyMinutes },
  });
const targets = (...raw: Record<string, unknown>[]) => policyOf(...raw).targets;
const both = (ts: ReturnType<typeof targets>) =>
  ts.map((target) => ({ target, forecast: true, noise: true }));
const shape = (plan: ReturnType<typeof planRegionHistory>) =>
  plan.calls.map((c) => ({
    start: new Date(c.window.start).toISOString(),
    queries: c.queries.map((q) => `${q.id}@${q.periodSeconds ?? 300}`),
  }));

describe('planRegionHistory', () => {
  it('one variant over 14 days from a day\u2019s start: its one-minute query rides in the five-minute call (25,050 points at noon, one page)', () => {
    const plan = planRegionHistory(both(targets(noisy(0))), NOW);
    expect(plan.shared).toBe(true);
    expect(shape(plan)).toEqual([{ start: '2025-05-26T00:00:00.000Z', queries: ['d0@300', 'm0@60'] }]);
    expect(plan.calls[0]!.queries[1]).toMatchObject({ targetId: 'llm-0', periodSeconds: 60 });
  });

  it('28 days of history: CloudWatch has one-minute data for 15 days only, so a second call over the noise window', () => {
    const plan = planRegionHistory(both(targets(noisy(0, 28))), NOW);
    expect(plan.shared).toBe(false);
    expect(shape(plan)).toEqual([
      { start: '2025-05-12T00:00:00.000Z', queries: ['d0@300'] },
      { start: '2025-06-07T11:55:00.000Z', queries: ['m0@60'] },
    ]);
    expect(plan.oneMinute).toEqual({ start: END - 2880 * MIN, end: END });
  });

  it('twelve variants: one call would be 300,600 points (3 pages), two calls 50,100 + 34,560 (2 pages)', () => {
    const plan = planRegionHistory(both(targets(...Array.from({ length: 12 }, (_, i) => noisy(i)))), NOW);
    expect(plan.shared).toBe(false);
    expect(plan.calls.map((c) => c.queries.length)).toEqual([12, 12]);
  });

  it('four variants still share one call (100,200 points: one page)', () => {
    const plan = planRegionHistory(both(targets(...Array.from({ length: 4 }, (_, i) => noisy(i)))), NOW);
    expect(plan.shared).toBe(true);
    expect(plan.calls).toHaveLength(1);
    expect(plan.calls[0]!.queries.map((q) => q.id)).toEqual(['d0', 'm0', 'd1', 'm1', 'd2', 'm2', 'd3', 'm3']);
  });

  it('a target whose floor is fresh but noise is not reads one-minute demand only, over its historyMinutes', () => {
    const [t] = targets(noisy(0, 14, 1440));
    const plan = planRegionHistory([{ target: t!, forecast: false, noise: true }], NOW);
    expect(shape(plan)).toEqual([{ start: '2025-06-08T11:55:00.000Z', queries: ['m0@60'] }]);
    expect(plan.fiveMinute).toBeNull();
  });

  it('targets whose days turn over at different minutes: the call starts at the earlier of their windows', () => {
    const noon = variantTarget({
      id: 'noon',
      endpointName: 'noon-prod',
      forecast: { requestsPerInstance: 100, dayStartMinute: 720 },
    });
    const ts = targets(variantTarget({ forecast: { requestsPerInstance: 100 } }), noon);
    const plan = planRegionHistory(
      ts.map((target) => ({ target, forecast: true, noise: false })),
      NOW,
    );
    // At 11:55 a day that turns over at noon began yesterday at noon: 14 days before that.
    expect(shape(plan)).toEqual([{ start: '2025-05-25T12:00:00.000Z', queries: ['d0@300', 'd1@300'] }]);
  });

  it('just before midnight, 14 whole days and today are still within the 15 days of one-minute data', () => {
    const plan = planRegionHistory(both(targets(noisy(0))), Date.parse('2025-06-09T23:59:10Z'));
    expect(plan.shared).toBe(true);
    expect(shape(plan)).toEqual([{ start: '2025-05-26T00:00:00.000Z', queries: ['d0@300', 'm0@60'] }]);
  });

  it('just after midnight the window still ends yesterday, so it starts 15 days back: a second call for the noise', () => {
    const plan = planRegionHistory(both(targets(noisy(0))), Date.parse('2025-06-10T00:02:00Z'));
    expect(plan.shared).toBe(false);
    expect(shape(plan)).toEqual([
      { start: '2025-05-26T00:00:00.000Z', queries: ['d0@300'] },
      { start: '2025-06-07T23:55:00.000Z', queries: ['m0@60'] },
    ]);
  });

  it('a target without noise reads five-minute demand only, as before', () => {
    const plan = planRegionHistory(
      both(targets(variantTarget({ forecast: { requestsPerInstance: 100 } }))),
      NOW,
    );
    expect(shape(plan)).toEqual([{ start: '2025-05-26T00:00:00.000Z', queries: ['d0@300'] }]);
    expect(plan.oneMinute).toBeNull();
  });

  it('an inference component reads both of its demand metrics at both periods', () => {
    const ic = componentTarget({
      instanceCapacity: { requestsPerMinuteAtSlo: 100 },
      forecast: { requestsPerInstance: 100 },
      noise: { bandSigmas: 0 },
    });
    const plan = planRegionHistory(both(targets(ic)), NOW);
    expect(
      plan.calls[0]!.queries.map((q) => `${q.id}:${q.source.metricName}@${q.periodSeconds ?? 300}`),
    ).toEqual([
      'd0:Invocations@300',
      'd1:NoCapacityInvocationFailures@300',
      'm0:Invocations@60',
      'm1:NoCapacityInvocationFailures@60',
    ]);
  });

  it(`never splits one target's queries over two calls of at most ${MAX_QUERIES_PER_CALL}`, () => {
    // One variant (1 query) and 250 inference components (2 each): 499 fit, the next would be 501.
    const many = Array.from({ length: 250 }, (_, i) =>
      componentTarget({
        id: `ic-${i}`,
        inferenceComponentName: `ic-${i}`,
        forecast: { requestsPerInstance: 100 },
      }),
    );
    const ts = targets(variantTarget({ forecast: { requestsPerInstance: 100 } }), ...many);
    const plan = planRegionHistory(
      ts.map((target) => ({ target, forecast: true, noise: false })),
      NOW,
    );
    expect(plan.calls.map((c) => c.queries.length)).toEqual([499, 2]);
    expect(plan.calls[1]!.queries.map((q) => q.targetId)).toEqual(['ic-249', 'ic-249']);
  });
});

describe("the burst floor's one-minute demand", () => {
  const plain = (id = 'llm-0') => variantTarget({ id, endpointName: `${id}-prod` });

  it.each([
    {
      case: 'noise alone: its historyMinutes',
      noise: true,
      historyMinutes: 2880,
      burst: undefined,
      minutes: 2880,
    },
    {
      case: 'the burst floor alone: its windowMinutes',
      noise: false,
      historyMinutes: 2880,
      burst: 1440,
      minutes: 1440,
    },
    { case: 'both: the longer, the noise’s', noise: true, historyMinutes: 2880, burst: 1440, minutes: 2880 },
    {
      case: 'both: the longer, the burst floor’s',
      noise: true,
      historyMinutes: 1440,
      burst: 10_080,
      minutes: 10_080,
    },
    {
      case: 'noise off in the need: the burst floor’s',
      noise: false,
      historyMinutes: 2880,
      burst: 60,
      minutes: 60,
    },
    {
      case: 'beyond 15 days: what CloudWatch keeps at one minute',
      noise: false,
      historyMinutes: 2880,
      burst: 30_000,
      minutes: 21_600,
    },
    { case: 'neither: none', noise: false, historyMinutes: 2880, burst: undefined, minutes: 0 },
  ])('$case ($minutes minutes)', ({ noise, historyMinutes, burst, minutes }) => {
    const [t] = targets(noisy(0, 14, historyMinutes));
    expect(
      oneMinuteMinutes({ target: t!, forecast: false, noise, ...(burst ? { burstMinutes: burst } : {}) }),
    ).toBe(minutes);
  });

  it('a target with a burst floor and no noise reads one query over its window, in its own call without a forecast', () => {
    const [t] = targets(plain());
    const plan = planRegionHistory([{ target: t!, forecast: false, noise: false, burstMinutes: 1440 }], NOW);
    expect(shape(plan)).toEqual([{ start: '2025-06-08T11:55:00.000Z', queries: ['m0@60'] }]);
    expect(plan.fiveMinute).toBeNull();
  });

  it('noise of 1,440 minutes under a floor of 2,880: one query a target, over the longer window', () => {
    const [t] = targets(noisy(0, 14, 1440));
    const plan = planRegionHistory([{ target: t!, forecast: false, noise: true, burstMinutes: 2880 }], NOW);
    expect(shape(plan)).toEqual([{ start: '2025-06-07T11:55:00.000Z', queries: ['m0@60'] }]);
  });

  it('a forecast window shorter than the floor’s (historyDays 1 at 12:00: 2,155 minutes against 2,880) puts it in a call of its own', () => {
    const [t] = targets(variantTarget({ forecast: { requestsPerInstance: 100, historyDays: 1 } }));
    const plan = planRegionHistory([{ target: t!, forecast: true, noise: false, burstMinutes: 2880 }], NOW);
    expect(plan.shared).toBe(false);
    expect(shape(plan)).toEqual([
      { start: '2025-06-08T00:00:00.000Z', queries: ['d0@300'] },
      { start: '2025-06-07T11:55:00.000Z', queries: ['m0@60'] },
    ]);
  });

  it('rides in the forecast’s call where one-minute data reaches its start, as the noise does', () => {
    const ts = targets(variantTarget({ forecast: { requestsPerInstance: 100 } }));
    const plan = planRegionHistory(
      [{ target: ts[0]!, forecast: true, noise: false, burstMinutes: 1440 }],
      NOW,
    );
    expect(plan.shared).toBe(true);
    expect(shape(plan)).toEqual([{ start: '2025-05-26T00:00:00.000Z', queries: ['d0@300', 'm0@60'] }]);
  });
});

describe('one-minute history', () => {
  it('has one bin a minute; a missing minute after the first datapoint is 0 requests', () => {
    const [t] = targets(noisy(0));
    const [query] = planRegionHistory([{ target: t!, forecast: false, noise: true }], NOW).calls[0]!.queries;
    const window = { start: END - 5 * MIN, end: END };
    const at = (m: number) => new Date(END - m * MIN);
    const h = demandHistory(
      [query!],
      [{ Id: 'm0', Timestamps: [at(4), at(2), at(1)], Values: [7, 9, 4], StatusCode: 'Complete' }],
      window,
      60,
    );
    expect(h).toMatchObject({ ok: true, history: [null, 7, 0, 9, 4] });
  });

  it('the same window at five minutes is one bin of their sum', () => {
    const [t] = targets(noisy(0));
    const [query] = planRegionHistory([{ target: t!, forecast: true, noise: false }], NOW).calls[0]!.queries;
    const h = demandHistory(
      [query!],
      [{ Id: 'd0', Timestamps: [new Date(END - DAY)], Values: [20], StatusCode: 'Complete' }],
      { start: END - DAY, end: END - DAY + 5 * MIN },
    );
    expect(h).toMatchObject({ ok: true, history: [20] });
  });
});
