/**
 * A run longer than the objective's window is judged by its worst window (shared/backtest/attainment.ts):
 * the fast two-pointer / prefix-sum scan against a brute force over every window, worked examples,
 * and a whole backtest whose bad minutes crowd into one month.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { attainmentOf, type MinuteRecord, worstWindow } from '#shared/backtest/attainment.ts';
import { runBacktest } from '#shared/backtest/run.ts';
import { referenceScenario } from '#shared/backtest/scenario.ts';
import { formatTable } from '#shared/backtest/table.ts';
import { summaryTable } from '#shared/report/tables.ts';
import { minuteTrace, variantTarget } from './fixtures.ts';

/** Every window of w minutes inside [scoreFrom, end), counted the slow way. */
function bruteForce(r: MinuteRecord, w: number) {
  const bad = new Set(r.violationMinutes);
  let badMinutes = 0;
  let badRequests = 0;
  for (let s = r.scoreFrom; s + w <= r.requests.length; s++) {
    let minutes = 0;
    let total = 0;
    let inBad = 0;
    for (let m = s; m < s + w; m++) {
      total += r.requests[m]!;
      if (bad.has(m)) {
        minutes++;
        inBad += r.requests[m]!;
      }
    }
    badMinutes = Math.max(badMinutes, minutes / w);
    badRequests = Math.max(badRequests, total > 0 ? inBad / total : 0);
  }
  return { badMinutes, badRequests };
}

const record = fc
  .record({
    requests: fc.array(fc.integer({ min: 0, max: 50 }), { minLength: 2, maxLength: 120 }),
    bad: fc.array(fc.boolean(), { minLength: 120, maxLength: 120 }),
    from: fc.nat({ max: 30 }),
    w: fc.integer({ min: 1, max: 60 }),
  })
  .filter(({ requests, from, w }) => from + w <= requests.length)
  .map(({ requests, bad, from, w }) => ({
    w,
    record: {
      requests,
      scoreFrom: from,
      violationMinutes: requests.map((_, m) => m).filter((m) => m >= from && bad[m]),
    } satisfies MinuteRecord,
  }));

describe('worstWindow', () => {
  it('finds the worst window of minutes and of requests, as a scan of every window does', () => {
    fc.assert(
      fc.property(record, ({ w, record: r }) => {
        const fast = worstWindow(r, w);
        const slow = bruteForce(r, w);
        expect(fast.badMinutes).toBeCloseTo(slow.badMinutes, 12);
        expect(fast.badRequests).toBeCloseTo(slow.badRequests, 12);
        // The window it names lies inside the scored span and holds that many bad minutes.
        expect(fast.minutesFrom).toBeGreaterThanOrEqual(r.scoreFrom);
        expect(fast.minutesFrom + w).toBeLessThanOrEqual(r.requests.length);
        const inside = r.violationMinutes.filter((m) => m >= fast.minutesFrom && m < fast.minutesFrom + w);
        expect(inside.length / w).toBeCloseTo(fast.badMinutes, 12);
      }),
      { numRuns: 300 },
    );
  });
});

describe('worstWindow of a span shorter than the window', () => {
  it('is the whole span', () => {
    const r = { violationMinutes: [4, 7], requests: [1, 1, 1, 1, 2, 1, 1, 2, 1, 1], scoreFrom: 2 };
    const worst = worstWindow(r, 30);
    expect(worst.badMinutes).toBeCloseTo(2 / 8, 12);
    expect(worst.badRequests).toBeCloseTo(4 / 10, 12);
    expect([worst.minutesFrom, worst.requestsFrom]).toEqual([2, 2]);
  });
});

describe('attainmentOf with the minutes of the run', () => {
  const objective = { minutes: 0.9, windowMinutes: 10 };
  const requests = new Array<number>(40).fill(1);
  const run = (bad: number[]) => ({
    violationRatio: bad.length / 40,
    requestsInViolationRatio: bad.length / 40,
  });

  it('judges a run no longer than the window whole, as without them', () => {
    const short = { violationRatio: 0.1, requestsInViolationRatio: 0.1 };
    const r = { violationMinutes: [3], requests: requests.slice(0, 10), scoreFrom: 0 };
    expect(attainmentOf(short, objective, r)).toEqual(attainmentOf(short, objective));
  });

  it('judges a longer run by its worst window: the whole run at 95 % misses 90 % when one window holds 2 bad minutes in 10', () => {
    const bad = [20, 25];
    const a = attainmentOf(run(bad), objective, { violationMinutes: bad, requests, scoreFrom: 0 });
    expect(a.traceAttainment).toBeCloseTo(0.95, 12);
    expect(a.attainment).toBeCloseTo(0.8, 12);
    expect(a.budgetSpent).toBeCloseTo(2, 12);
    expect(a.meetsObjective).toBe(false);
    expect(a.worstWindowFrom).toBe(20);
  });

  it('meets it when the same bad minutes are spread one to a window', () => {
    const bad = [5, 25];
    const a = attainmentOf(run(bad), objective, { violationMinutes: bad, requests, scoreFrom: 0 });
    expect(a.attainment).toBeCloseTo(0.9, 12);
    expect(a.meetsObjective).toBe(true);
  });

  it('reads a requests objective per window too, and names the window of the worse of the two', () => {
    const heavy = requests.map((r, m) => (m === 31 ? 100 : r));
    const bad = [5, 6, 31];
    const withRequests = { ...objective, minutes: 0.8, requests: 0.5 };
    const a = attainmentOf(run(bad), withRequests, { violationMinutes: bad, requests: heavy, scoreFrom: 0 });
    // Minutes: 2 in 10 at worst (80 %, met). Requests: minute 31's 100 of 109 in its window.
    expect(a.attainment).toBeCloseTo(0.8, 12);
    expect(a.requestsAttainment).toBeCloseTo(9 / 109, 12);
    expect(a.meetsObjective).toBe(false);
    expect(a.worstWindowFrom).toBeLessThanOrEqual(31);
    expect(a.worstWindowFrom! + 10).toBeGreaterThan(31);
  });
});

describe('a backtest longer than the window', () => {
  it('judges every policy by its worst window and says so under the table and in the report', () => {
    const target = variantTarget(`    instanceCapacity: { requestsPerMinuteAtSlo: 120 }
    scaling: { minCapacity: 1, maxCapacity: 100 }
    signals:
      - { metric: invocationsPerInstance, target: 75, tolerance: 0.05 }
      - { metric: p95LatencyMs, sloMs: 2000 }
    slo: { objective: { minutes: 0.99 }, windowDays: 1 }`);
    // Three days, flat but for three one-minute surges of 6x, all on the second day.
    const requests = Array.from({ length: 3 * 1440 }, (_, m) =>
      [1440 + 200, 1440 + 600, 1440 + 1000].includes(m) ? 600 : 100,
    );
    const trace = minuteTrace('three-days', requests);
    const result = runBacktest({
      trace,
      target,
      options: referenceScenario(target),
      only: ['aws-target-tracking', 'static-peak'],
    });
    const tt = result.policies.find((p) => p.summary.name === 'aws-target-tracking')!.summary;
    const bad = result.policies.find((p) => p.summary.name === 'aws-target-tracking')!.series
      .violationMinutes;
    expect(bad.length).toBeGreaterThan(0);
    expect(bad.every((m) => m >= 1440 && m < 2 * 1440 + 60)).toBe(true);
    // The whole run is better than its worst day.
    expect(tt.traceAttainment).toBeCloseTo(1 - bad.length / (3 * 1440), 12);
    expect(tt.attainment!).toBeLessThan(tt.traceAttainment!);
    expect(tt.attainment).toBeCloseTo(
      1 - worstWindow({ violationMinutes: bad, requests, scoreFrom: 0 }, 1440).badMinutes,
      12,
    );
    expect(summaryTable(result)).toContain(
      "The run is longer than the window: the share within the SLO and the budget are each policy's worst 1-day window.",
    );
    expect(formatTable(result)).toContain(
      "the run is longer than the window (3 days): attained and budget spent are each policy's worst 1-day window",
    );
  });
});
