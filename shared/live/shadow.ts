/**
 * `governor shadow-report`: Governor's shadow decisions against the capacity the fleet really
 * ran, minute by minute, and the verdict in one sentence. Pure: the records, the CloudWatch
 * series and the window come in (./shadow-reads.ts reads them).
 *
 * Governor's capacity at minute m is the desiredCapacity of its newest shadow record in minute m
 * or before, if that record's minute is at most STALE_MINUTES before m (the evaluate function records every minute; a
 * longer silence is a gap, never a guess). The fleet's is the CloudWatch datapoint of minute m.
 * A minute with both is compared: Governor short when it would have run fewer instances than the
 * fleet, long when more. The latency of the fleet in that minute, when read, says whether the
 * fleet itself was over its SLO then: a short minute while the fleet was already over the SLO is
 * one where Governor's fleet would very likely have been slower still.
 *
 * Worked example (tests/live/shadow.test.ts): fleet 4 for 60 minutes, Governor 3 for 40 and 5
 * for 20: 120 + 100 = 220 instance-minutes against 240 (3.67 h against 4.00, 8.3 % fewer; at
 * 3 USD an hour 11 USD against 12), short 40 minutes, long 20.
 */

/** A record is Governor's capacity in its own minute and at most this many minutes after it. */
export const STALE_MINUTES = 5;
const MINUTE = 60_000;

export interface ShadowDecision {
  /** Epoch ms of the decision. */
  at: number;
  desiredCapacity: number;
  /** 'shadow' or 'active': only shadow decisions are compared. */
  mode: string;
}

export interface ShadowInput {
  targetId: string;
  /** Epoch ms, whole minutes: [start, end). */
  start: number;
  end: number;
  decisions: readonly ShadowDecision[];
  /** The fleet's capacity by minute start (epoch ms). */
  fleet: ReadonlyMap<number, number>;
  /** Where the fleet's capacity was read, for the sentence and the page. */
  fleetSource: string;
  /** The fleet's latency by minute start (ms), and its SLO; null when the target has none or it was not read. */
  latency: { byMinute: ReadonlyMap<number, number>; sloMs: number; metric: string } | null;
  /** USD per instance-hour, and where it came from; null: no price. */
  price: { usdPerHour: number; source: string } | null;
}

export interface ShadowFigures {
  minutes: number;
  compared: number;
  /** Minutes with a fleet datapoint but no fresh shadow decision (Governor active, or not running). */
  withoutDecision: number;
  withoutFleet: number;
  activeDecisions: number;
  governorInstanceHours: number;
  fleetInstanceHours: number;
  governorUsd: number | null;
  fleetUsd: number | null;
  shortMinutes: number;
  longMinutes: number;
  /** Of the short minutes, those in which the fleet's own latency was over the SLO. */
  shortWhileOverSlo: number;
  /** Minutes the fleet's latency was over the SLO (of those with a reading). */
  fleetOverSlo: number;
  latencyMinutes: number;
  /** The most instances Governor would have run under the fleet in one minute. */
  largestShortfall: number;
}

export interface ShadowMinute {
  at: number;
  governor: number | null;
  fleet: number | null;
  latencyMs: number | null;
}

export interface ShadowReport {
  targetId: string;
  start: number;
  end: number;
  verdict: string;
  figures: ShadowFigures;
  fleetSource: string;
  latency: { metric: string; sloMs: number } | null;
  price: ShadowInput['price'];
  series: ShadowMinute[];
}

/** Governor's capacity per minute from its shadow decisions (null: none fresh). */
function governorSeries(input: ShadowInput): (number | null)[] {
  const shadow = input.decisions.filter((d) => d.mode === 'shadow').sort((a, b) => a.at - b.at);
  const out: (number | null)[] = [];
  let i = 0;
  let current: ShadowDecision | null = null;
  for (let t = input.start; t < input.end; t += MINUTE) {
    while (i < shadow.length && shadow[i]!.at < t + MINUTE) current = shadow[i++]!;
    out.push(
      current && t - Math.floor(current.at / MINUTE) * MINUTE <= STALE_MINUTES * MINUTE
        ? current.desiredCapacity
        : null,
    );
  }
  return out;
}

const hours = (minutes: number) => minutes / 60;
const n1 = (x: number) => x.toLocaleString('en-US', { maximumFractionDigits: 1, minimumFractionDigits: 1 });
const n0 = (x: number) => x.toLocaleString('en-US', { maximumFractionDigits: 0 });
/** USD to the cent under 100, whole above: 0.41, 1,728. */
export const usd = (x: number) =>
  x < 100 ? x.toFixed(2) : x.toLocaleString('en-US', { maximumFractionDigits: 0 });

export function shadowReport(input: ShadowInput): ShadowReport {
  const gov = governorSeries(input);
  const f: ShadowFigures = {
    minutes: gov.length,
    compared: 0,
    withoutDecision: 0,
    withoutFleet: 0,
    activeDecisions: input.decisions.filter((d) => d.mode !== 'shadow').length,
    governorInstanceHours: 0,
    fleetInstanceHours: 0,
    governorUsd: null,
    fleetUsd: null,
    shortMinutes: 0,
    longMinutes: 0,
    shortWhileOverSlo: 0,
    fleetOverSlo: 0,
    latencyMinutes: 0,
    largestShortfall: 0,
  };
  const series: ShadowMinute[] = gov.map((g, k) => {
    const at = input.start + k * MINUTE;
    const fleet = input.fleet.get(at) ?? null;
    const latencyMs = input.latency?.byMinute.get(at) ?? null;
    const over = latencyMs !== null && input.latency !== null && latencyMs > input.latency.sloMs;
    if (latencyMs !== null) f.latencyMinutes++;
    if (over) f.fleetOverSlo++;
    if (fleet === null) f.withoutFleet++;
    else if (g === null) f.withoutDecision++;
    else {
      f.compared++;
      f.governorInstanceHours += hours(g);
      f.fleetInstanceHours += hours(fleet);
      if (g < fleet) {
        f.shortMinutes++;
        if (over) f.shortWhileOverSlo++;
        f.largestShortfall = Math.max(f.largestShortfall, fleet - g);
      } else if (g > fleet) f.longMinutes++;
    }
    return { at, governor: g, fleet, latencyMs };
  });
  if (input.price) {
    f.governorUsd = f.governorInstanceHours * input.price.usdPerHour;
    f.fleetUsd = f.fleetInstanceHours * input.price.usdPerHour;
  }
  return {
    targetId: input.targetId,
    start: input.start,
    end: input.end,
    verdict: verdict(input, f),
    figures: f,
    fleetSource: input.fleetSource,
    latency: input.latency && { metric: input.latency.metric, sloMs: input.latency.sloMs },
    price: input.price,
    series,
  };
}

/** The one sentence the report opens with. */
export function verdict(input: ShadowInput, f: ShadowFigures): string {
  const days = Math.round((input.end - input.start) / 86_400_000);
  const span = `Over the last ${days === 0 ? `${n0((input.end - input.start) / MINUTE)} minutes` : `${days} day${days === 1 ? '' : 's'}`} (${n0(f.compared)} minutes compared)`;
  if (f.compared === 0) {
    const why =
      f.minutes === f.withoutFleet
        ? `the fleet's capacity has no datapoint in CloudWatch (${input.fleetSource})`
        : f.activeDecisions > 0 && input.decisions.every((d) => d.mode !== 'shadow')
          ? 'Governor was active, not in shadow mode, the whole time'
          : 'no minute had both a shadow decision and the fleet’s capacity';
    return `${span}, nothing can be judged: ${why}.`;
  }
  const diff = f.governorInstanceHours - f.fleetInstanceHours;
  const pct = f.fleetInstanceHours > 0 ? Math.abs(diff / f.fleetInstanceHours) * 100 : 0;
  const direction = diff < 0 ? 'fewer' : 'more';
  const cost =
    input.price && f.governorUsd !== null && f.fleetUsd !== null
      ? `, ${usd(Math.abs(f.governorUsd - f.fleetUsd))} USD ${diff < 0 ? 'less' : 'more'} at ${input.price.usdPerHour} USD an instance-hour`
      : '';
  const overSlo =
    input.latency && f.shortMinutes > 0
      ? ` (${n0(f.shortWhileOverSlo)} of them while the fleet's ${input.latency.metric} was over its ${n0(input.latency.sloMs)} ms SLO)`
      : '';
  const change =
    diff === 0
      ? 'the same instance-hours as the fleet'
      : `${n1(pct)} % ${direction} instance-hours than the fleet`;
  return `${span}, Governor would have run ${n1(f.governorInstanceHours)} instance-hours against the fleet's ${n1(f.fleetInstanceHours)}: ${change}${cost}; it would have been short in ${n0(f.shortMinutes)} minutes${overSlo} and long in ${n0(f.longMinutes)}.`;
}
