/**
 * Forecaster speed: forecasts per second from 14 (and 28) days of per-minute NASA history,
 * each a full fit plus the 6 pseudo-origin refits behind its quantiles, 48 h ahead; one fit
 * alone; and the whole rolling-origin evaluation of `governor forecast`. Prints figures; never
 * fails.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseTrace } from '#shared/backtest/trace.ts';
import { forecast } from '#shared/forecast/forecast.ts';
import { fitModel } from '#shared/forecast/model.ts';
import { toFiveMinuteRates, toLog } from '#shared/forecast/series.ts';
import { evaluateForecasts } from '#shared/forecast-accuracy/evaluate.ts';

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

export function run(): void {
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
}
