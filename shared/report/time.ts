/**
 * The report's time axis. Traces carry no wall clock, only minutes since their first minute,
 * so the axis reads "day 3" and "14:20" counted from the trace's start (minute 0 is day 1,
 * 00:00). Pure; bundled into the page and unit-tested here.
 */

/** Axis steps in minutes, finest first: uPlot picks the first that leaves room between labels. */
export const MINUTE_INCREMENTS = [1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440, 2880, 7 * 1440];

const pad = (n: number): string => String(n).padStart(2, '0');

/** 0 -> "day 1 00:00"; 2 * 1440 + 14 * 60 + 20 -> "day 3 14:20". */
export function formatMinute(minute: number): string {
  const m = Math.round(minute);
  const day = Math.floor(m / 1440) + 1;
  const inDay = m - (day - 1) * 1440;
  return `day ${day} ${pad(Math.floor(inDay / 60))}:${pad(inDay % 60)}`;
}

/**
 * An axis label: whole days when the step is a day or more ("day 3"), otherwise the clock,
 * with the day on the line above at each midnight and on the first label (`withDay`), so a
 * zoomed window always says which day it shows ("day 3\n14:00").
 */
export function axisLabel(minute: number, stepMinutes: number, withDay = false): string {
  const m = Math.round(minute);
  const day = Math.floor(m / 1440) + 1;
  if (stepMinutes >= 1440) return `day ${day}`;
  const inDay = m - (day - 1) * 1440;
  const clock = `${pad(Math.floor(inDay / 60))}:${pad(inDay % 60)}`;
  return inDay === 0 || withDay ? `day ${day}\n${clock}` : clock;
}

/**
 * Tick positions for a second axis in other units that share the plot's scale: demand in
 * requests per minute drawn as r / mu instances. Picks a 1-2-5 step in the other units giving
 * about `count` ticks and returns the positions in plot units. Example: plot range 0..40
 * instances, mu 12.5 -> 0..500 req/min, step 100 -> positions 0, 8, 16, 24, 32, 40.
 */
export function scaledTicks(min: number, max: number, factor: number, count: number): number[] {
  const lo = min * factor;
  const hi = max * factor;
  if (!(hi > lo) || !(factor > 0)) return [];
  const raw = (hi - lo) / Math.max(1, count);
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((k) => k * magnitude).find((s) => s >= raw) ?? 10 * magnitude;
  const ticks: number[] = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) ticks.push(v / factor);
  return ticks;
}

/**
 * Ascending minutes as [first, last] runs, so a chart paints one bar per outage instead of one
 * per minute: [3, 4, 5, 9] -> [[3, 5], [9, 9]].
 */
export function minuteRuns(minutes: ArrayLike<number>): [number, number][] {
  const runs: [number, number][] = [];
  for (let i = 0; i < minutes.length; i++) {
    const m = minutes[i]!;
    const last = runs[runs.length - 1];
    if (last && m === last[1] + 1) last[1] = m;
    else runs.push([m, m]);
  }
  return runs;
}
