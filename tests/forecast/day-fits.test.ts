/**
 * Day fits kept across forecasts (shared/forecast/day-fits.ts) and the history that makes them
 * reusable (shared/forecast/series.ts historyStart): a forecast is the same with kept fits as
 * with none, every refit of a day finds its days' fits kept, and a fit is found only for the
 * very bins it was made from.
 */
import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import { forecast } from '#shared/forecast/forecast.ts';
import { clearDayFits, DAY_FITS_KEPT, dayFitCounts, fitDays, sharedDaysFit } from '#shared/forecast/model.ts';
import { historyStart } from '#shared/forecast/series.ts';
import { synthetic } from './synthetic.ts';

const DAY = 1440;
const P = 288;

describe('historyStart', () => {
  it('starts historyDays whole days before the start of today', () => {
    // Day 20, 10:03: today started at 20 x 1440; 14 days before is day 6's midnight.
    expect(historyStart(20 * DAY + 603, 14)).toBe(6 * DAY);
    // At midnight today has not begun: 14 whole days back from it.
    expect(historyStart(20 * DAY, 14)).toBe(6 * DAY);
    expect(historyStart(20 * DAY - 1, 14)).toBe(5 * DAY);
  });

  it('any origin: a day start, historyDays to historyDays + 1 days back, the same for every origin of a day', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 400 * DAY }),
        fc.integer({ min: 1, max: 28 }),
        fc.integer({ min: 0, max: 1439 }),
        fc.integer({ min: 0, max: 1439 }),
        (origin, days, dayStart, later) => {
          const start = historyStart(origin, days, dayStart);
          if (origin < days * DAY + DAY) {
            expect(start).toBeGreaterThanOrEqual(0);
            return;
          }
          expect((((start - dayStart) % DAY) + DAY) % DAY).toBe(0);
          expect(origin - start).toBeGreaterThanOrEqual(days * DAY);
          expect(origin - start).toBeLessThan((days + 1) * DAY);
          // Another origin of the same day (no later than its last minute) reads from the same start.
          const intoDay = (((origin - dayStart) % DAY) + DAY) % DAY;
          const sameDay = origin - intoDay + Math.min(later, DAY - 1);
          expect(historyStart(sameDay, days, dayStart)).toBe(start);
        },
      ),
    );
  });

  it('counts days from dayStartMinute, and never before the first minute', () => {
    // Days turn over at 05:00 UTC (300): at day 20 04:59 today began on day 19 at 05:00.
    expect(historyStart(20 * DAY + 299, 14, 300)).toBe(5 * DAY + 300);
    expect(historyStart(20 * DAY + 300, 14, 300)).toBe(6 * DAY + 300);
    expect(historyStart(3 * DAY + 600, 14)).toBe(0);
  });
});

describe('day fits kept across forecasts', () => {
  const minutes = synthetic({ days: 17, weekendFactor: 0.6, seed: 7 });
  const refits = [16 * DAY + 60, 16 * DAY + 240, 16 * DAY + 420, 16 * DAY + 1320];
  const at = (origin: number) =>
    forecast(minutes.slice(historyStart(origin, 14), origin), {
      stepMinutes: 1,
      origin,
      horizonMinutes: 200,
    });

  beforeEach(() => clearDayFits());

  it('every refit of a day after the first makes no day fit, and gives what it gives alone', () => {
    const kept = refits.map((origin) => at(origin));
    const counts = dayFitCounts();
    // The first refit fits its 14 days and the 13 and 12 its pseudo-origins end at; the rest reuse them.
    expect(counts.made).toBe(3);
    expect(counts.reused).toBeGreaterThanOrEqual(3 * (refits.length - 1));
    refits.forEach((origin, i) => {
      clearDayFits();
      expect(kept[i]).toEqual(at(origin));
    });
  });

  it('a window of exactly 14 x 24 h cuts its oldest day differently at each refit: nothing is reused', () => {
    for (const origin of refits)
      forecast(minutes.slice(origin - 14 * DAY, origin), { stepMinutes: 1, origin, horizonMinutes: 200 });
    expect(dayFitCounts().reused).toBe(3 * refits.length - dayFitCounts().made);
    expect(dayFitCounts().made).toBe(3 * refits.length);
  });

  it('a fit is found only for the same bins and the same params object', () => {
    const bins = new Float64Array(8 * P).map((_, i) => Math.log(10 + 5 * Math.sin(i / 40)));
    const fit = sharedDaysFit(bins);
    expect(sharedDaysFit(bins.slice())).toBe(fit);
    expect(fit).toEqual(fitDays(bins));
    const moved = bins.slice();
    moved[100] = moved[100]! + 1e-12;
    expect(sharedDaysFit(moved)).not.toBe(fit);
    const gap = bins.slice();
    gap[5] = Number.NaN;
    const withGap = sharedDaysFit(gap);
    expect(sharedDaysFit(gap.slice())).toBe(withGap);
    const zeros = new Float64Array(8 * P).fill(0);
    const negative = zeros.slice();
    negative[0] = -0;
    expect(sharedDaysFit(negative)).not.toBe(sharedDaysFit(zeros));
    expect(sharedDaysFit(bins, { ...fitParams() })).not.toBe(fit);
  });

  it(`keeps the last ${DAY_FITS_KEPT} fits, the most recently used first`, () => {
    const series = Array.from({ length: DAY_FITS_KEPT + 1 }, (_, s) =>
      new Float64Array(7 * P).map((_, i) => Math.log(20 + s + 5 * Math.sin(i / 30))),
    );
    const first = sharedDaysFit(series[0]!);
    for (const s of series.slice(1, DAY_FITS_KEPT)) sharedDaysFit(s);
    // Used again, the first is the newest: the next fit pushes out the second instead.
    expect(sharedDaysFit(series[0]!)).toBe(first);
    sharedDaysFit(series[DAY_FITS_KEPT]!);
    expect(sharedDaysFit(series[0]!)).toBe(first);
    const made = dayFitCounts().made;
    sharedDaysFit(series[1]!);
    expect(dayFitCounts().made).toBe(made + 1);
  });
});

/** The default params as a new object: equal values, another identity. */
function fitParams() {
  return { levelAlpha: 0.5, trendBeta: 0.1, trendDamping: 0.8, deviationDecay: 0.98 };
}
