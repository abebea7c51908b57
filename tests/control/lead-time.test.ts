/**
 * The measured lead time (shared/floors/lead-time.ts): tables of effectiveLead and
 * addLeadSample, and properties over random samples (fast-check): never below the configured
 * lead, monotone in the samples, p90 of nothing is null, malformed samples ignored.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addLeadSample,
  effectiveLead,
  LEAD_MAX_SAMPLES,
  LEAD_METRIC_DELAY_MINUTES,
  LEAD_MIN_SAMPLES,
  type LeadSample,
} from '#shared/floors/lead-time.ts';

const T0 = Date.parse('2025-06-02T12:00:00Z');
const MIN = 60_000;
/** Scale-outs an hour apart that took the given minutes. */
const took = (...minutes: number[]): LeadSample[] =>
  minutes.map((m, i) => ({ requestedAt: T0 + i * 60 * MIN, servingAt: T0 + i * 60 * MIN + m * MIN }));
const RUNS = { numRuns: process.env.CI ? 5_000 : 500 };

describe('the constants the backtest shares', () => {
  it('are a one-minute metric delay, three samples at least and the newest twenty', () => {
    expect([LEAD_METRIC_DELAY_MINUTES, LEAD_MIN_SAMPLES, LEAD_MAX_SAMPLES]).toEqual([1, 3, 20]);
  });
});

describe('effectiveLead', () => {
  it.each([
    {
      case: 'no samples keep the configured lead',
      configured: 10,
      samples: [],
      expected: { minutes: 10, measuredP90Minutes: null, samples: 0, source: 'configured' },
      message: 'lead time 10 min (configured): no measured scale-out yet',
    },
    {
      case: 'two samples are too few, however slow',
      configured: 10,
      samples: took(30, 31),
      expected: { minutes: 10, measuredP90Minutes: null, samples: 2, source: 'configured' },
      message: 'lead time 10 min (configured): 2 measured scale-outs, fewer than the 3 needed',
    },
    {
      case: 'three scale-outs of 13 minutes make 14 (13 + 1 min metric delay)',
      configured: 10,
      samples: took(13, 13, 13),
      expected: { minutes: 14, measuredP90Minutes: 13, samples: 3, source: 'measured' },
      message:
        'lead time 14 min: p90 of 3 measured scale-outs is 13.0 min + 1 min metric delay, above the configured 10',
    },
    {
      case: 'the p90 interpolates and is rounded up before the delay: 13.8 -> 15',
      configured: 10,
      samples: took(12, 13, 13, 14, 13.5),
      expected: { minutes: 15, samples: 5, source: 'measured' },
      message:
        'lead time 15 min: p90 of 5 measured scale-outs is 13.8 min + 1 min metric delay, above the configured 10',
    },
    {
      case: 'faster scale-outs never lower the configured lead',
      configured: 10,
      samples: took(6, 7, 8),
      expected: { minutes: 10, samples: 3, source: 'configured' },
      message:
        'lead time 10 min (configured): p90 of 3 measured scale-outs is 7.8 min + 1 min metric delay, within the configured 10',
    },
    {
      case: 'a measured lead equal to the configured one is the configured one',
      configured: 10,
      samples: took(9, 9, 9),
      expected: { minutes: 10, measuredP90Minutes: 9, source: 'configured' },
      message:
        'lead time 10 min (configured): p90 of 3 measured scale-outs is 9.0 min + 1 min metric delay, within the configured 10',
    },
    {
      case: 'malformed samples do not count: two good ones are still too few',
      configured: 10,
      samples: [
        ...took(20, 20),
        { requestedAt: T0, servingAt: T0 - MIN },
        { requestedAt: Number.NaN, servingAt: T0 },
        { requestedAt: T0, servingAt: Number.POSITIVE_INFINITY },
      ],
      expected: { minutes: 10, samples: 2, source: 'configured' },
      message: 'lead time 10 min (configured): 2 measured scale-outs, fewer than the 3 needed',
    },
  ])('$case', ({ configured, samples, expected, message }) => {
    const lead = effectiveLead(configured, samples);
    expect(lead).toMatchObject({ ...expected, configuredMinutes: configured, message });
  });

  it('measures the newest 20: an old slow start drops out', () => {
    const samples = took(40, 40, 40, ...new Array(20).fill(8));
    expect(effectiveLead(10, samples)).toMatchObject({ minutes: 10, samples: 20, measuredP90Minutes: 8 });
    expect(effectiveLead(10, samples.slice(0, 6))).toMatchObject({ minutes: 41, source: 'measured' });
  });

  it('takes the metric delay and the minimum of samples as options', () => {
    expect(effectiveLead(5, took(10), { minSamples: 1, metricDelayMinutes: 2 })).toMatchObject({
      minutes: 12,
      source: 'measured',
      message:
        'lead time 12 min: p90 of 1 measured scale-out is 10.0 min + 2 min metric delay, above the configured 5',
    });
  });
});

describe('addLeadSample', () => {
  it.each([
    { case: 'appends to nothing', samples: [], add: took(13)[0]!, expected: took(13) },
    {
      case: 'keeps them oldest first whatever the order they come in',
      samples: took(5, 6).reverse(),
      add: { requestedAt: T0 + 30 * MIN, servingAt: T0 + 40 * MIN },
      expected: [took(5)[0]!, { requestedAt: T0 + 30 * MIN, servingAt: T0 + 40 * MIN }, took(5, 6)[1]!],
    },
    {
      case: 'one sample per scale-out: the same requestedAt is not added twice',
      samples: took(13),
      add: { requestedAt: T0, servingAt: T0 + 14 * MIN },
      expected: took(13),
    },
    {
      case: 'of two samples of one scale-out the earlier servingAt stays',
      samples: took(14),
      add: { requestedAt: T0, servingAt: T0 + 13 * MIN },
      expected: took(13),
    },
    {
      case: 'a sample that serves before it was asked for is dropped',
      samples: took(13),
      add: { requestedAt: T0 + 60 * MIN, servingAt: T0 + 59 * MIN },
      expected: took(13),
    },
    {
      case: 'malformed stored samples are dropped too',
      samples: [{ requestedAt: Number.NaN, servingAt: 1 }, ...took(13)],
      add: took(13, 12)[1]!,
      expected: took(13, 12),
    },
  ])('$case', ({ samples, add, expected }) => {
    expect(addLeadSample(samples, add)).toEqual(expected);
  });

  it('keeps the newest 20', () => {
    const all = took(...Array.from({ length: 25 }, (_, i) => i + 1));
    const kept = all.reduce<LeadSample[]>((acc, s) => addLeadSample(acc, s), []);
    expect(kept).toEqual(all.slice(5));
  });
});

const sampleArb = fc
  .record({ at: fc.integer({ min: 0, max: 10_000 }), minutes: fc.double({ min: 0, max: 120, noNaN: true }) })
  .map(({ at, minutes }) => ({ requestedAt: T0 + at * MIN, servingAt: T0 + at * MIN + minutes * MIN }));
const malformedArb = fc.oneof(
  fc.record({ requestedAt: fc.constant(T0), servingAt: fc.integer({ min: T0 - 3_600_000, max: T0 - 1 }) }),
  fc.record({
    requestedAt: fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY),
    servingAt: fc.constant(T0),
  }),
  fc.record({
    requestedAt: fc.constant(T0),
    servingAt: fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY),
  }),
);
const configuredArb = fc.integer({ min: 1, max: 180 });

describe('properties', () => {
  it('is never below the configured lead, and is whole minutes', () => {
    fc.assert(
      fc.property(configuredArb, fc.array(sampleArb, { maxLength: 40 }), (configured, samples) => {
        const lead = effectiveLead(configured, samples);
        expect(lead.minutes).toBeGreaterThanOrEqual(configured);
        expect(Number.isInteger(lead.minutes)).toBe(true);
        expect(lead.source === 'measured').toBe(lead.minutes > configured);
      }),
      RUNS,
    );
  });

  it('is monotone in the samples: slower scale-outs never shorten the lead', () => {
    fc.assert(
      fc.property(
        configuredArb,
        fc.array(fc.tuple(sampleArb, fc.double({ min: 0, max: 60, noNaN: true })), { maxLength: 30 }),
        (configured, pairs) => {
          const samples = pairs.map(([s]) => s);
          const slower = pairs.map(([s, extra]) => ({ ...s, servingAt: s.servingAt + extra * MIN }));
          const a = effectiveLead(configured, samples);
          const b = effectiveLead(configured, slower);
          expect(b.minutes).toBeGreaterThanOrEqual(a.minutes);
          if (a.measuredP90Minutes !== null)
            expect(b.measuredP90Minutes!).toBeGreaterThanOrEqual(a.measuredP90Minutes);
        },
      ),
      RUNS,
    );
  });

  it('measures nothing from fewer than the minimum: p90 of nothing is null', () => {
    fc.assert(
      fc.property(
        configuredArb,
        fc.array(sampleArb, { maxLength: LEAD_MIN_SAMPLES - 1 }),
        (configured, samples) => {
          expect(effectiveLead(configured, samples)).toMatchObject({
            minutes: configured,
            measuredP90Minutes: null,
            source: 'configured',
          });
        },
      ),
      RUNS,
    );
  });

  it('ignores malformed samples wherever they are', () => {
    fc.assert(
      fc.property(
        configuredArb,
        fc.array(sampleArb, { maxLength: 30 }),
        fc.array(malformedArb, { maxLength: 10 }),
        fc.nat(),
        (configured, good, bad, seed) => {
          const mixed = [...good];
          for (const [i, b] of bad.entries()) mixed.splice((seed + i * 7) % (mixed.length + 1), 0, b);
          expect(effectiveLead(configured, mixed)).toEqual(effectiveLead(configured, good));
          const added = bad.reduce<LeadSample[]>((acc, b) => addLeadSample(acc, b), []);
          expect(added).toEqual([]);
        },
      ),
      RUNS,
    );
  });

  it('addLeadSample keeps at most 20, oldest first, one per requestedAt', () => {
    fc.assert(
      fc.property(fc.array(sampleArb, { maxLength: 60 }), (samples) => {
        const kept = samples.reduce<LeadSample[]>((acc, s) => addLeadSample(acc, s), []);
        expect(kept.length).toBeLessThanOrEqual(LEAD_MAX_SAMPLES);
        for (let i = 1; i < kept.length; i++)
          expect(kept[i]!.requestedAt).toBeGreaterThan(kept[i - 1]!.requestedAt);
        const newest = Math.max(...samples.map((s) => s.requestedAt));
        if (samples.length > 0) expect(kept.at(-1)!.requestedAt).toBe(newest);
      }),
      RUNS,
    );
  });
});
