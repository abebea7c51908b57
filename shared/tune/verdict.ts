/**
 * The held-out judgement, in the objective's terms: did the tuned policy hold the objective on
 * the days the search never saw, at what cost against the starting policy and target tracking.
 * And the guard: a tuned policy that misses the objective there, or costs more, where the
 * starting policy met it, is not written: the starting policy is kept. Attainment is 1 - the
 * share of minutes in violation (and 1 - the share of requests in violating minutes).
 */
import type { PolicySummary } from '../backtest/types.ts';
import type { Goal } from './objective.ts';

export interface Attainment {
  minutes: number;
  requests: number;
  /** Whether it holds the objective (minutes, and requests when the objective has them). */
  meets: boolean;
}

export interface Verdict {
  tuned: Attainment;
  start: Attainment;
  baseline: Attainment;
  /** The starting policy is written instead of the tuned one. */
  kept: boolean;
  /** The written policy holds the objective on the held-out part (exit 0). */
  meets: boolean;
  /** 1 - written / starting instance-minutes: 0.08 is 8 % cheaper. */
  cheaperThanStart: number;
  /** 1 - written / target tracking's instance-minutes. */
  cheaperThanBaseline: number;
  sentence: string;
  /** One line on what was written and why. */
  written: string;
}

const pct = (x: number) => `${(100 * x).toFixed(2)} %`;
const objectivePct = (x: number) => `${Number((100 * x).toFixed(3))} %`;

/**
 * The held-out part as runBacktest judged it: on a part longer than the objective's window, its
 * worst window (shared/backtest/attainment.ts); otherwise, and for a summary judged by nothing, the
 * whole part.
 */
export function attainment(s: PolicySummary, goal: Goal): Attainment {
  const minutes = s.attainment ?? 1 - s.violationRatio;
  const requests = s.requestsAttainment ?? 1 - s.requestsInViolationRatio;
  const r = goal.objective.requests;
  return {
    minutes,
    requests,
    meets: minutes >= goal.objective.minutes && (r === undefined || requests >= r),
  };
}

const cheaper = (by: number) => `${(100 * Math.abs(by)).toFixed(1)} % ${by >= 0 ? 'cheaper' : 'dearer'}`;

export function judge(
  held: { tuned: PolicySummary; start: PolicySummary; baseline: PolicySummary },
  goal: Goal,
): Verdict {
  const tuned = attainment(held.tuned, goal);
  const start = attainment(held.start, goal);
  const baseline = attainment(held.baseline, goal);
  const dearer = held.tuned.instanceMinutes > held.start.instanceMinutes;
  const kept = start.meets && (!tuned.meets || dearer);
  const written = kept ? held.start : held.tuned;
  const w = kept ? start : tuned;
  const cheaperThanStart = 1 - written.instanceMinutes / held.start.instanceMinutes;
  const cheaperThanBaseline = 1 - written.instanceMinutes / held.baseline.instanceMinutes;
  const requests = goal.objective.requests;
  const reqs =
    requests === undefined ? '' : ` and ${pct(w.requests)} of requests (objective ${objectivePct(requests)})`;
  const who = kept ? 'the starting policy (kept)' : 'the tuned policy';
  const vsStart = kept
    ? ''
    : `${cheaper(cheaperThanStart)} than the starting policy (${pct(start.minutes)}, ${held.start.costVsOracle.toFixed(2)}x) and `;
  const sentence = `${who} ${w.meets ? 'meets' : 'misses'} the objective on the held-out part: ${pct(w.minutes)} of minutes within the SLO against ${objectivePct(goal.objective.minutes)}${reqs}, at ${written.costVsOracle.toFixed(2)}x the oracle, ${vsStart}${cheaper(cheaperThanBaseline)} than target tracking (${pct(baseline.minutes)}, ${held.baseline.costVsOracle.toFixed(2)}x)`;
  const why = !tuned.meets
    ? `its held-out attainment ${pct(tuned.minutes)} misses the objective ${objectivePct(goal.objective.minutes)}${requests === undefined ? '' : ' (minutes or requests)'}, which the starting policy met`
    : `it met the objective but cost ${held.tuned.costVsOracle.toFixed(2)}x the oracle against the starting policy's ${held.start.costVsOracle.toFixed(2)}x`;
  return {
    tuned,
    start,
    baseline,
    kept,
    meets: w.meets,
    cheaperThanStart,
    cheaperThanBaseline,
    sentence,
    written: kept ? `kept the starting policy, not the tuned one: ${why}` : 'wrote the tuned policy',
  };
}
