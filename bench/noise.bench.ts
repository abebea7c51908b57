/**
 * The noise model's and the sorts' hot paths, old against new in the same process: the hourly
 * noise refit of the backtest (two days of NASA minutes, 15-minute levels), its trailing
 * medians alone, and sortedFinite on arrays the size the band sorts (70, 500, 4,032 values).
 * The old code is the reference kept by tests/forecast/reference/hot-paths-v1.ts, which the
 * tests pin the new code to bit for bit. Prints figures; never fails.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseTrace } from '#shared/backtest/trace.ts';
import { sortedFinite } from '#shared/forecast/stats.ts';
import { fitLevelNoise, trailingMedians } from '#shared/sizing/noise-model.ts';
import {
  fitLevelNoiseV1,
  sortedFiniteV1,
  trailingMediansV1,
} from '../tests/forecast/reference/hot-paths-v1.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const TRACE = 'traces/nasa_http_1995_jul_per_minute.csv';
const fmt = (x: number, digits = 0) => x.toLocaleString('en-US', { maximumFractionDigits: digits });

/** Mean microseconds per call over about `ms` milliseconds, after a warm-up. */
function micros(fn: (i: number) => unknown, ms = 800): number {
  for (let i = 0; i < 20; i++) fn(i);
  let n = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < ms) fn(n++);
  return ((performance.now() - t0) * 1000) / n;
}

function pair(label: string, before: (i: number) => unknown, after: (i: number) => unknown): void {
  const old = micros(before);
  const now = micros(after);
  console.log(
    `${label.padEnd(44)} ${fmt(old, 1).padStart(9)} us -> ${fmt(now, 1).padStart(8)} us  (${fmt(old / now, 1)}x)`,
  );
}

export function run(): void {
  const minutes = parseTrace(readFileSync(join(root, TRACE), 'utf8'), TRACE).requests;
  // Histories as the backtest's hourly refit sees them: the last 2,880 minutes, an hour apart.
  const histories: number[][] = [];
  for (let end = 2880; end <= minutes.length; end += 60) histories.push(minutes.slice(end - 2880, end));
  const h = (i: number) => histories[i % histories.length]!;
  pair(
    'noise refit (2,880 minutes, 15-minute level)',
    (i) => fitLevelNoiseV1(h(i), 15),
    (i) => fitLevelNoise(h(i), 15),
  );
  pair(
    'trailing medians (2,880 minutes, window 15)',
    (i) => trailingMediansV1(h(i), 15),
    (i) => trailingMedians(h(i), 15),
  );
  pair(
    'trailing medians (2,880 minutes, window 120)',
    (i) => trailingMediansV1(h(i), 120),
    (i) => trailingMedians(h(i), 120),
  );
  for (const size of [70, 500, 4032]) {
    // Shuffled log-ish residuals with repeats, as the band's pooled errors are.
    const arrays = Array.from({ length: 64 }, (_, k) =>
      Float64Array.from(
        { length: size },
        (_, j) => Math.round(Math.sin(j * 12.9898 + k) * 43758.5453) / 1000,
      ),
    );
    const a = (i: number) => arrays[i % arrays.length]!;
    pair(
      `sortedFinite, ${fmt(size)} values`,
      (i) => sortedFiniteV1(a(i)),
      (i) => sortedFinite(a(i)),
    );
  }
}
