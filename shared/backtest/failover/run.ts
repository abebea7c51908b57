/**
 * `governor backtest --outage`: every failover strategy on the same trace, scenario and outage,
 * each region run by the governor policy (the backtest's engine adapter, the real decide()), the
 * routing by the failover planner (or Route 53's health check for route-only). Pure apart from
 * the progress callback.
 */
import { maxOf } from '../../arrays/extent.ts';
import { type PolicyFile, plannedRequestsPerInstance, type TargetPolicy } from '../../policy/schema.ts';
import { contentFits } from '../policies/content-fits.ts';
import { buildPolicies } from '../policies/index.ts';
import type { LookaheadFits } from '../policies/lookahead.ts';
import type { Policy } from '../policies/types.ts';
import {
  buildScenario,
  buildWorkload,
  instancesFor,
  oracleCapacity,
  type ResolvedScenario,
  type ScenarioOptions,
  type Workload,
} from '../scenario.ts';
import type { Trace } from '../trace.ts';
import { type Outage, OutageError, type OutageSpec, resolveOutage } from './outage.ts';
import { recoveryMinutes } from './recovery.ts';
import { type FailoverSimResult, type RegionSetup, type Routing, simulateFailover } from './simulate.ts';
import {
  defaultWarmFloor,
  groupSettings,
  mirrorRegion,
  mirrorTarget,
  STRATEGY_NAMES,
  type StrategyName,
  strategyGroup,
} from './strategies.ts';

export interface FailoverBacktestInput {
  trace: Trace;
  target: TargetPolicy;
  /** The policy file, for its own failover group's health and shift settings (absent: defaults). */
  policy?: PolicyFile;
  options: ScenarioOptions;
  outage: OutageSpec;
  /** Warm standby's floor in instances (default: defaultWarmFloor, the policy's). */
  warmFloor?: number;
  only?: readonly StrategyName[];
  onProgress?: (strategy: string, done: number) => void;
}

export interface StrategySummary {
  name: StrategyName;
  /** See recovery.ts; null: not recovered within the trace. */
  recoveryMinutes: number | null;
  violationMinutes: number;
  /** Violation minutes from the outage's start to 60 minutes after its end. */
  outageViolationMinutes: number;
  instanceMinutes: number;
  costUsd: number;
  costVsOracle: number;
  /** (cost - one-region cost) / one-region cost, in percent; null without the one-region run. */
  extraCostPercent: number | null;
  /** Minutes from the outage's start to the first routing change, and to all traffic off it. */
  firstMoveMinutes: number | null;
  failedOverMinutes: number | null;
  regionInstanceMinutes: Record<string, number>;
}

export interface FailoverBacktestResult {
  trace: { name: string; minutes: number; totalRequests: number };
  scenario: ResolvedScenario;
  outage: Outage & { standbyRegion: string };
  warmFloor: number;
  strategies: StrategySummary[];
}

function governorFor(
  target: TargetPolicy,
  scenario: ResolvedScenario,
  work: readonly number[],
  fits?: LookaheadFits,
): Policy {
  const policy = buildPolicies({ scenario, work, ...(fits ? { fits } : {}) }, target).find(
    (p) => p.name === 'governor',
  );
  if (!policy) throw new Error('buildPolicies returned no governor policy');
  return policy;
}

export interface Plan {
  regions: RegionSetup[];
  routing: Routing;
  outage: Outage | null;
}

export function planStrategy(
  name: StrategyName,
  input: FailoverBacktestInput,
  scenario: ResolvedScenario,
  workload: Workload,
  outage: Outage,
  warmFloor: number,
  fits?: LookaheadFits,
): Plan {
  const { target } = input;
  const gov = (t: TargetPolicy) => governorFor(t, scenario, workload.work, fits);
  const primary = (initialReady: number): RegionSetup => ({
    region: target.region,
    targetId: target.id,
    policy: gov(target),
    initialReady,
    minCapacity: Math.max(scenario.minCapacity, target.scaling.minCapacity),
  });
  const all = scenario.initialInstances;
  if (name === 'one-region' || name === 'no-failover') {
    return {
      regions: [primary(all)],
      routing: { kind: 'fixed', weights: { [target.region]: 100 } },
      outage: name === 'one-region' ? null : outage,
    };
  }
  const standbyRegion = mirrorRegion(target.region);
  if (name === 'route-only') {
    const cold = mirrorTarget(target, standbyRegion, true);
    return {
      regions: [
        primary(all),
        { region: standbyRegion, targetId: cold.id, policy: gov(cold), initialReady: 0, minCapacity: 0 },
      ],
      routing: { kind: 'route-only', primary: target.region, standby: standbyRegion },
      outage,
    };
  }
  const { group, targets } = strategyGroup(name, target, groupSettings(input.policy, target.id), warmFloor);
  const mirror = targets[1]!;
  // Each active region starts with the initial fleet for its half: ceil(opening peak / 2 / mu).
  const opening = maxOf(workload.work.slice(0, scenario.coldStartMinutes + 1));
  const half = instancesFor(opening / 2, scenario.mu * scenario.peakInstances, scenario.peakInstances, 1);
  const standbyStart = name === 'pilot-light' ? 0 : Math.max(mirror.scaling.minCapacity, warmFloor);
  return {
    regions: [
      primary(name === 'active-active' ? half : all),
      {
        region: standbyRegion,
        targetId: mirror.id,
        policy: gov(mirror),
        initialReady: name === 'active-active' ? half : standbyStart,
        minCapacity:
          mirror.scaling.minCapacity === 0 ? 0 : Math.max(scenario.minCapacity, mirror.scaling.minCapacity),
      },
    ],
    routing: { kind: 'planner', group },
    outage,
  };
}

/** The run's shared figures: workload, scenario, outage, warm floor, the planned rate and the fits memo. */
export function prepareFailover(input: FailoverBacktestInput) {
  const { trace, target, options } = input;
  if (input.outage.region !== target.region) {
    throw new OutageError(
      `--outage region ${input.outage.region} is not ${target.id}'s region: use ${target.region}:START:DURATION (the primary's region)`,
    );
  }
  const workload = buildWorkload(trace, options);
  const scenario = buildScenario(workload, options, target.instanceCapacity?.requestsPerMinuteAtSlo);
  const outage = resolveOutage(input.outage, workload.requests);
  const warmFloor = Math.min(
    target.scaling.maxCapacity,
    input.warmFloor ?? defaultWarmFloor(input.policy, target),
  );
  const planned = plannedRequestsPerInstance(target);
  const plannedPerInstance = planned !== null ? planned / scenario.policyUnitScale : scenario.mu;
  // Every strategy's primary sees the same demand until the outage: its fits are shared.
  return { workload, scenario, outage, warmFloor, plannedPerInstance, fits: contentFits() };
}

/** One strategy's simulation, with its per-minute series (for tests and charts). */
export function simulateStrategy(
  name: StrategyName,
  input: FailoverBacktestInput,
  prepared = prepareFailover(input),
): FailoverSimResult {
  const { workload, scenario, outage, warmFloor, plannedPerInstance, fits } = prepared;
  const p = planStrategy(name, input, scenario, workload, outage, warmFloor, fits);
  return simulateFailover({ scenario, workload, plannedPerInstance, ...p });
}

export function runFailoverBacktest(input: FailoverBacktestInput): FailoverBacktestResult {
  const { trace, target } = input;
  const prepared = prepareFailover(input);
  const { workload, scenario, outage, warmFloor } = prepared;
  const oracle = oracleCapacity(workload.work, scenario.peakInstances, scenario.minCapacity);
  const oracleInstanceMinutes = oracle.reduce((a, b) => a + b, 0);
  const names = STRATEGY_NAMES.filter((s) => !input.only || input.only.includes(s) || s === 'one-region');
  const runs = names.map((name, i) => {
    input.onProgress?.(name, i / names.length);
    return { name, result: simulateStrategy(name, input, prepared) };
  });
  const reference = runs.find((r) => r.name === 'one-region')!.result.instanceMinutes;
  const summaries = runs
    .filter((r) => !input.only || input.only.includes(r.name))
    .map(({ name, result }) => summarize(name, result, outage, scenario, oracleInstanceMinutes, reference));
  return {
    trace: {
      name: trace.name,
      minutes: workload.requests.length,
      totalRequests: workload.requests.reduce((a, b) => a + b, 0),
    },
    scenario,
    outage: { ...outage, standbyRegion: mirrorRegion(target.region) },
    warmFloor,
    strategies: summaries,
  };
}

function summarize(
  name: StrategyName,
  r: FailoverSimResult,
  outage: Outage,
  scenario: ResolvedScenario,
  oracleInstanceMinutes: number,
  reference: number,
): StrategySummary {
  let violationMinutes = 0;
  let outageViolationMinutes = 0;
  for (let m = 0; m < r.violated.length; m++) {
    if (!r.violated[m]) continue;
    violationMinutes++;
    if (m >= outage.start && m < outage.end + 60) outageViolationMinutes++;
  }
  const primary = r.weights[outage.region]!;
  const base = primary[Math.max(0, outage.start - 1)] ?? 100;
  let firstMove: number | null = null;
  let off: number | null = null;
  for (let m = outage.start; m < outage.end; m++) {
    if (firstMove === null && primary[m] !== base) firstMove = m - outage.start;
    if (off === null && primary[m] === 0) off = m - outage.start;
  }
  const costUsd = (r.instanceMinutes / 60) * scenario.pricePerInstanceHour;
  return {
    name,
    recoveryMinutes: name === 'one-region' ? null : recoveryMinutes(r.served, outage.start),
    violationMinutes,
    outageViolationMinutes,
    instanceMinutes: r.instanceMinutes,
    costUsd,
    costVsOracle: r.instanceMinutes / oracleInstanceMinutes,
    extraCostPercent: (100 * (r.instanceMinutes - reference)) / reference,
    firstMoveMinutes: firstMove,
    failedOverMinutes: off,
    regionInstanceMinutes: r.regionInstanceMinutes,
  };
}
