import { describe, expect, it } from 'vitest';
import { DEFAULT_PARAMS, daysFits, fitModels, WEEKLY_WEIGHTS } from '#shared/forecast/model.ts';
import { residualBands } from '#shared/forecast/residuals.ts';
import { logOffset, toFiveMinuteRates, toLog } from '#shared/forecast/series.ts';
import { stressSeries } from './stress.ts';
import { synthetic } from './synthetic.ts';

const P = 288;

/** Log five-minute bins of a series, as forecast() feeds the model. */
function logBins(minutes: readonly number[]): Float64Array {
  const rates = toFiveMinuteRates(minutes, 1);
  return toLog(rates, logOffset(rates));
}

describe('a fit of whole days is shared by every origin whose days end at the same midnight', () => {
  it.each([
    {
      case: 'a weekly series with noise and gaps',
      z: logBins(synthetic({ days: 16, weekendFactor: 0.6, seed: 3 })),
    },
    { case: 'a level that collapsed', z: logBins(stressSeries('collapse').slice(0, 20 * 1440)) },
    { case: 'a series that grows 3 % a day', z: logBins(stressSeries('growth').slice(0, 20 * 1440)) },
  ])('$case: models from the shared fit equal models fitted alone, bit for bit', ({ z }) => {
    const fits = daysFits(z);
    for (const days of [1, 6, 7, 13, 15]) {
      for (const elapsed of [0, 1, 96, 287]) {
        const window = z.subarray(0, days * P + elapsed);
        const shared = fitModels(window, elapsed, undefined, WEEKLY_WEIGHTS, fits(days * P));
        expect(shared).toEqual(fitModels(window, elapsed));
      }
    }
  });

  it('fits each length of days once', () => {
    const z = logBins(synthetic({ days: 9, seed: 1 }));
    const fits = daysFits(z);
    expect(fits(8 * P)).toBe(fits(8 * P));
    expect(fits(7 * P)).not.toBe(fits(8 * P));
  });
});

describe('bands pooled from the same errors are one object', () => {
  it('a 200-minute horizon: the three bands past the first hour share their 240 errors', () => {
    const z = logBins(synthetic({ days: 15, weekendFactor: 0.6, seed: 4 }).slice(0, 14 * 1440 + 600));
    const elapsed = 120;
    const fits = daysFits(z);
    const models = fitModels(z, elapsed, undefined, WEEKLY_WEIGHTS, fits(z.length - elapsed));
    const { bands } = residualBands(z, models, 40, DEFAULT_PARAMS, fits);
    expect(bands[2]).toBe(bands[1]);
    expect(bands[3]).toBe(bands[1]);
    expect(bands[0]).not.toBe(bands[1]);
    expect(Array.from(bands[0]!.errors).sort()).toEqual(Array.from(bands[1]!.errors).sort());
  });
});
