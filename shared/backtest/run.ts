/**
 * One backtest: a trace and a policy target in, every policy's run side by side out (the
 * BacktestResult the table, the JSON file and the HTML report are made from). Pure apart from
 * the optional progress callback.
 */
import type { TargetPolicy } from '../policy/schema.ts';
import { sloOf } from '../slo/objective.ts';
import { attainmentOf, type Objective } from './attainment.ts';
import { BEST_TARGET_POLICY, closestTarget, savingAtEqualSlo } from './best-target.ts';
import { type PlannedForecast, plannedForecasts, plannedLead } from './forecast-thread/forecast-plan.ts';
import { type ParallelFits, parallelFits } from './forecast-thread/parallel-fits.ts';
import { buildPolicies, lookaheadOptions, type PolicyName } from './policies/index.ts';
import type { LookaheadFits } from './policies/lookahead.ts';
import type { Policy } from './policies/types.ts';
import {
  buildScenario,
  buildWorkload,
  oracleCapacity,
  type ResolvedScenario,
  type ScenarioOptions,
  type Workload,
} from './scenario.ts';
import { type StopRule, simulate } from './simulate.ts';
import { type Sweep, sweepTargetTracking } from './sweep.ts';
import { type Trace, TraceError } from './trace.ts';
import type { BacktestResult, BacktestSlo, PolicyRun } from './types.ts';
import { tokensPerMinute, unitCost } from './unit-cost.ts';
import { judgeSlo } from './verdict.ts';

/** A policy the backtest can run: one of POLICY_NAMES, or target tracking at its best target (a sweep). */
export type RunnablePolicy = PolicyName | typeof BEST_TARGET_POLICY;

export interface BacktestInput {
  trace: Trace;
  target: TargetPolicy;
  options: ScenarioOptions;
  /**
   * Score from this minute on (default 0): every policy still runs over the whole trace, so the
   * forecaster has its history; figures count minutes [scoreFrom, end) only.
   */
  scoreFrom?: number;
  /** How the governor look-ahead fits forecasts and noise (default: directly; governor tune shares a memo). */
  fits?: LookaheadFits;
  /**
   * Compute the governor's forecasts on a second thread while the run goes on
   * (./forecast-thread/parallel-fits.ts): the same result, sooner on two cores or more. Only without
   * `fits`; the thread is stopped before this returns.
   */
  parallel?: boolean;
  /** Only these policies (default: every one of POLICY_NAMES the target allows, and the best target). */
  only?: readonly RunnablePolicy[];
  /** Called as the run advances: the policy being simulated and the share of all work done (0..1). */
  onProgress?: (policy: string, done: number) => void;
  /**
   * A rule that may end each policy's run early (simulate's stopWhen), made from the run's oracle
   * and demand once they are known: `governor tune` stops a candidate that can no longer qualify.
   * Not for the best-target sweep.
   */
  stopRule?: (run: { oracle: readonly number[]; demand: readonly number[] }) => StopRule;
}

function forecastBand(policies: readonly Policy[]): Pick<BacktestResult, 'forecast'> {
  for (const p of policies) {
    const band = p.forecastBand?.();
    if (band?.p90.some((v) => v > 0)) return { forecast: band! };
  }
  return {};
}

export function runBacktest(input: BacktestInput): BacktestResult {
  const { trace, target, options } = input;
  const workload = buildWorkload(trace, options);
  const scenario = buildScenario(workload, options, target.instanceCapacity?.requestsPerMinuteAtSlo);
  const oracle = oracleCapacity(workload.work, scenario.peakInstances, scenario.minCapacity);
  const scoreFrom = input.scoreFrom ?? 0;
  if (!Number.isInteger(scoreFrom) || scoreFrom < 0 || scoreFrom >= workload.work.length) {
    throw new TraceError(
      `${trace.name}: scoring from minute ${scoreFrom} leaves nothing to score (the trace has ${workload.work.length} minutes)`,
    );
  }
  let oracleInstanceMinutes = 0;
  for (let m = scoreFrom; m < oracle.length; m++) oracleInstanceMinutes += oracle[m]!;
  const { only } = input;
  const objective = objectiveOf(target);
  const readsFits = !only || only.includes('governor');
  const parallel =
    input.parallel && !input.fits && readsFits ? forecastThread(target, scenario, workload) : null;
  const fits = input.fits ?? parallel ?? undefined;
  try {
    const all = buildPolicies({ scenario, work: workload.work, ...(fits ? { fits } : {}) }, target);
    const policies = only ? all.filter((p) => only.includes(p.name as RunnablePolicy)) : all;
    // The sweep first, and with a forecast thread the policies that read it last, so the thread
    // works ahead while the others run. Each run is independent: the order changes no figure.
    const sweep =
      !only || only.includes(BEST_TARGET_POLICY)
        ? sweepTargetTracking({ scenario, workload, oracleInstanceMinutes, scoreFrom, objective })
        : null;
    const order = policies.map((_, i) => i);
    if (parallel) order.sort((a, b) => readsForecasts(policies[a]!) - readsForecasts(policies[b]!));
    const n = workload.work.length;
    const { onProgress } = input;
    const runs = new Array<PolicyRun>(policies.length);
    const { stopRule } = input;
    order.forEach((i, position) => {
      const policy = policies[i]!;
      const stopWhen = stopRule?.({ oracle, demand: workload.requests });
      onProgress?.(policy.name, position / policies.length);
      runs[i] = simulate(policy, {
        scenario,
        workload,
        oracleInstanceMinutes,
        scoreFrom,
        onProgress:
          onProgress && ((done) => onProgress(policy.name, (position + done / n) / policies.length)),
        ...(stopWhen ? { stopWhen } : {}),
      });
    });
    if (sweep) runs.splice(bestRowIndex(runs), 0, sweep.row);
    return resultOf(input, { workload, scenario, oracle, objective, runs, sweep, policies, scoreFrom });
  } finally {
    void parallel?.close();
  }
}

/** The forecasts the governor policy's run asks for, in order (./forecast-thread/forecast-plan.ts). */
function planOf(target: TargetPolicy, scenario: ResolvedScenario, workload: Workload): PlannedForecast[] {
  const options = lookaheadOptions(target, { scenario, work: workload.work });
  if (!options) return [];
  const lead = plannedLead(options.leadMinutes, scenario.coldStartMinutes);
  return plannedForecasts(options, workload.requests, scenario.metricDelayMinutes, lead);
}

/**
 * The forecasts a run of the governor policy over this trace will ask for, in order, and the
 * requests they read: what `governor tune` computes on all its threads at once before its first
 * run.
 */
export function governorForecastPlan(
  trace: Trace,
  target: TargetPolicy,
  options: ScenarioOptions,
): { plan: PlannedForecast[]; requests: number[] } {
  const workload = buildWorkload(trace, options);
  const scenario = buildScenario(workload, options, target.instanceCapacity?.requestsPerMinuteAtSlo);
  return { plan: planOf(target, scenario, workload), requests: workload.requests };
}

/** The forecast thread for this run, or null when the run asks for no forecast. */
function forecastThread(
  target: TargetPolicy,
  scenario: ResolvedScenario,
  workload: Workload,
): ParallelFits | null {
  const plan = planOf(target, scenario, workload);
  return plan.length > 0 ? parallelFits(plan, workload.requests) : null;
}

const readsForecasts = (policy: Policy): number => (policy.forecastBand ? 1 : 0);

interface Ran {
  workload: Workload;
  scenario: ResolvedScenario;
  oracle: number[];
  objective: Objective;
  runs: PolicyRun[];
  sweep: Sweep | null;
  policies: Policy[];
  scoreFrom: number;
}

function resultOf(input: BacktestInput, ran: Ran): BacktestResult {
  const { trace } = input;
  const { workload, scenario, oracle, objective, runs, sweep, policies, scoreFrom } = ran;
  const n = workload.work.length;
  const tokens = tokensPerMinute(trace, workload.requests);
  for (const { summary, series } of runs) {
    Object.assign(
      summary,
      attainmentOf(summary, objective, {
        violationMinutes: series.violationMinutes,
        requests: workload.requests,
        scoreFrom,
      }),
    );
    Object.assign(
      summary,
      unitCost({
        costUsd: summary.costUsd,
        requests: workload.requests,
        tokens,
        violationMinutes: series.violationMinutes,
        scoreFrom,
      }),
    );
  }
  let totalRequests = 0;
  let peak = 0;
  for (const r of workload.requests) {
    totalRequests += r;
    if (r > peak) peak = r;
  }
  const scored = scoreFrom > 0 ? { scoreFrom } : {};
  return {
    trace: {
      name: trace.name,
      minutes: n,
      totalRequests,
      peakRequestsPerMinute: peak,
      resolution: trace.resolution,
      ...scored,
    },
    scenario,
    demand: workload.requests,
    ...(workload.work === workload.requests ? {} : { work: workload.work }),
    oracle,
    ...forecastBand(policies),
    policies: runs,
    slo: judged(objective, runs, sweep, scenario.peakInstances),
  };
}

function objectiveOf(target: TargetPolicy): Objective {
  const { minutes, requests, windowMinutes } = sloOf(target);
  return { minutes, windowMinutes, ...(requests !== undefined ? { requests } : {}) };
}

/** The best-target row goes after the other target tracking rows (before k8s-hpa, static peak, the oracle). */
function bestRowIndex(runs: readonly PolicyRun[]): number {
  let last = -1;
  runs.forEach((r, i) => {
    if (r.summary.name.startsWith('aws-target-tracking')) last = i;
  });
  return last >= 0 ? last + 1 : runs.length;
}

function judged(
  objective: Objective,
  runs: readonly PolicyRun[],
  sweep: Sweep | null,
  peakInstances: number,
): BacktestSlo {
  const governor = runs.find((r) => r.summary.name === 'governor')?.summary;
  const peak = runs.find((r) => r.summary.name === 'static-peak')?.summary;
  if (!sweep) return { objective, sweep: [], best: null, savingAtEqualSlo: null };
  const saving =
    governor?.attainment !== undefined
      ? savingAtEqualSlo(sweep.points, {
          instanceMinutes: governor.instanceMinutes,
          attainment: governor.attainment,
        })
      : null;
  const slo: BacktestSlo = { objective, sweep: sweep.points, best: sweep.best, savingAtEqualSlo: saving };
  if (governor?.attainment === undefined) return slo;
  slo.verdict = judgeSlo({
    objective,
    governor: {
      instanceMinutes: governor.instanceMinutes,
      costVsOracle: governor.costVsOracle,
      attainment: governor.attainment,
      meetsObjective: governor.meetsObjective ?? false,
      ...(governor.traceAttainment !== undefined ? { worstWindow: true } : {}),
    },
    best: sweep.best,
    closest: closestTarget(sweep.points),
    savingAtEqualSlo: saving,
    ...(peak
      ? {
          heldAtPeak: {
            instances: peakInstances,
            costVsOracle: peak.costVsOracle,
            meetsObjective: peak.meetsObjective ?? false,
          },
        }
      : {}),
  });
  return slo;
}
