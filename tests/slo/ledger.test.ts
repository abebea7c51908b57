/**
 * The SLI ledger counts each minute once, forgets what leaves its windows, stays small enough to
 * store, and comes back from its stored form counting the same.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { budgetStatus } from '#shared/slo/budget.ts';
import { SliLedger, SliLedgerJsonSchema } from '#shared/slo/ledger.ts';
import type { ResolvedSlo } from '#shared/slo/objective.ts';

const SLO: ResolvedSlo = {
  minutes: 0.995,
  windowMinutes: 30 * 1440,
  sli: { metric: 'p95LatencyMs', sloMs: 2000 },
  control: null,
  source: 'default',
};
const M0 = 29_000_000; // an epoch minute in 2025

function filled(bad: (i: number) => boolean, n: number, fast = 60, window = 30 * 1440): SliLedger {
  const ledger = new SliLedger(fast, window);
  for (let i = 0; i < n; i++) ledger.record({ minute: M0 + i, good: !bad(i), requests: 100 });
  return ledger;
}

describe('the SLI ledger', () => {
  it('counts a redelivered or older minute once', () => {
    const ledger = new SliLedger(60, 1440);
    expect(ledger.record({ minute: M0, good: false, requests: 10 })).toBe(true);
    expect(ledger.record({ minute: M0, good: false, requests: 10 })).toBe(false);
    expect(ledger.record({ minute: M0 - 5, good: true, requests: 10 })).toBe(false);
    expect(ledger.window()).toEqual({ observed: 1, bad: 1, requests: 10, badRequests: 10 });
  });

  it('keeps the fast window to its last minutes and the budget window to its hours', () => {
    const ledger = filled((i) => i < 30, 3 * 1440, 60, 1440);
    expect(ledger.fast()).toEqual({ observed: 60, bad: 0, requests: 6000, badRequests: 0 });
    // The window is the last day by the hour: the first day's bad minutes are gone.
    expect(ledger.window().bad).toBe(0);
    expect(ledger.window().observed).toBeGreaterThanOrEqual(1440);
    expect(ledger.window().observed).toBeLessThanOrEqual(1440 + 60);
  });

  it('reads a recent span from the hourly buckets, the current hour included', () => {
    const ledger = filled((i) => i % 100 === 0, 600);
    const six = ledger.recent(360, M0 + 599);
    expect(six.observed).toBeGreaterThanOrEqual(360);
    expect(six.bad).toBe(
      [...Array(600).keys()].filter((i) => i % 100 === 0 && M0 + i >= Math.floor((M0 + 599 - 359) / 60) * 60)
        .length,
    );
  });

  it('stores 30 days in well under DynamoDB 400 KB item limit', () => {
    const ledger = filled((i) => i % 7 === 0, 45 * 1440);
    const json = JSON.stringify(ledger.toJSON());
    expect(json.length).toBeLessThan(40_000);
    expect(ledger.toJSON().hours.length).toBeLessThanOrEqual(30 * 24 + 1);
  });

  it('comes back from its stored form counting the same', () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { minLength: 1, maxLength: 3000 }), (bits) => {
        const ledger = filled((i) => bits[i]!, bits.length, 60, 1440);
        const back = SliLedger.fromJSON(SliLedgerJsonSchema.parse(ledger.toJSON()), 60, 1440);
        expect([back.fast(), back.window(), back.newest]).toEqual([
          ledger.fast(),
          ledger.window(),
          ledger.newest,
        ]);
        // And it goes on counting the same.
        ledger.record({ minute: ledger.newest + 1, good: false, requests: 1 });
        back.record({ minute: back.newest + 1, good: false, requests: 1 });
        expect(back.window()).toEqual(ledger.window());
      }),
      { numRuns: 60 },
    );
  });
});

/** from, from + step, ..., to (inclusive). */
const range = (from: number, to: number, step: number) =>
  Array.from({ length: Math.floor((to - from) / step) + 1 }, (_, i) => from + i * step);

describe('the budget read off the ledger', () => {
  it.each([
    {
      case: 'one bad minute in a calm hour burns 3.3x',
      bad: (i: number) => i === 2000,
      n: 2040,
      fast: 1 / 60 / 0.005,
    },
    { case: 'a clean hour burns nothing', bad: () => false, n: 2000, fast: 0 },
  ])('$case', ({ bad, n, fast }) => {
    const status = budgetStatus(filled(bad, n), SLO, 360, M0 + n - 1);
    expect(status.fastBurn).toBeCloseTo(fast, 9);
  });

  it('spends 216 minutes of budget in 30 days at 99.5 %', () => {
    const status = budgetStatus(
      filled((i) => i < 108, 2 * 1440),
      SLO,
      360,
      M0 + 2 * 1440 - 1,
    );
    expect(status.remaining).toBeCloseTo(0.5, 9);
    expect(status.attainment).toBeCloseTo(1 - 108 / 2880, 9);
    // The pace: 108 bad of 2880 against the 14.4 allowed.
    expect(status.pace).toBeCloseTo(108 / 2880 / 0.005, 9);
  });

  it('reads the pace over at least 12 hours, so a first-hour bad minute is 0.28, not 3.3', () => {
    const status = budgetStatus(
      filled((i) => i === 10, 60),
      SLO,
      360,
      M0 + 59,
    );
    expect(status.pace).toBeCloseTo(1 / 720 / 0.005, 9);
    expect(status.fastBurn).toBeCloseTo(1 / 60 / 0.005, 9);
  });

  it('takes the worse of minutes and requests when both are objectives', () => {
    const ledger = new SliLedger(60, 1440);
    for (let i = 0; i < 720; i++)
      ledger.record({ minute: M0 + i, good: i !== 5, requests: i === 5 ? 7200 : 100 });
    const status = budgetStatus(ledger, { ...SLO, requests: 0.99 }, 360, M0 + 719);
    // Minutes: 1 of 720 over 0.005 = 0.28; requests: 7200 of 79,100 over 0.01 = 9.1.
    expect(status.pace).toBeCloseTo(7200 / (719 * 100 + 7200) / 0.01, 6);
    expect(status.requestAttainment).toBeCloseTo(1 - 7200 / (719 * 100 + 7200), 9);
  });

  it.each([
    // 99.5 % over 30 days: the page thresholds are a burn of 14.4 over the hour and 6 over six hours.
    { case: '4 bad minutes in the last hour (a burn of 13.3)', bad: [716, 717, 718, 719], pages: false },
    { case: '5 bad minutes in the last hour (16.7)', bad: [715, 716, 717, 718, 719], pages: true },
    // Apart, so that no hour holds 5. The slow window is read in whole hours (380 minutes here):
    // 11 bad minutes in it are a burn of 5.8, 12 of 6.3.
    { case: '11 bad minutes in six hours (5.8)', bad: range(450, 700, 25), pages: false },
    { case: '12 bad minutes in six hours (6.3)', bad: range(425, 700, 25), pages: true },
  ])('pages as the SRE workbook does: $case', ({ bad, pages }) => {
    const status = budgetStatus(
      filled((i) => bad.includes(i), 720),
      SLO,
      360,
      M0 + 719,
    );
    expect(status.pages).toBe(pages);
  });

  it('pages on one bad minute in an hour at 99.9 % (2.3 % of its 43-minute budget)', () => {
    const status = budgetStatus(
      filled((i) => i === 700, 720),
      { ...SLO, minutes: 0.999 },
      360,
      M0 + 719,
    );
    expect(status.pages).toBe(true);
    expect(
      budgetStatus(
        filled((i) => i === 700, 720),
        SLO,
        360,
        M0 + 719,
      ).pages,
    ).toBe(false);
  });
});
