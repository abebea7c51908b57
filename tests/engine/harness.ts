/**
 * Builds policies and snapshots for engine tests and runs timelines (t0, t0 + 1 min, ...).
 * Policies go through the real policy loader, so defaults and cross-field rules apply exactly
 * as they do for an operator's file.
 */
import { decide } from '#shared/engine/decide.ts';
import type {
  ActivationMetric,
  Decision,
  EngineState,
  ReasonCode,
  SignalSnapshot,
} from '#shared/engine/types.ts';
import { policyOrThrow } from '#shared/policy/load.ts';
import type { MetricName, TargetPolicy } from '#shared/policy/schema.ts';

export const T0 = Date.parse('2025-06-02T12:00:00Z');
export const MINUTE = 60_000;
/** Epoch ms of t0 + `minutes`. */
export const at = (minutes: number): number => T0 + minutes * MINUTE;

type Json = Record<string, unknown>;

/**
 * One target policy: an ml.g5 endpoint variant tracking invocationsPerInstance at 100, 1-50
 * instances, every other field at its default unless overridden. `damping` and `panic` merge
 * into the defaults field by field; other keys replace.
 */
export function targetPolicy(overrides: Json = {}): TargetPolicy {
  const { damping, panic, scaling, ...rest } = overrides;
  const target = {
    id: 'chat',
    kind: 'sagemaker-variant',
    region: 'us-east-1',
    endpointName: 'chat-prod',
    scaling: { minCapacity: 1, maxCapacity: 50, ...(scaling as Json | undefined) },
    signals: [{ metric: 'invocationsPerInstance', target: 100 }],
    damping: { ...(damping as Json | undefined) },
    panic: { ...(panic as Json | undefined) },
    ...rest,
  };
  return policyOrThrow({ version: 1, targets: [target] }).targets[0]!;
}

/** An inference component that may scale to zero, woken by total invocations above `threshold`. */
export function zeroPolicy(overrides: Json = {}, threshold = 0): TargetPolicy {
  return targetPolicy({
    kind: 'sagemaker-inference-component',
    endpointName: 'chat-prod',
    inferenceComponentName: 'chat-ic',
    scaling: {
      minCapacity: 0,
      maxCapacity: 20,
      scaleToZero: true,
      activation: { metric: 'invocations', threshold },
    },
    ...overrides,
  });
}

/**
 * Damping that lets the raw recommendation through: one breach acts, the stabilization window
 * is one period, no cooldowns, steps up to +100 or -100 instances. Tests of one behaviour turn
 * on just the damping they study.
 */
export const UNDAMPED = {
  scaleOutBreaches: 1,
  scaleInBreaches: 1,
  scaleInStabilizationSeconds: 60,
  scaleOutCooldownSeconds: 0,
  scaleInCooldownSeconds: 0,
  stepUp: { instances: 100, percent: 0 },
  stepDown: { instances: 100, percent: 0 },
};

export type Values = Partial<Record<MetricName, number>>;

export interface SnapshotSpec {
  now: number;
  desired: number;
  /** Ready instances; defaults to desired (instances ready at once). */
  ready?: number;
  /** Per-instance signal values, or null for a signal that has no datapoint at all. */
  values?: Partial<Record<MetricName, number | null>>;
  /** Age of every datapoint in seconds (default 60: the newest one-minute period). */
  ageSeconds?: number;
  /** Age per metric, overriding ageSeconds. */
  ages?: Values;
  /** Instances every per-instance value was averaged over (Reading.basis), when known. */
  basis?: number;
  activation?: Partial<Record<ActivationMetric, number>>;
  forecastFloor?: number;
  floorKind?: 'forecast' | 'level';
  floorFallback?: 'recent-level' | 'naive-day';
  leadTime?: SignalSnapshot['leadTime'];
  noise?: SignalSnapshot['noise'];
  failoverFloor?: SignalSnapshot['failoverFloor'];
  mixFloor?: SignalSnapshot['mixFloor'];
  burstFloor?: SignalSnapshot['burstFloor'];
  committedFloor?: SignalSnapshot['committedFloor'];
  budgetCeiling?: SignalSnapshot['budgetCeiling'];
  spotHeadroom?: SignalSnapshot['spotHeadroom'];
  headroomFactor?: number;
}

export function snapshot(spec: SnapshotSpec): SignalSnapshot {
  const age = (m: MetricName) => (spec.ages?.[m] ?? spec.ageSeconds ?? 60) * 1000;
  const snap: SignalSnapshot = {
    capacity: { desired: spec.desired, ready: spec.ready ?? spec.desired },
    readings: {},
  };
  for (const [metric, value] of Object.entries(spec.values ?? {}) as [MetricName, number | null][]) {
    if (value === null) continue;
    snap.readings[metric] = { value, timestamp: spec.now - age(metric) };
    if (spec.basis !== undefined) snap.readings[metric].basis = spec.basis;
  }
  if (spec.activation) {
    snap.activation = {};
    for (const [metric, value] of Object.entries(spec.activation) as [ActivationMetric, number][]) {
      snap.activation[metric] = { value, timestamp: spec.now - (spec.ageSeconds ?? 60) * 1000 };
    }
  }
  if (spec.forecastFloor !== undefined)
    snap.forecastFloor = {
      capacity: spec.forecastFloor,
      quantile: 'p90',
      ...(spec.floorKind ? { kind: spec.floorKind } : {}),
      ...(spec.floorFallback ? { fallback: spec.floorFallback } : {}),
    };
  if (spec.leadTime) snap.leadTime = spec.leadTime;
  if (spec.noise) snap.noise = spec.noise;
  if (spec.failoverFloor) snap.failoverFloor = spec.failoverFloor;
  if (spec.mixFloor) snap.mixFloor = spec.mixFloor;
  if (spec.burstFloor) snap.burstFloor = spec.burstFloor;
  if (spec.committedFloor) snap.committedFloor = spec.committedFloor;
  if (spec.budgetCeiling) snap.budgetCeiling = spec.budgetCeiling;
  if (spec.spotHeadroom) snap.spotHeadroom = spec.spotHeadroom;
  if (spec.headroomFactor !== undefined) snap.headroomFactor = spec.headroomFactor;
  return snap;
}

/** One evaluation of a timeline: minutes after t0, what the signals read, what must come out. */
export interface Tick {
  t: number;
  values: Partial<Record<MetricName, number | null>>;
  /** Capacity before this tick; defaults to the previous tick's desired capacity. */
  current?: number;
  ready?: number;
  ageSeconds?: number;
  activation?: Partial<Record<ActivationMetric, number>>;
  forecastFloor?: number;
  floorKind?: 'forecast' | 'level';
  floorFallback?: 'recent-level' | 'naive-day';
  leadTime?: SignalSnapshot['leadTime'];
  noise?: SignalSnapshot['noise'];
  failoverFloor?: SignalSnapshot['failoverFloor'];
  mixFloor?: SignalSnapshot['mixFloor'];
  burstFloor?: SignalSnapshot['burstFloor'];
  committedFloor?: SignalSnapshot['committedFloor'];
  budgetCeiling?: SignalSnapshot['budgetCeiling'];
  spotHeadroom?: SignalSnapshot['spotHeadroom'];
  headroomFactor?: number;
  /** [desired capacity, reason codes] the engine must return (compared by the test). */
  expect?: [number, ReasonCode[]];
}

export interface TimelineRun {
  /** [desired, reasons] per tick, comparable with the ticks' `expect`. */
  outcomes: [number, ReasonCode[]][];
  decisions: Decision[];
  states: EngineState[];
}

/** Runs ticks in order, carrying the engine state as the shell would; capacity follows decisions. */
export function runTimeline(
  policy: TargetPolicy,
  start: number,
  ticks: readonly Tick[],
  state?: EngineState,
): TimelineRun {
  let current = start;
  let carried = state;
  const run: TimelineRun = { outcomes: [], decisions: [], states: [] };
  for (const tick of ticks) {
    current = tick.current ?? current;
    // Every field of a tick but its time, its capacity and its expectation describes the snapshot.
    const { t, current: _given, expect: _expected, ...inputs } = tick;
    const snap = snapshot({ now: at(t), desired: current, ...inputs });
    const { decision, state: next } = decide(carried, snap, policy, at(tick.t));
    run.outcomes.push([decision.desiredCapacity, decision.reasons]);
    run.decisions.push(decision);
    run.states.push(next);
    carried = next;
    current = decision.desiredCapacity;
  }
  return run;
}

/** `count` ticks one minute apart from minute `from`, all reading `values`, all expecting `expect`. */
export function repeat(
  from: number,
  count: number,
  values: Tick['values'],
  expect: Tick['expect'],
  extra: Partial<Tick> = {},
): Tick[] {
  return Array.from({ length: count }, (_, i) => ({ t: from + i, values, expect, ...extra }));
}

/** fast-check runs per property: 10,000 on CI (`CI` set), 500 locally to keep the loop fast. */
export const propertyRuns = (): number => (process.env.CI ? 10_000 : 500);
