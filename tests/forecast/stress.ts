/**
 * Stress series for the forecaster's calibration: the daily and weekly cycle of ./synthetic.ts
 * under a regime that breaks a seasonal model's assumptions. Deterministic (seeded); minute 0
 * is a Monday 00:00.
 *
 * - growth: +3 % a day, compounding, for the whole series (x2.3 over 4 weeks);
 * - doubling: the level doubles for good at day 15, 00:00;
 * - collapse: the level falls to 40 % for good at day 15, 00:00 (an event ends);
 * - flash-crowds: about one a day at a random time, x1.8 for 30 to 120 minutes.
 *
 * The noise is what makes real traffic hard to calibrate on: besides independent per-minute
 * log noise (0.1), a slow log wander (an AR(1) with a time constant of about 3 h and a
 * standard deviation of 0.07), so busy and quiet stretches last hours, as on NASA.
 */
import { forecast } from '#shared/forecast/forecast.ts';
import type { Forecast } from '#shared/forecast/types.ts';
import { normal, rng, truthAt } from './synthetic.ts';

export type StressKind = 'growth' | 'doubling' | 'collapse' | 'flash-crowds';
export const STRESS_KINDS: readonly StressKind[] = ['growth', 'doubling', 'collapse', 'flash-crowds'];

export interface StressOptions {
  /** Length of the series in days (default 28). */
  days?: number;
  seed?: number;
  /** Requests per minute at the daily mean of a weekday before the regime (default 200). */
  base?: number;
}

const DAY = 1440;
/** The day the doubling and the collapse start. */
export const SHIFT_DAY = 15;
/** Per-minute AR(1) of the log wander: phi 0.995 is a time constant of 200 minutes. */
const WANDER_PHI = 0.995;
const WANDER_SD = 0.07;
const MINUTE_NOISE = 0.1;
const WEEKEND_FACTOR = 0.7;

/** Flash-crowd windows: starts of a Poisson process of one a day, each 30 to 120 minutes long. */
function flashCrowds(days: number, random: () => number): [number, number][] {
  const out: [number, number][] = [];
  let t = -Math.log(1 - random()) * DAY;
  while (t < days * DAY) {
    const length = 30 + Math.floor(random() * 91);
    out.push([Math.floor(t), Math.floor(t) + length]);
    t += -Math.log(1 - random()) * DAY;
  }
  return out;
}

/** The regime's multiplier on the seasonal truth at each minute. */
function regime(kind: StressKind, days: number, random: () => number): (minute: number) => number {
  switch (kind) {
    case 'growth':
      return (m) => 1.03 ** (m / DAY);
    case 'doubling':
      return (m) => (m >= SHIFT_DAY * DAY ? 2 : 1);
    case 'collapse':
      return (m) => (m >= SHIFT_DAY * DAY ? 0.4 : 1);
    case 'flash-crowds': {
      const crowds = flashCrowds(days, random);
      return (m) => (crowds.some(([a, b]) => m >= a && m < b) ? 1.8 : 1);
    }
  }
}

/** The rate of a stress series without its noise (requests per minute at each minute). */
export function stressTruth(kind: StressKind, options: StressOptions = {}): (minute: number) => number {
  const { days = 28, seed = 1, base = 200 } = options;
  const factor = regime(kind, days, rng(seed + 1000));
  return (m) => truthAt(m, { days, base, weekendFactor: WEEKEND_FACTOR }) * factor(m);
}

/** Per-minute request counts of a stress series. */
export function stressSeries(kind: StressKind, options: StressOptions = {}): number[] {
  const { days = 28, seed = 1 } = options;
  const draw = normal(rng(seed));
  const truth = stressTruth(kind, options);
  const innovation = WANDER_SD * Math.sqrt(1 - WANDER_PHI ** 2);
  let wander = 0;
  return Array.from({ length: days * DAY }, (_, m) => {
    wander = WANDER_PHI * wander + innovation * draw();
    return Math.round(truth(m) * Math.exp(wander + MINUTE_NOISE * draw()));
  });
}

/** The forecast at minute `origin` from the `historyDays` days before it, 48 h ahead. */
export function forecastAt(minutes: readonly number[], origin: number, historyDays = 14): Forecast {
  const result = forecast(minutes.slice(origin - historyDays * DAY, origin), { stepMinutes: 1, origin });
  if (!result.ok) throw new Error(`no forecast at minute ${origin}: ${result.message}`);
  return result;
}
