/**
 * The reference scenario of BACKTEST.md: its options and defaults, the workload a trace becomes
 * (with the optional noise and token-aware work), the capacity of one instance, the initial
 * fleet and the oracle.
 */
import { isLatencySignal, type TargetPolicy } from '../policy/schema.ts';
import { withPoissonNoise } from './noise.ts';
import { type Trace, TraceError } from './trace.ts';
import type { Scenario } from './types.ts';

export interface ScenarioOptions {
  /** The fleet the busiest minute needs (default 40). */
  peakInstances: number;
  /** Utilization at which p95 reaches the SLO (default 0.8). */
  sloUtilization: number;
  /** Minutes a new GPU instance takes to serve (default 8: about 525 s measured on SageMaker). */
  coldStartMinutes: number;
  /** Minutes an instance from a warm pool takes (default 1). */
  warmStartMinutes: number;
  /** Extra minutes before a minute's datapoint is visible (default 1). */
  metricDelayMinutes: number;
  /** USD per instance-hour (default 1.52, about an ml.g5.2xlarge on SageMaker in us-east-1). */
  pricePerInstanceHour: number;
  /** p95 SLO the latency curve reaches at sloUtilization (default: the policy's, else 2000 ms). */
  sloMs: number;
  /** Token-aware work: weight of an output token against an input token; null: off (default). */
  outputTokenWeight: number | null;
  /** Poisson noise seed; null: off (default). */
  noiseSeed: number | null;
  /** Idle warm-pool instances the governor policy keeps (default 0: none). */
  warmPoolInstances: number;
}

export const DEFAULT_SCENARIO: ScenarioOptions = {
  peakInstances: 40,
  sloUtilization: 0.8,
  coldStartMinutes: 8,
  warmStartMinutes: 1,
  metricDelayMinutes: 1,
  pricePerInstanceHour: 1.52,
  sloMs: 2000,
  outputTokenWeight: null,
  noiseSeed: null,
  warmPoolInstances: 0,
};

/** The p95 SLO of the policy's latency signal, so the simulated latency is in its terms. */
export function policySloMs(target: TargetPolicy): number | undefined {
  const latency = target.signals.find((s) => isLatencySignal(s) && s.metric === 'p95LatencyMs');
  return latency && isLatencySignal(latency) ? latency.sloMs : undefined;
}

/** The reference scenario for a target: DEFAULT_SCENARIO with the SLO of its latency signal. */
export const referenceScenario = (target: TargetPolicy): ScenarioOptions => ({
  ...DEFAULT_SCENARIO,
  sloMs: policySloMs(target) ?? DEFAULT_SCENARIO.sloMs,
});

/** What the simulator replays: counted requests, and the work they bring (same unit). */
export interface Workload {
  requests: number[];
  /** Work per minute in average requests: requests, or tokens rescaled to the same total. */
  work: number[];
}

const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);

/**
 * Token-aware work: minute m weighs input(m) + w x output(m) tokens, rescaled so the trace's
 * total work equals its total requests. A minute of long prompts then loads the fleet more than
 * its request count says, while InvocationsPerInstance still counts requests.
 */
function tokenWork(trace: Trace, requests: readonly number[], weight: number): number[] {
  if (!trace.inputTokens || !trace.outputTokens) {
    throw new TraceError(`${trace.name} has no token columns; drop --output-token-weight`);
  }
  const scale = requests.map((r, m) => (trace.requests[m]! > 0 ? r / trace.requests[m]! : 0));
  const tokens = trace.inputTokens.map((t, m) => (t + weight * trace.outputTokens![m]!) * scale[m]!);
  const total = sum(tokens);
  const perToken = total > 0 ? sum(requests) / total : 0;
  return tokens.map((t) => t * perToken);
}

export function buildWorkload(trace: Trace, options: ScenarioOptions): Workload {
  const requests =
    options.noiseSeed === null ? [...trace.requests] : withPoissonNoise(trace.requests, options.noiseSeed);
  if (requests.every((r) => r === 0)) throw new TraceError(`${trace.name}: the noisy trace has no requests`);
  const work =
    options.outputTokenWeight === null ? requests : tokenWork(trace, requests, options.outputTokenWeight);
  return { requests, work };
}

const max = (xs: readonly number[]): number => {
  let m = 0;
  for (const x of xs) if (x > m) m = x;
  return m;
};

/**
 * Instances that serve `load` at the SLO: ceil(load x peakInstances / peakLoad - 1e-9), at
 * least minCapacity. The 1e-9 keeps float noise from adding an instance: a minute at exactly
 * half the peak with 40 at peak needs 20, not 21 (pinned by tests/backtest/oracle.test.ts).
 */
export function instancesFor(load: number, peakLoad: number, peakInstances: number, minCapacity: number) {
  return Math.max(minCapacity, Math.ceil((load * peakInstances) / peakLoad - 1e-9));
}

/** The oracle: the least capacity that meets the SLO each minute, knowing the future. */
export function oracleCapacity(work: readonly number[], peakInstances: number, minCapacity = 1): number[] {
  const peak = max(work);
  return work.map((w) => instancesFor(w, peak, peakInstances, minCapacity));
}

/** A scenario with its derived figures filled in, as the simulator needs them. */
export type ResolvedScenario = Scenario &
  Required<Pick<Scenario, 'muSat' | 'initialInstances' | 'sloMs' | 'policyUnitScale'>>;

export function buildScenario(
  workload: Workload,
  options: ScenarioOptions,
  policyRequestsPerMinuteAtSlo: number | undefined,
): ResolvedScenario {
  const peak = max(workload.work);
  const mu = peak / options.peakInstances;
  const minCapacity = 1;
  // Minutes 0 .. coldStartMinutes inclusive: what the fleet must serve before any new instance can.
  const opening = workload.work.slice(0, options.coldStartMinutes + 1);
  return {
    peakInstances: options.peakInstances,
    sloUtilization: options.sloUtilization,
    coldStartMinutes: options.coldStartMinutes,
    warmStartMinutes: options.warmStartMinutes,
    metricDelayMinutes: options.metricDelayMinutes,
    minCapacity,
    maxCapacity: 2 * options.peakInstances,
    pricePerInstanceHour: options.pricePerInstanceHour,
    mu,
    muSat: mu / options.sloUtilization,
    initialInstances: instancesFor(max(opening), peak, options.peakInstances, minCapacity),
    sloMs: options.sloMs,
    policyUnitScale: policyRequestsPerMinuteAtSlo === undefined ? 1 : policyRequestsPerMinuteAtSlo / mu,
    outputTokenWeight: options.outputTokenWeight,
    noiseSeed: options.noiseSeed,
    warmPoolInstances: options.warmPoolInstances,
  };
}
