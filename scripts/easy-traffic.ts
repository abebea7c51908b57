/**
 * `node scripts/easy-traffic.ts [FOLDER]`: traffic easier than the bundled traces, where a policy
 * that keeps its written headroom over-provisions (issue 17: "it over-provisions easy traffic").
 * Seven three-week per-minute traces, Poisson counts around a daily cycle (night at the base,
 * a day peak at base + amplitude from 06:00 to 20:00). These shapes found the over-provisioning
 * and set the spare room's defaults (docs/slo.md, "The spare room"), so they are not a held-out
 * test of it: the held-out traces and the smooth shifts are.
 *   - diurnal: base 800 and amplitude 4,000 a minute, weekends at 0.7x;
 *   - step-up: base 300, amplitude 1,200, three times as much from day 12 on;
 *   - flash: the same, five times as much for two hours of day 14 (10:00-12:00);
 *   - growth: base 200, amplitude 800, 5 % more each day;
 *   - wobbly: base 300, each day's amplitude a seeded 0.5-1.6 x 1,500;
 *   - sparse: base 2, amplitude 15 (a fleet of one or two at night);
 *   - on-off: base 50, amplitude 300, and 800 more a minute while a seeded switch is on (on for
 *     about 5 minutes at a time, off for about 20).
 * Seeded: the same files every time. Then, for example:
 *   npx governor suite --trace FOLDER/diurnal.csv --trace FOLDER/wobbly.csv
 */
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mulberry32, poisson } from '../shared/backtest/noise.ts';
import { type ScriptUsage, scriptArgs } from './args.ts';
import { writeTraces } from './year-trace.ts';

const DAY = 1440;
/** Three weeks: long enough for a week of evidence and two of forecasts. */
export const EASY_MINUTES = 21 * DAY;

/** The day's shape: base at night, base + amplitude at its 13:00 peak, a half sine from 06:00 to 20:00. */
const day = (m: number, base: number, amplitude: number): number => {
  const hour = (m % DAY) / 60;
  return base + amplitude * Math.max(0, Math.sin((Math.PI * (hour - 6)) / 14));
};

/** Every name and its mean requests a minute (before the counts are drawn). */
export function easyRates(minutes = EASY_MINUTES): [string, number[]][] {
  const at = (f: (m: number) => number) => Array.from({ length: minutes }, (_, m) => f(m));
  const wobble = mulberry32(5);
  const amplitude = Array.from({ length: Math.ceil(minutes / DAY) }, () => 0.5 + 1.1 * wobble());
  const toggle = mulberry32(7);
  let on = false;
  const onOff = at((m) => {
    if (toggle() < (on ? 0.2 : 0.05)) on = !on;
    return day(m, 50, 300) + (on ? 800 : 0);
  });
  return [
    ['diurnal', at((m) => day(m, 800, 4000) * (Math.floor(m / DAY) % 7 >= 5 ? 0.7 : 1))],
    ['step-up', at((m) => day(m, 300, 1200) * (m >= 12 * DAY ? 3 : 1))],
    ['flash', at((m) => day(m, 300, 1200) * (m >= 14 * DAY + 600 && m < 14 * DAY + 720 ? 5 : 1))],
    ['growth', at((m) => day(m, 200, 800) * 1.05 ** (m / DAY))],
    ['wobbly', at((m) => day(m, 300, 1500 * amplitude[Math.floor(m / DAY)]!))],
    ['sparse', at((m) => day(m, 2, 15))],
    ['on-off', onOff],
  ];
}

/** Every name and its trace: Poisson counts of easyRates, each seeded by its place in the list. */
export const easyTraffic = (minutes = EASY_MINUTES): [string, number[]][] =>
  easyRates(minutes).map(([name, rates], i) => {
    const random = mulberry32(100 + i);
    return [name, rates.map((r) => poisson(r, random))];
  });

const USAGE: ScriptUsage = {
  script: 'easy-traffic',
  synopsis: 'node scripts/easy-traffic.ts [FOLDER]',
  maxPositionals: 1,
  details: `Writes seven three-week traces into FOLDER (default reports/easy-traffic): a daily cycle
with Poisson counts at scale (diurnal), a step up, a flash crowd, growth, days of random size
(wobbly), a sparse one and an on-off one. Seeded, so the same files every time. Then, for example:
  npx governor suite --trace FOLDER/diurnal.csv`,
};

if (import.meta.url === `file://${process.argv[1]}`) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const { positionals } = scriptArgs(USAGE, { allowPositionals: true });
  writeTraces(resolve(positionals[0] ?? join(root, 'reports', 'easy-traffic')), easyTraffic());
}
