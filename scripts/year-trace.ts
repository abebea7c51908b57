/**
 * A synthetic per-minute trace of any length (a year by default: 365 x 1,440 = 525,600 minutes),
 * for checking that every command copes with an operator's long history (issue 18, "Any
 * length"). Deterministic: the same minutes and seed give the same counts on any machine.
 *
 * Shaped like a web or inference service, at NASA July 1995's scale (about 65 requests a
 * minute on average, so the reference scenario sizes the fleet alike):
 * - a daily cycle peaking at 15:00 with a night trough of 0.35x the day's peak level;
 * - a weekly cycle: Saturday and Sunday at 0.65x;
 * - growth of 50 % over 365 days, compounding per minute;
 * - bursts: on about 3 days in 10, one flash crowd of 2-4x lasting 5-45 minutes, decaying;
 * - Poisson-like noise (normal with variance equal to the mean, rounded, never below 0).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mulberry32 } from '../shared/backtest/noise.ts';
import { numberArg, type ScriptUsage, scriptArgs, usageExit } from './args.ts';

export const YEAR_MINUTES = 365 * 1440;
const DAY = 1440;

/** A standard normal draw (Box-Muller); u1 is kept above 0 so log stays finite. */
function normal(rand: () => number): number {
  const u1 = Math.max(rand(), 1e-12);
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * rand());
}

/** The expected requests of minute m before bursts: 60 x daily x weekly x growth. */
export function expectedAt(m: number, minutes: number): number {
  const hour = (m % DAY) / 60;
  // 0.35 at 03:00, 1.0 at 15:00: a cosine between the two.
  const daily = 0.675 + 0.325 * Math.cos(((hour - 15) / 24) * 2 * Math.PI);
  const weekday = Math.floor(m / DAY) % 7;
  const weekly = weekday >= 5 ? 0.65 : 1;
  const growth = 1.5 ** (m / Math.max(minutes, 1));
  return 90 * daily * weekly * growth;
}

/** Requests per minute for `minutes` minutes, whole numbers, as the trace reader returns them. */
export function yearTrace(minutes = YEAR_MINUTES, seed = 18): number[] {
  // mulberry32, not Math.random: the same seed gives the same trace on any machine.
  const rand = mulberry32(seed);
  const burst = new Float64Array(minutes).fill(1);
  for (let day = 0; day * DAY < minutes; day++) {
    if (rand() >= 0.3) continue;
    const start = day * DAY + Math.floor(rand() * DAY);
    const height = 2 + 2 * rand();
    const length = 5 + Math.floor(rand() * 41);
    // Decays linearly from `height` to 1 over the burst: a crowd arrives at once, then thins.
    for (let i = 0; i < length && start + i < minutes; i++)
      burst[start + i] = height - ((height - 1) * i) / length;
  }
  const out = new Array<number>(minutes);
  for (let m = 0; m < minutes; m++) {
    const mean = expectedAt(m, minutes) * burst[m]!;
    out[m] = Math.max(0, Math.round(mean + Math.sqrt(mean) * normal(rand)));
  }
  return out;
}

/** Writes each named trace to FOLDER/NAME.csv (the folder made if missing), a line each on stdout. */
export function writeTraces(folder: string, traces: readonly (readonly [string, readonly number[]])[]): void {
  mkdirSync(folder, { recursive: true });
  for (const [name, xs] of traces) {
    const file = join(folder, `${name}.csv`);
    writeFileSync(file, requestsCsv(xs));
    console.log(`wrote ${file} (${xs.length} minutes)`);
  }
}

/** Requests per minute as the CSV the backtest reads (`minute,requests`), each rounded and at least 0. */
export function requestsCsv(requests: readonly number[]): string {
  const lines = new Array<string>(requests.length + 1);
  lines[0] = 'minute,requests';
  for (let m = 0; m < requests.length; m++) lines[m + 1] = `${m},${Math.max(0, Math.round(requests[m]!))}`;
  return `${lines.join('\n')}\n`;
}

/** The trace as the CSV the backtest reads (`minute,requests`); about 6 MB for a year. */
export function yearTraceCsv(minutes = YEAR_MINUTES, seed = 18): string {
  return requestsCsv(yearTrace(minutes, seed));
}

/** Writes the trace to `file` (a temporary path: a year is too large to commit). */
export function writeYearTrace(file: string, minutes = YEAR_MINUTES, seed = 18): void {
  writeFileSync(file, yearTraceCsv(minutes, seed));
}

const USAGE: ScriptUsage = {
  script: 'year-trace',
  synopsis: 'node scripts/year-trace.ts OUT.csv [--minutes N] [--seed N]',
  maxPositionals: 1,
  details: `Writes a synthetic per-minute trace (minute,requests) to OUT.csv: a year of minutes by default
(525,600, about 6 MB), shaped like a web or inference service at NASA July 1995's scale (daily
and weekly cycles, 50 % growth over the trace, flash crowds on about 3 days in 10, count noise).
The same minutes and seed give the same file on any machine. Then, for example:
  npx governor backtest --trace OUT.csv

  --minutes N   minutes to write, 1 to 5,256,000 (default 525,600: a year)
  --seed N      the random seed, a whole number of 0 or more (default 18)`,
};

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values, positionals } = scriptArgs(USAGE, {
    allowPositionals: true,
    options: { minutes: { type: 'string' }, seed: { type: 'string' } },
  });
  const out = positionals[0] ?? usageExit(USAGE, 'the file to write is missing');
  const minutes =
    numberArg(USAGE, 'minutes', values.minutes, { min: 1, max: 10 * YEAR_MINUTES, integer: true }) ??
    YEAR_MINUTES;
  const seed = numberArg(USAGE, 'seed', values.seed, { min: 0, integer: true }) ?? 18;
  writeYearTrace(out, minutes, seed);
  console.log(`wrote ${out} (${minutes.toLocaleString('en-US')} minutes, seed ${seed})`);
}
