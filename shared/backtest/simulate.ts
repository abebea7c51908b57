/**
 * The tick loop of BACKTEST.md, one policy over one workload. Per minute m:
 *   1. started instances whose ready minute is <= m serve;
 *   2. the policy sees the delivered datapoints and returns a desired capacity, clamped;
 *   3. the fleet moves to it (one scaling action per change, whatever its size);
 *   4. cost: ready + pending (+ warm instances initializing) + 0.05 x idle warm instances;
 *   5. violation: work(m) + backlog > ready x mu;
 *   6. backlog = max(0, backlog + work(m) - ready x muSat);
 * then the minute's datapoint is published (visible metricDelayMinutes + 1 minutes later).
 */
import { Fleet } from './fleet.ts';
import { MetricsFeed, type MinuteState } from './metrics.ts';
import type { FleetView, Policy } from './policies/types.ts';
import type { ResolvedScenario, Workload } from './scenario.ts';
import type { PolicyRun, Scenario } from './types.ts';

/** A stopped warm-pool instance pays for its volumes only: 5 % of a running one. */
export const WARM_IDLE_COST = 0.05;
/** Relative slack on capacity comparisons, so float noise cannot create a violation. */
const EPSILON = 1e-9;
const PROGRESS_EVERY = 4096;

export interface SimulationInput {
  scenario: ResolvedScenario;
  workload: Workload;
  /** Instance-minutes of the oracle, for costVsOracle. */
  oracleInstanceMinutes: number;
  /** Called every few thousand minutes with the minutes done. */
  onProgress?: (minutesDone: number) => void;
  /**
   * Score only minutes from this one on (default 0): the policy runs over the whole trace, so
   * its forecaster has the history, and is judged on the time after (held-out scoring).
   */
  scoreFrom?: number;
  /**
   * false: the run's per-minute series (ready, provisioned, warm pool) are left empty, for a
   * caller that reads only the summary (the best-target sweep's points). Default true.
   */
  series?: boolean;
  /**
   * Asked after every minute with the minute, what it provisioned (ready + pending + filling, as
   * the series records) and whether it was in violation: true ends the run there. `governor tune`
   * abandons a candidate that can no longer qualify (shared/tune/early-stop.ts). The run then says
   * where it stopped (PolicyRun.stoppedAt) and its figures cover the minutes up to it.
   */
  stopWhen?: StopRule;
}

/** See SimulationInput.stopWhen. */
export type StopRule = (minute: number, provisioned: number, violated: boolean) => boolean;

interface Tally {
  instanceMinutes: number;
  violationMinutes: number[];
  requestsInViolation: number;
  actions: number;
}

function clampDesired(wanted: number, scenario: Scenario, name: string): number {
  if (!Number.isInteger(wanted)) throw new Error(`policy ${name} returned ${wanted}, not a whole number`);
  return Math.min(scenario.maxCapacity, Math.max(scenario.minCapacity, wanted));
}

/**
 * Steps 4 to 6 for minute m: bills the fleet, records a violation, and returns the backlog
 * carried into the next minute.
 */
function serve(m: number, fleet: Fleet, backlog: number, input: SimulationInput, tally: Tally): number {
  const { workload, scenario } = input;
  const { ready } = fleet;
  const scored = m >= (input.scoreFrom ?? 0);
  if (scored)
    tally.instanceMinutes += ready + fleet.pending + fleet.filling + WARM_IDLE_COST * fleet.warmIdle;
  const work = workload.work[m]!;
  if (scored && work + backlog > ready * scenario.mu * (1 + EPSILON)) {
    tally.violationMinutes.push(m);
    tally.requestsInViolation += workload.requests[m]!;
  }
  const left = backlog + work - ready * scenario.muSat;
  return left <= ready * scenario.muSat * EPSILON ? 0 : left;
}

export function simulate(policy: Policy, input: SimulationInput): PolicyRun {
  const { scenario, workload } = input;
  const n = workload.work.length;
  const fleet = new Fleet({
    initialReady: policy.initialReady ?? scenario.initialInstances,
    coldStartMinutes: policy.startDelayMinutes ?? scenario.coldStartMinutes,
    warmStartMinutes: scenario.warmStartMinutes,
    warmPoolSize: policy.warmPoolSize ?? 0,
  });
  const feed = new MetricsFeed(policy.metricDelayMinutes ?? scenario.metricDelayMinutes);
  const curve = { muSat: scenario.muSat, sloMs: scenario.sloMs, sloUtilization: scenario.sloUtilization };
  // A sweep point keeps only its summary (./sweep.ts): no per-minute series for it.
  const keep = input.series !== false;
  const length = keep ? n : 0;
  const series = {
    ready: new Array<number>(length),
    provisioned: new Array<number>(length),
    warmPool: new Array<number>(length),
  };
  const tally: Tally = { instanceMinutes: 0, violationMinutes: [], requestsInViolation: 0, actions: 0 };
  let backlog = 0;
  // One minute's state, refilled every minute: the feed copies it into its columns.
  const minute: MinuteState = { minute: 0, requests: 0, work: 0, ready: 0, backlogIn: 0, backlogOut: 0 };
  // One view, refilled every minute: a policy reads it while it decides and keeps none of it.
  const view: FleetView = { now: 0, ready: 0, pending: 0, warmIdle: 0, metrics: feed };
  const { stopWhen } = input;
  let stoppedAt: number | undefined;
  for (let m = 0; m < n; m++) {
    fleet.promote(m);
    feed.advanceTo(m);
    view.now = m * 60_000;
    view.ready = fleet.ready;
    view.pending = fleet.pending;
    view.warmIdle = fleet.warmIdle;
    if (policy.warmPoolSizeAt) fleet.resizeWarmPool(policy.warmPoolSizeAt(m), m);
    const changed = fleet.scaleTo(clampDesired(policy.decide(view, m), scenario, policy.name), m);
    if (changed && m >= (input.scoreFrom ?? 0)) tally.actions++;
    const violationsBefore = tally.violationMinutes.length;
    const backlogOut = serve(m, fleet, backlog, input, tally);
    const { ready } = fleet;
    minute.minute = m;
    minute.requests = workload.requests[m]!;
    minute.work = workload.work[m]!;
    minute.ready = ready;
    minute.backlogIn = backlog;
    minute.backlogOut = backlogOut;
    feed.recordMinute(minute, curve);
    backlog = backlogOut;
    if (keep) {
      series.ready[m] = ready;
      series.provisioned[m] = ready + fleet.pending + fleet.filling;
      series.warmPool[m] = fleet.warmIdle;
    }
    if (input.onProgress && (m + 1) % PROGRESS_EVERY === 0) input.onProgress(m + 1);
    const violated = tally.violationMinutes.length > violationsBefore;
    if (stopWhen?.(m, ready + fleet.pending + fleet.filling, violated)) {
      stoppedAt = m;
      break;
    }
  }
  const run = finish(
    policy,
    input,
    tally,
    { ...series, violationMinutes: tally.violationMinutes },
    stoppedAt,
  );
  if (stoppedAt !== undefined) run.stoppedAt = stoppedAt;
  return run;
}

function finish(
  policy: Policy,
  input: SimulationInput,
  tally: Tally,
  series: PolicyRun['series'],
  stoppedAt?: number,
): PolicyRun {
  const { scenario, workload } = input;
  const from = input.scoreFrom ?? 0;
  // A stopped run's figures cover the minutes it simulated.
  const end = stoppedAt === undefined ? workload.work.length : stoppedAt + 1;
  const n = Math.max(0, end - from);
  let totalRequests = 0;
  for (let m = from; m < end; m++) totalRequests += workload.requests[m]!;
  // Float sums of 0.05 x warm instances drift in the 12th digit; round to a micro-instance-minute.
  const instanceMinutes = Math.round(tally.instanceMinutes * 1e6) / 1e6;
  const explained = policy.explain?.();
  const run: PolicyRun = {
    summary: {
      name: policy.name,
      instanceMinutes,
      costUsd: (instanceMinutes / 60) * scenario.pricePerInstanceHour,
      costVsOracle: instanceMinutes / input.oracleInstanceMinutes,
      violationMinutes: tally.violationMinutes.length,
      violationRatio: n > 0 ? tally.violationMinutes.length / n : 0,
      requestsInViolationRatio: totalRequests > 0 ? tally.requestsInViolation / totalRequests : 0,
      scalingActions: tally.actions,
    },
    series,
  };
  if (explained) {
    run.summary.reasonCounts = explained.reasonCounts;
    run.decisions = explained.decisions;
  }
  return run;
}
