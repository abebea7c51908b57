import { describe, expect, it } from 'vitest';
import { toFiveMinuteRates } from '#shared/forecast/series.ts';
import { forecastAt, SHIFT_DAY, type StressKind, stressSeries } from './stress.ts';

const DAY = 1440;

/**
 * Share of five-minute bins at or under the p90 over a rolling evaluation as `governor
 * forecast` runs it: origins every 6 h from day `from` to day 26, each scored 48 h ahead on
 * bins the forecaster never saw.
 */
function p90Coverage(minutes: readonly number[], from: number): number {
  const rates = toFiveMinuteRates(minutes, 1);
  let [covered, n] = [0, 0];
  for (let day = from; day <= 26; day += 0.25) {
    const origin = Math.round(day * DAY);
    const f = forecastAt(minutes, origin);
    for (const [k, p90] of f.quantiles.p90.entries()) {
      const y = rates[origin / 5 + k]!;
      if (!Number.isFinite(y)) continue;
      if (y <= p90) covered++;
      n++;
    }
  }
  return covered / n;
}

describe('the p90 is calibrated on series that break a seasonal model', () => {
  // 28-day series (tests/forecast/stress.ts): a daily and weekly cycle, per-minute noise and a
  // slow wander, under each regime. Where the regime starts at day 15 (a doubling, a collapse),
  // forecasts made before it cannot know it, so the evaluation starts at the first origin after
  // it; a forecast made at day 14 for days 14 to 16 misses the doubled day by construction.
  it.each([
    { case: 'steady growth of 3 % a day', kind: 'growth', from: 14 },
    { case: 'a level that doubles for good at day 15', kind: 'doubling', from: SHIFT_DAY + 0.25 },
    { case: 'a collapse to 40 % at day 15', kind: 'collapse', from: SHIFT_DAY + 0.25 },
    { case: 'flash crowds of x1.8 for 30 to 120 minutes, about one a day', kind: 'flash-crowds', from: 14 },
  ] satisfies { case: string; kind: StressKind; from: number }[])(
    '$case: p90 coverage between 0.85 and 0.95',
    ({ kind, from }) => {
      const coverage = p90Coverage(stressSeries(kind), from);
      expect(coverage).toBeGreaterThanOrEqual(0.85);
      expect(coverage).toBeLessThanOrEqual(0.95);
    },
  );
});
