/**
 * The outage of `governor backtest --outage REGION:START:DURATION`: which region loses its
 * capacity, from which minute, for how long. START is a minute of the trace, or `peak` / `trough`:
 * the busiest day's highest / lowest hour, found on the trace alone so no constant is fitted to one.
 *
 *   busiest day: the 1440-minute block from minute 0 (the last one may be shorter) with the most
 *                requests; a trace shorter than a day is one block;
 *   peak:        the minute of that day whose centred 60-minute mean ([m - 30, m + 30), clipped
 *                to the trace) is highest; the first such minute on a tie;
 *   trough:      the same, lowest.
 * An hour's mean rather than one minute, so a one-minute spike does not stand for the peak.
 * The outage is clipped to the trace: it ends at min(start + duration, minutes).
 */
export interface OutageSpec {
  region: string;
  start: number | 'peak' | 'trough';
  durationMinutes: number;
}

export interface Outage {
  region: string;
  /** First minute down. */
  start: number;
  /** First minute up again (exclusive end), at most the trace's length. */
  end: number;
  /** How START was given, for the report. */
  startGiven: OutageSpec['start'];
}

export class OutageError extends Error {
  override name = 'OutageError';
}

const DAY = 1440;
const HOUR = 60;
const FORM = 'REGION:START:DURATION (us-east-1:peak:120, us-east-1:600:120; START a minute, peak or trough)';

/** Parses REGION:START:DURATION; throws OutageError naming the fix. */
export function parseOutage(raw: string): OutageSpec {
  const parts = raw.split(':');
  const [region, start, duration] = parts;
  if (parts.length !== 3 || !region || !start || !duration)
    throw new OutageError(`--outage must be ${FORM}, got "${raw}"`);
  if (!/^[a-z]{2}(-gov)?-[a-z]+-\d$/.test(region))
    throw new OutageError(`--outage region "${region}" must be an AWS region name such as us-east-1`);
  const whole = (s: string) => (/^\d+$/.test(s) ? Number(s) : Number.NaN);
  const at = start === 'peak' || start === 'trough' ? start : whole(start);
  if (typeof at === 'number' && !Number.isSafeInteger(at))
    throw new OutageError(
      `--outage START must be a whole minute of the trace, peak or trough, got "${start}"`,
    );
  const minutes = whole(duration);
  if (!Number.isSafeInteger(minutes) || minutes < 1)
    throw new OutageError(`--outage DURATION must be whole minutes of 1 or more, got "${duration}"`);
  return { region, start: at, durationMinutes: minutes };
}

/** Centred hourly means of the busiest day, as [minute, mean] pairs. */
function busiestDayHours(requests: readonly number[]): [number, number][] {
  let best = 0;
  let bestTotal = -1;
  for (let d = 0; d * DAY < requests.length; d++) {
    let total = 0;
    for (let m = d * DAY; m < Math.min(requests.length, (d + 1) * DAY); m++) total += requests[m]!;
    if (total > bestTotal) [best, bestTotal] = [d, total];
  }
  const out: [number, number][] = [];
  for (let m = best * DAY; m < Math.min(requests.length, (best + 1) * DAY); m++) {
    const from = Math.max(0, m - HOUR / 2);
    const to = Math.min(requests.length, m + HOUR / 2);
    let sum = 0;
    for (let j = from; j < to; j++) sum += requests[j]!;
    out.push([m, sum / (to - from)]);
  }
  return out;
}

/** The minute START names: itself, or the busiest day's peak or trough hour. */
export function outageStart(start: OutageSpec['start'], requests: readonly number[]): number {
  if (typeof start === 'number') return start;
  const hours = busiestDayHours(requests);
  const pick = hours.reduce((a, b) => ((start === 'peak' ? b[1] > a[1] : b[1] < a[1]) ? b : a));
  return pick[0];
}

export function resolveOutage(spec: OutageSpec, requests: readonly number[]): Outage {
  const start = outageStart(spec.start, requests);
  if (start >= requests.length) {
    throw new OutageError(
      `--outage starts at minute ${start}, but the trace has ${requests.length} minutes: start it earlier`,
    );
  }
  return {
    region: spec.region,
    start,
    end: Math.min(requests.length, start + spec.durationMinutes),
    startGiven: spec.start,
  };
}
