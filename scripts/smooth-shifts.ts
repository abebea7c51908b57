/**
 * `node scripts/smooth-shifts.ts [FOLDER]`: traffic the forecast room (shared/slo/forecast-room.ts)
 * was not built on. Three smooth weeks of the synthetic year (./year-trace.ts: daily and weekly
 * cycles, count noise, where the forecast's band is narrow and the room opens), each turned, from
 * day 15, into something its first two weeks never showed:
 *   - bursts: three-minute bursts at 3x, four a day at seeded random minutes;
 *   - noise: every minute times a seeded uniform 0.8-1.2 (overdispersed, not Poisson);
 *   - jump-1.4 / jump-1.8: a new level, 1.4x or 1.8x, from noon of day 15 on;
 *   - surge: 2x for two hours (14:00-16:00) every day;
 *   - ramp: 1x to 1.5x over an hour from 09:00 of day 16, and 1.5x after;
 *   - drop: 0.5x on days 15 and 16, then back.
 * Seeded: the same files every time. docs/slo.md ("The forecast room") has the table of the
 * example policy with the room on and off on each, and tests/backtest/forecast-room.test.ts pins
 * the bursts one.
 */
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mulberry32 } from '../shared/backtest/noise.ts';
import { type ScriptUsage, scriptArgs } from './args.ts';
import { writeTraces, yearTrace } from './year-trace.ts';

const DAY = 1440;
/** Three weeks: two smooth ones to learn from, then the shift. */
export const SHIFT_MINUTES = 21 * DAY;
const FROM = 15 * DAY;

/** Three-minute bursts at 3x, four a day at random minutes, from day 15. */
export function bursts(base: readonly number[], seed = 4): number[] {
  const random = mulberry32(seed);
  const out = [...base];
  for (let d = FROM; d + DAY <= out.length; d += DAY)
    for (let k = 0; k < 4; k++) {
      const start = d + Math.floor(random() * (DAY - 3));
      for (let m = start; m < start + 3; m++) out[m] = base[m]! * 3;
    }
  return out;
}

const from15 = (base: readonly number[], f: (x: number, m: number) => number) =>
  base.map((x, m) => (m >= FROM ? f(x, m) : x));

/** Every name and its trace, from `base` (default: the first three weeks of the year). */
export function smoothShifts(base: readonly number[] = yearTrace(SHIFT_MINUTES)): [string, number[]][] {
  const random = mulberry32(11);
  const ramp = 16 * DAY + 540;
  return [
    ['bursts', bursts(base)],
    ['noise', from15(base, (x) => x * (0.8 + 0.4 * random()))],
    ['jump-1.4', from15(base, (x, m) => (m >= FROM + 720 ? x * 1.4 : x))],
    ['jump-1.8', from15(base, (x, m) => (m >= FROM + 720 ? x * 1.8 : x))],
    ['surge', from15(base, (x, m) => (m % DAY >= 840 && m % DAY < 960 ? x * 2 : x))],
    ['ramp', base.map((x, m) => (m < ramp ? x : x * (1 + 0.5 * Math.min(1, (m - ramp) / 60))))],
    ['drop', from15(base, (x, m) => (m < 17 * DAY ? x * 0.5 : x))],
  ];
}

const USAGE: ScriptUsage = {
  script: 'smooth-shifts',
  synopsis: 'node scripts/smooth-shifts.ts [FOLDER]',
  maxPositionals: 1,
  details: `Writes seven three-week traces into FOLDER (default reports/smooth-shifts): two smooth weeks
of the synthetic year, then from day 15 bursts, noise, a new level (jump-1.4, jump-1.8), a daily
surge, a ramp or a two-day drop. Seeded, so the same files every time. Then, for example:
  npx governor backtest --trace FOLDER/bursts.csv`,
};

if (import.meta.url === `file://${process.argv[1]}`) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const { positionals } = scriptArgs(USAGE, { allowPositionals: true });
  writeTraces(resolve(positionals[0] ?? join(root, 'reports', 'smooth-shifts')), smoothShifts());
}
