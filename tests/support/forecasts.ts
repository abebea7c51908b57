/**
 * A forecast built by hand for floor tests: the given p50 and p90 per five-minute step from
 * `originMs` (p10 = p50 / 2, p99 = p90 x 1.5), as shared/forecast/forecast.ts returns one.
 */
import type { Forecast } from '#shared/forecast/types.ts';

export function forecastOf(p50: number[], p90: number[], originMs: number): Forecast {
  return {
    ok: true,
    model: 'weekly',
    notes: [],
    origin: originMs / 60_000,
    stepMinutes: 5,
    historyDays: 14,
    point: p50,
    quantiles: { p10: p50.map((v) => v / 2), p50, p90, p99: p90.map((v) => v * 1.5) },
    residualSamples: 1000,
  };
}
