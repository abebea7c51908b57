/**
 * The measured noise in AWS: when the forecast function refits it, how long the evaluator uses
 * it, and the fit from CloudWatch's one-minute counts. Pure. The model itself (Var(demand - level)
 * = a x level + b x level^2) is shared/sizing/noise-model.ts, as the backtest uses it.
 *
 * Timeline: the noise is refitted every hour, at every run of the forecast function, whatever
 * the forecast's refreshMinutes, as the backtest's look-ahead refits it
 * (shared/backtest/policies/lookahead.ts):
 *   00:00 fit (and forecast)   01:00 refit   02:00 refit   03:00 refit (and forecast, at 180)
 * The evaluator uses each fit until it is 3 hours old, so two failed runs in a row still leave
 * the band widened. (Until November 2026 a forecast target's noise followed refreshMinutes: at
 * 180 the band ran on a fit up to 3 hours old that the backtest had refitted hourly.)
 */

import type { NoisePolicy, TargetPolicy } from '../policy/schema.ts';
import { fitLevelNoise, type NoiseModel } from '../sizing/noise-model.ts';
import { FORECAST_SCHEDULE_MINUTES, REFRESH_SLACK_MINUTES } from './forecast.ts';
import type { StoredNoise } from './stored.ts';

/** CloudWatch keeps one-minute datapoints for 15 days (21,600 minutes); older ones are five-minute. */
export const ONE_MINUTE_RETENTION_MINUTES = 21_600;
export const NOISE_PERIOD_SECONDS = 60;
/** A noise model older than this many refreshes is stale: the evaluator keeps the plain tolerance. */
export const NOISE_STALE_REFRESHES = 3;

/** Minutes between fits: every run of the hourly forecast function, for every target. */
export const NOISE_REFRESH_MINUTES = FORECAST_SCHEDULE_MINUTES;

/** A fit older than 3 refreshes (3 hours) is stale: two failed runs in a row still leave the band widened. */
export const NOISE_STALE_AFTER_MINUTES = NOISE_STALE_REFRESHES * NOISE_REFRESH_MINUTES;

/**
 * The minutes of one-minute demand to read: noise.historyMinutes, within CloudWatch's 15 days of
 * one-minute data. The schema allows at most 20,160 (14 days), so the clamp only guards a policy
 * that bypassed it; `clamped` says so, for the log.
 */
export function noiseHistoryMinutes(n: NoisePolicy): { minutes: number; clamped: string | null } {
  if (n.historyMinutes <= ONE_MINUTE_RETENTION_MINUTES) return { minutes: n.historyMinutes, clamped: null };
  return {
    minutes: ONE_MINUTE_RETENTION_MINUTES,
    clamped: `noise.historyMinutes ${n.historyMinutes} is more than CloudWatch keeps at one minute (${ONE_MINUTE_RETENTION_MINUTES}, 15 days): read ${ONE_MINUTE_RETENTION_MINUTES}`,
  };
}

/**
 * Whether the stored model can stand until the next run: fitted under the policy's levelMinutes
 * and historyMinutes, and younger than an hour less 5 minutes (the hourly run drifts by seconds).
 */
export function isNoiseFresh(t: TargetPolicy, stored: StoredNoise | undefined, now: number): boolean {
  const n = t.noise;
  if (!n?.enabled || !stored) return false;
  return (
    stored.levelMinutes === n.levelMinutes &&
    stored.historyMinutes === noiseHistoryMinutes(n).minutes &&
    now - stored.computedAt < (NOISE_REFRESH_MINUTES - REFRESH_SLACK_MINUTES) * 60_000
  );
}

export type NoisePick =
  | { kind: 'noise'; model: NoiseModel; computedAt: number; ageMinutes: number }
  | { kind: 'none'; reason: 'NoiseDisabled' | 'NoNoise' }
  | { kind: 'none'; reason: 'Stale'; model: NoiseModel; computedAt: number; ageMinutes: number };

/** The model the engine gets now (SignalSnapshot.noise), or why none. */
export function pickNoise(t: TargetPolicy, stored: StoredNoise | undefined, now: number): NoisePick {
  if (!t.noise?.enabled) return { kind: 'none', reason: 'NoiseDisabled' };
  if (!stored) return { kind: 'none', reason: 'NoNoise' };
  const ageMinutes = Math.max(0, Math.round((now - stored.computedAt) / 6000) / 10);
  const { a, b, samples, computedAt } = stored;
  const model = { a, b, samples };
  if (ageMinutes > NOISE_STALE_AFTER_MINUTES)
    return { kind: 'none', reason: 'Stale', model, computedAt, ageMinutes };
  return { kind: 'noise', model, computedAt, ageMinutes };
}

/** One-minute history (null: a gap) to the fit's input: NaN for a gap, which restarts a level. */
export const perMinute = (history: readonly (number | null)[]): number[] =>
  history.map((v) => (v === null ? Number.NaN : v));

/** The fit as stored, or null with fewer than 20 minutes above a level of 0 (fitLevelNoise). */
export function fitStoredNoise(
  demand: readonly number[],
  n: NoisePolicy,
  historyMinutes: number,
  now: number,
): StoredNoise | null {
  const model = fitLevelNoise(demand.slice(-historyMinutes), n.levelMinutes);
  if (!model || !Number.isFinite(model.a) || !Number.isFinite(model.b)) return null;
  return { ...model, computedAt: now, levelMinutes: n.levelMinutes, historyMinutes };
}
