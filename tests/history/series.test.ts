/**
 * GetMetricData results to minutes (shared/history/series.ts): coarse sums spread in whole
 * requests that add up exactly, results binned per period with gaps kept as gaps, the demand
 * sources of one target added per period, and untrustworthy results rejected, not read as 0.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { binSpan, spreadEvenly, spreadExample, toMinutes } from '#shared/history/series.ts';
import { demandQueries } from '#shared/signals/demand.ts';
import { componentTarget, policyOf, variantTarget } from '../control/policies.ts';

const MIN = 60_000;
const T0 = Date.parse('2025-05-20T12:00:00Z');
const at = (minutes: number) => new Date(T0 + minutes * MIN);
const [variant] = policyOf(variantTarget()).targets;
const [component] = policyOf(componentTarget()).targets;

describe('spreadEvenly', () => {
  it.each([
    {
      case: '503 over 5 minutes: the remainder of 3 on the first three',
      total: 503,
      minutes: 5,
      spread: [101, 101, 101, 100, 100],
    },
    {
      case: '3 over 5 minutes: one request in each of the first three',
      total: 3,
      minutes: 5,
      spread: [1, 1, 1, 0, 0],
    },
    { case: '0 over 5 minutes: nothing', total: 0, minutes: 5, spread: [0, 0, 0, 0, 0] },
    { case: '500 over 5 minutes: even', total: 500, minutes: 5, spread: [100, 100, 100, 100, 100] },
    { case: '7 over 1 minute: as it is', total: 7, minutes: 1, spread: [7] },
  ])('$case', ({ total, minutes, spread }) => {
    expect(spreadEvenly(total, minutes)).toEqual(spread);
  });

  it('spreads 7,205 over an hour as 121 in the first 5 minutes and 120 in the other 55', () => {
    expect(spreadEvenly(7205, 60)).toEqual([...new Array(5).fill(121), ...new Array(55).fill(120)]);
  });

  it('keeps every total to the request, in whole requests at most one apart, larger first', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000 }), fc.constantFrom(1, 5, 60), (total, minutes) => {
        const spread = spreadEvenly(total, minutes);
        expect(spread).toHaveLength(minutes);
        expect(spread.reduce((a, b) => a + b, 0)).toBe(total);
        expect(spread.every(Number.isInteger)).toBe(true);
        expect(Math.max(...spread) - Math.min(...spread)).toBeLessThanOrEqual(1);
        expect([...spread].sort((a, b) => b - a)).toEqual(spread);
      }),
    );
  });

  it.each([
    { total: -1, minutes: 5 },
    { total: 2.5, minutes: 5 },
    { total: 5, minutes: 0 },
  ])('refuses to spread $total over $minutes minutes', ({ total, minutes }) => {
    expect(() => spreadEvenly(total, minutes)).toThrow(RangeError);
  });
});

describe('binSpan', () => {
  const fiveMinutes = { start: T0, end: T0 + 20 * MIN, periodSeconds: 300 as const };

  it('sums each period and keeps a period without a datapoint as a gap, not 0', () => {
    const queries = demandQueries([variant!], 300);
    const binned = binSpan(fiveMinutes, queries, [
      { Id: 'd0', Timestamps: [at(0), at(10), at(15)], Values: [503, 0, 12], StatusCode: 'Complete' },
    ]);
    expect(binned).toEqual({
      ok: true,
      read: { span: fiveMinutes, sums: [503, null, 0, 12], fractional: 0 },
    });
  });

  it('adds an inference component’s Invocations and NoCapacityInvocationFailures per period, over pages', () => {
    const queries = demandQueries([component!], 300);
    expect(queries.map((q) => q.source.metricName)).toEqual(['Invocations', 'NoCapacityInvocationFailures']);
    const binned = binSpan(fiveMinutes, queries, [
      { Id: 'd0', Timestamps: [at(0), at(5)], Values: [100, 90], StatusCode: 'PartialData' },
      { Id: 'd1', Timestamps: [at(5), at(15)], Values: [4, 2], StatusCode: 'Complete' },
      { Id: 'd0', Timestamps: [at(10)], Values: [80], StatusCode: 'Complete' },
    ]);
    expect(binned.ok && binned.read.sums).toEqual([100, 94, 80, 2]);
  });

  it('ignores points outside the span and results of other queries', () => {
    const binned = binSpan(fiveMinutes, demandQueries([variant!], 300), [
      { Id: 'd0', Timestamps: [at(-5), at(0), at(20)], Values: [1, 2, 3] },
      { Id: 'x9', Timestamps: [at(5)], Values: [99] },
    ]);
    expect(binned.ok && binned.read.sums).toEqual([2, null, null, null]);
  });

  it('rounds a fractional Sum to whole requests and counts it', () => {
    const binned = binSpan(fiveMinutes, demandQueries([variant!], 300), [
      { Id: 'd0', Timestamps: [at(0), at(5)], Values: [10.4, 10.6] },
    ]);
    expect(binned.ok && binned.read).toMatchObject({ sums: [10, 11, null, null], fractional: 2 });
  });

  it.each([
    {
      case: 'a failed query',
      result: { Id: 'd0', StatusCode: 'Forbidden' },
      says: /Invocations: status Forbidden/,
    },
    {
      case: 'timestamps without values',
      result: { Id: 'd0', Timestamps: [at(0), at(5)], Values: [1] },
      says: /2 timestamps but 1 values/,
    },
    {
      case: 'a negative count',
      result: { Id: 'd0', Timestamps: [at(0)], Values: [-1] },
      says: /point 0 is not a time/,
    },
    {
      case: 'a value that is not a number',
      result: { Id: 'd0', Timestamps: [at(0)], Values: [Number.NaN] },
      says: /point 0 is not a time/,
    },
  ])('rejects $case instead of reading it as no requests', ({ result, says }) => {
    const binned = binSpan(fiveMinutes, demandQueries([variant!], 300), [result]);
    expect(binned.ok).toBe(false);
    if (!binned.ok) expect(binned.message).toMatch(says);
  });
});

describe('toMinutes', () => {
  it('spreads the coarse span, keeps the 1-minute one, and expands a missing period to its minutes', () => {
    const coarse = {
      span: { start: T0, end: T0 + 10 * MIN, periodSeconds: 300 as const },
      sums: [7, null],
      fractional: 0,
    };
    const fine = {
      span: { start: T0 + 10 * MIN, end: T0 + 13 * MIN, periodSeconds: 60 as const },
      sums: [4, null, 6],
      fractional: 0,
    };
    expect(toMinutes([coarse, fine])).toEqual([2, 2, 1, 1, 1, null, null, null, null, null, 4, null, 6]);
  });

  it('refuses spans that are not contiguous', () => {
    const a = { span: { start: T0, end: T0 + MIN, periodSeconds: 60 as const }, sums: [1], fractional: 0 };
    const b = {
      span: { start: T0 + 2 * MIN, end: T0 + 3 * MIN, periodSeconds: 60 as const },
      sums: [1],
      fractional: 0,
    };
    expect(() => toMinutes([a, b])).toThrow(/contiguous/);
  });
});

describe('spreadExample', () => {
  it('shows the first coarse period that does not divide evenly', () => {
    const read = {
      span: { start: T0, end: T0 + 15 * MIN, periodSeconds: 300 as const },
      sums: [500, null, 503],
      fractional: 0,
    };
    expect(spreadExample(read)).toEqual({
      start: T0 + 10 * MIN,
      sum: 503,
      minutes: [101, 101, 101, 100, 100],
    });
  });
});
