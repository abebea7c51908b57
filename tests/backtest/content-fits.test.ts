/**
 * contentFits shares forecasts and noise fits between runs by what they are computed from. The
 * bar: a run that shares is bit for bit the run that does not, whichever runs share one memo and
 * in whatever order, and runs with the same demand really do share (the suite's speed rests on it).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { contentFits } from '#shared/backtest/policies/content-fits.ts';
import { runBacktest } from '#shared/backtest/run.ts';
import { referenceScenario, type ScenarioOptions } from '#shared/backtest/scenario.ts';
import type { Trace } from '#shared/backtest/trace.ts';
import { parsePolicyText } from '#shared/policy/load.ts';
import { dailySteps } from './fixtures.ts';

const parsed = parsePolicyText(readFileSync('examples/policy.yaml', 'utf8'));
if (!parsed.ok) throw new Error('examples/policy.yaml does not validate');
const target = parsed.policy.targets[0]!;

/** Three days, so forecasts are fitted on days two and three; deterministic wobble for the noise fits. */
const trace: Trace = { ...dailySteps(3, true), name: 'steps' };

const variants: Record<string, Partial<ScenarioOptions>> = {
  reference: {},
  'peak-10': { peakInstances: 10 },
  'cold-15': { coldStartMinutes: 15 },
  'noise-2': { noiseSeed: 2 },
};

const run = (variant: string, fits?: ReturnType<typeof contentFits>) =>
  runBacktest({
    trace,
    target,
    options: { ...referenceScenario(target), ...variants[variant] },
    only: ['governor'],
    ...(fits ? { fits } : {}),
  });

describe('contentFits', () => {
  it('changes no figure, series or decision of any variant, in either order of sharing', () => {
    const alone = Object.fromEntries(Object.keys(variants).map((v) => [v, run(v)]));
    for (const order of [Object.keys(variants), Object.keys(variants).reverse()]) {
      const fits = contentFits();
      for (const v of order) expect(run(v, fits), `${v}, order ${order.join(' ')}`).toEqual(alone[v]);
    }
  });

  it('shares the fits of runs with the same demand: peak-10 fits nothing the reference run fitted', () => {
    const fits = contentFits();
    run('reference', fits);
    const first = { ...fits.stats };
    expect(first.forecastsFitted).toBeGreaterThan(0);
    expect(first.noisesFitted).toBeGreaterThan(0);
    run('peak-10', fits);
    expect(fits.stats.forecasts).toBe(2 * first.forecasts);
    expect(fits.stats.forecastsFitted).toBe(first.forecastsFitted);
    expect(fits.stats.noisesFitted).toBe(first.noisesFitted);
  });

  it('fits anew for other demand: a noise seed shares no forecast with the reference run', () => {
    const fits = contentFits();
    run('reference', fits);
    const first = { ...fits.stats };
    run('noise-2', fits);
    expect(fits.stats.forecastsFitted - first.forecastsFitted).toBe(fits.stats.forecasts - first.forecasts);
  });
});
