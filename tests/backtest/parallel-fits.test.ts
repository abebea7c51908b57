/**
 * The governor's forecasts on a second thread (shared/backtest/forecast-thread/parallel-fits.ts): the
 * plan lists exactly the forecasts a run asks for, a backtest with the thread is the backtest
 * without it bit for bit, and every way a forecast can miss the thread (outside the plan, other
 * demand, a forecast that fails there) is computed where it is asked, with the same result.
 * The bundled traces are pinned with the thread in tests/backtest/identical.test.ts.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type PlannedForecast,
  plannedForecasts,
  plannedLead,
} from '#shared/backtest/forecast-thread/forecast-plan.ts';
import { type ParallelFits, parallelFits } from '#shared/backtest/forecast-thread/parallel-fits.ts';
import { DeliveredWindow } from '#shared/backtest/policies/delivered-window.ts';
import { lookaheadOptions } from '#shared/backtest/policies/index.ts';
import { DIRECT_FITS, type LookaheadFits } from '#shared/backtest/policies/lookahead.ts';
import { runBacktest } from '#shared/backtest/run.ts';
import {
  buildScenario,
  buildWorkload,
  referenceScenario,
  type ScenarioOptions,
} from '#shared/backtest/scenario.ts';
import type { Trace } from '#shared/backtest/trace.ts';
import { forecast } from '#shared/forecast/forecast.ts';
import { ForecastInputError } from '#shared/forecast/types.ts';
import { parsePolicyText } from '#shared/policy/load.ts';
import { dailySteps } from './fixtures.ts';

const parsed = parsePolicyText(readFileSync('examples/policy.yaml', 'utf8'));
if (!parsed.ok) throw new Error('examples/policy.yaml does not validate');
const example = parsed.policy.targets[0]!;
/** The example refitting every hour, so three days give 48 forecasts. */
const hourly = { ...example, forecast: { ...example.forecast!, refreshMinutes: 60 } };
const trace: Trace = { ...dailySteps(3, true), name: 'steps' };

const variants: Record<string, Partial<ScenarioOptions>> = {
  reference: {},
  'cold-15': { coldStartMinutes: 15 },
  'delay-2': { metricDelayMinutes: 2 },
  'noise-2': { noiseSeed: 2 },
};
const optionsOf = (variant: string): ScenarioOptions => ({
  ...referenceScenario(hourly),
  ...variants[variant],
});

function planOf(variant: string) {
  const options = optionsOf(variant);
  const workload = buildWorkload(trace, options);
  const scenario = buildScenario(workload, options, hourly.instanceCapacity?.requestsPerMinuteAtSlo);
  const look = lookaheadOptions(hourly, { scenario, work: workload.work })!;
  const lead = plannedLead(look.leadMinutes, scenario.coldStartMinutes);
  return {
    plan: plannedForecasts(look, workload.requests, scenario.metricDelayMinutes, lead),
    requests: workload.requests,
  };
}

/** Every number as its exact text (-0, NaN and infinities too): equal text is equal bits. */
const exact = (value: unknown) =>
  JSON.stringify(value, (_k, v: unknown) =>
    typeof v === 'number' && (Object.is(v, -0) || !Number.isFinite(v))
      ? `n:${Object.is(v, -0) ? '-0' : v}`
      : v,
  );

/** Asks `fits` for each planned forecast, as a run would, and checks each against forecast() itself. */
function expectDirect(fits: ParallelFits, plan: PlannedForecast[], requests: readonly number[]): void {
  const history = [...requests];
  for (const p of plan) {
    const got = fits.forecast(new DeliveredWindow(history, p.from, p.to), p.options);
    expect(exact(got)).toBe(exact(forecast(history.slice(p.from, p.to), p.options)));
  }
}

const open: ParallelFits[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((f) => f.close()));
});
const started = (
  plan: Parameters<typeof parallelFits>[0],
  requests: ArrayLike<number>,
  testing?: Parameters<typeof parallelFits>[2],
) => {
  const fits = parallelFits(plan, requests, testing);
  open.push(fits);
  return fits;
};

describe('the forecast plan', () => {
  it.each(Object.keys(variants))('lists every forecast the %s run asks for, in order', (variant) => {
    const asked: string[] = [];
    const recording: LookaheadFits = {
      ...DIRECT_FITS,
      forecast: (history, options, params) => {
        asked.push(`${history.from}-${history.to} ${JSON.stringify(options)}`);
        return DIRECT_FITS.forecast(history, options, params);
      },
    };
    runBacktest({ trace, target: hourly, options: optionsOf(variant), only: ['governor'], fits: recording });
    const { plan } = planOf(variant);
    expect(plan.map((p) => `${p.from}-${p.to} ${JSON.stringify(p.options)}`)).toEqual(asked);
    expect(plan.length).toBeGreaterThan(40);
  });

  it('assumes the lead a cold start will be measured at, when it is longer than the configured one', () => {
    expect(plannedLead(10, 8)).toBe(10);
    expect(plannedLead(10, 15)).toBe(16);
  });
});

describe('a backtest with its forecasts on a second thread', () => {
  // Whole runs where the thread's plan differs most: the reference, and a cold start whose
  // measured lead is longer than the configured one (the plans of the others are checked above).
  it.each(['reference', 'cold-15'])('is the backtest without it, bit for bit (%s)', (variant) => {
    const options = optionsOf(variant);
    const alone = runBacktest({ trace, target: hourly, options });
    const threaded = runBacktest({ trace, target: hourly, options, parallel: true });
    expect(exact(threaded)).toBe(exact(alone));
  });

  it('takes each planned forecast from the thread or computes it here, once', () => {
    const { plan, requests } = planOf('reference');
    const fits = started(plan, requests);
    runBacktest({ trace, target: hourly, options: optionsOf('reference'), only: ['governor'], fits });
    expect(fits.stats.fromWorker + fits.stats.here).toBe(plan.length);
    expect(fits.stats).toMatchObject({ unplanned: 0, workerErrors: 0 });
  });

  it('hands over what the thread computed, unchanged', () => {
    const { plan, requests } = planOf('reference');
    const fits = started(plan.slice(0, 3), requests);
    expect(fits.waitForWorker(60_000)).toBe(true);
    expectDirect(fits, plan.slice(0, 3), requests);
    expect(fits.stats).toMatchObject({ fromWorker: 3, here: 0 });
  });

  it('computes here a forecast outside the plan, and one asked with other demand', () => {
    const { plan, requests } = planOf('reference');
    const fits = started(plan.slice(0, 1), requests);
    const history = [...requests];
    const p = plan[0]!;
    const longer = { ...p.options, horizonMinutes: (p.options.horizonMinutes ?? 0) + 60 };
    const outside = fits.forecast(new DeliveredWindow(history, p.from, p.to), longer);
    expect(exact(outside)).toBe(exact(forecast(history.slice(p.from, p.to), longer)));
    const other = history.map((v) => v * 2);
    const doubled = fits.forecast(new DeliveredWindow(other, p.from, p.to), p.options);
    expect(exact(doubled)).toBe(exact(forecast(other.slice(p.from, p.to), p.options)));
    expect(fits.stats.unplanned).toBe(2);
  });

  it('computes here a forecast that failed on the thread, and fails as the forecaster does', () => {
    const { plan, requests } = planOf('reference');
    const bad = { ...plan[1]!, options: { ...plan[1]!.options, horizonMinutes: -5 } };
    const fits = started([plan[0]!, bad, plan[2]!], requests);
    expect(fits.waitForWorker(60_000)).toBe(true);
    const history = [...requests];
    const ask = (p: (typeof plan)[number]) =>
      fits.forecast(new DeliveredWindow(history, p.from, p.to), p.options);
    ask(plan[0]!);
    expect(() => ask(bad)).toThrow(ForecastInputError);
    expect(() => forecast(history.slice(bad.from, bad.to), bad.options)).toThrow(ForecastInputError);
    ask(plan[2]!);
    expect(fits.stats).toMatchObject({ fromWorker: 2, workerErrors: 1 });
  });

  it('computes everything here when the thread fails to start', () => {
    const { plan, requests } = planOf('reference');
    const workerUrl = new URL('./fixtures/forecast-worker-broken.mjs', import.meta.url);
    const fits = started(plan.slice(0, 3), requests, { workerUrl });
    expectDirect(fits, plan.slice(0, 3), requests);
    expect(fits.stats).toMatchObject({ fromWorker: 0, here: 3 });
  });

  it('stops waiting for a thread that claimed forecasts and computes none, and computes them here', () => {
    const { plan, requests } = planOf('reference');
    const workerUrl = new URL('./fixtures/forecast-worker-stuck.mjs', import.meta.url);
    const fits = started(plan.slice(0, 3), requests, { workerUrl, waitLimitMs: 200 });
    expect(fits.waitForWorker(60_000)).toBe(true);
    expectDirect(fits, plan.slice(0, 3), requests);
    expect(fits.stats).toMatchObject({ fromWorker: 0, here: 3 });
  });
});
