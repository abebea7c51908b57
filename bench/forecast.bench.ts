/**
 * Forecaster speed: forecasts per second from 14 (and 28) days of per-minute NASA history,
 * each a full fit plus the 6 pseudo-origin refits behind its quantiles, 48 h ahead; one fit
 * alone; the whole rolling-origin evaluation of `governor forecast`; and the governor policy's
 * refits of NASA (200 minutes ahead, every 180 minutes) against a baseline commit's forecaster
 * in the same process, alternating, CPU time (GOVERNOR_BENCH_FORECAST_BASELINE, default 461293d:
 * before issue 19's forecaster work; needs git). Each reads the history the look-ahead of its
 * time read: the baseline 14 x 24 h, now 14 days from a day's start (shared/forecast/series.ts
 * historyStart), whose refits reuse a day's fits (shared/forecast/model.ts sharedDaysFit). The
 * forecasts differ by that change of behaviour (the log offset of whole days, the days read), so
 * the check is that now's forecasts are the same bit for bit with kept fits as with none. Prints
 * figures; never fails.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseTrace } from '#shared/backtest/trace.ts';
import { forecast } from '#shared/forecast/forecast.ts';
import { clearDayFits, dayFitCounts, fitModel } from '#shared/forecast/model.ts';
import { historyStart, toFiveMinuteRates, toLog } from '#shared/forecast/series.ts';
import { evaluateForecasts } from '#shared/forecast-accuracy/evaluate.ts';
import { cpuMs, withBaseline } from './baseline.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const TRACE = 'traces/nasa_http_1995_jul_per_minute.csv';
const DAY = 1440;
const fmt = (x: number, digits = 0) => x.toLocaleString('en-US', { maximumFractionDigits: digits });

/** Runs fn for about `ms` milliseconds after a warm-up; returns the mean milliseconds per call. */
function timeIt(fn: () => unknown, ms = 1500): number {
  for (let i = 0; i < 5; i++) fn();
  let n = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < ms) {
    fn();
    n++;
  }
  return (performance.now() - t0) / n;
}

type Forecaster = typeof forecast;

/** Numbers spelt bit for bit (-0, NaN), so two results compare exactly. */
const exact = (x: unknown): string =>
  JSON.stringify(x, (_k, v) => (typeof v === 'number' ? (Object.is(v, -0) ? '-0' : String(v)) : v));

async function againstBaseline(minutes: readonly number[]): Promise<void> {
  const commit = process.env.GOVERNOR_BENCH_FORECAST_BASELINE ?? '461293d';
  await withBaseline(commit, async (folder) => {
    const baseline = ((await import(join(folder, 'shared/forecast/forecast.ts'))) as { forecast: Forecaster })
      .forecast;
    const origins: number[] = [];
    for (let o = DAY; o <= minutes.length; o += 180) origins.push(o);
    const options = (o: number) => ({ stepMinutes: 1 as const, origin: o, horizonMinutes: 200 });
    const then = () => origins.map((o) => baseline(minutes.slice(Math.max(0, o - 14 * DAY), o), options(o)));
    const now = (fresh = false) =>
      origins.map((o) => {
        if (fresh) clearDayFits();
        return forecast(minutes.slice(historyStart(o, 14), o), options(o));
      });
    const spent = { baseline: 0, now: 0 };
    let counts = { made: 0, reused: 0 };
    for (let i = 0; i < 4; i++) {
      const order = i % 2 ? (['now', 'baseline'] as const) : (['baseline', 'now'] as const);
      for (const name of order) {
        clearDayFits();
        const t0 = cpuMs();
        if (name === 'now') now();
        else then();
        spent[name] += cpuMs() - t0;
        if (name === 'now') counts = dayFitCounts();
      }
    }
    const same = exact(now()) === exact(now(true));
    const per = (ms: number) => fmt(ms / 4 / origins.length, 2);
    console.log(
      `the governor policy's ${origins.length} refits of NASA, CPU time: baseline ${commit} ${per(spent.baseline)} ms, now ${per(spent.now)} ms a forecast (${fmt(spent.baseline / spent.now, 2)}x); ${counts.made} day fits made, ${counts.reused} reused; ${same ? 'the same forecasts bit for bit with kept fits as with none' : 'KEPT FITS CHANGE THE FORECASTS'}`,
    );
  });
}

export async function run(): Promise<void> {
  const minutes = parseTrace(readFileSync(join(root, TRACE), 'utf8'), TRACE).requests;
  for (const days of [14, 28]) {
    // Origins move through the trace so no two calls see the same history.
    const usable = Math.min(days, Math.floor(minutes.length / DAY) - 1);
    let origin = usable * DAY;
    const ms = timeIt(() => {
      forecast(minutes.slice(origin - usable * DAY, origin), { stepMinutes: 1, origin });
      origin = origin + 60 <= minutes.length ? origin + 60 : usable * DAY;
    });
    console.log(
      `forecast from ${usable} days of minute data (48 h ahead, p10-p99): ${fmt(ms, 1)} ms, ${fmt(1000 / ms)} forecasts/s`,
    );
  }
  const z = toLog(toFiveMinuteRates(minutes.slice(0, 14 * DAY), 1), 4.8);
  const fitMs = timeIt(() => fitModel(z, 0));
  console.log(`one model fit on 14 days (no quantiles): ${fmt(fitMs, 2)} ms`);
  const t0 = performance.now();
  const e = evaluateForecasts(minutes, { historyDays: 14, horizonHours: 48 });
  console.log(
    `governor forecast evaluation on NASA (${e.origins} origins, 6 methods): ${fmt(performance.now() - t0)} ms`,
  );
  await againstBaseline(minutes);
}
