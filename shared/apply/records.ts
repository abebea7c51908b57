/**
 * The decision record: one per evaluated target, logged as one structured line and written to
 * DynamoDB as the audit item (`pk=TARGET#<id>`, `sk=DECISION#<ISO time>#<decisionId>`, TTL
 * `expiresAt`). It holds the inputs (capacity, readings, other scalers, kill switch), the
 * decision with its reason codes and sentence, the action and its outcome. No secrets: only
 * resource names, numbers and codes.
 */
import type { Decision, Reading } from '../engine/types.ts';
import type { NoisePick } from '../floors/noise.ts';
import type { Mode } from '../invocation/config.ts';
import type { MetricName, TargetPolicy } from '../policy/schema.ts';
import { targetPk } from '../state/item.ts';
import type { SloInput } from '../state/slo.ts';
import type { Outcome } from './plan.ts';

export interface Trigger {
  event: 'tick' | 'alarm';
  eventId: string;
  alarmName?: string;
}

export interface RecordInputs {
  /** What the engine saw: desired may be a pending request the live API does not show yet. */
  capacity: { desired: number; ready: number; liveDesired: number; status: string } | null;
  readings: Record<string, Reading>;
  activation: Record<string, Reading>;
  /**
   * The floor applied now: the step's capacity, its quantile, when it was made (epoch ms), and
   * its kind: forecast, or level (the last level plus its noise, before a forecast exists).
   */
  forecastFloor: {
    capacity: number;
    quantile: string;
    computedAt: number;
    kind?: 'forecast' | 'level';
    /** The simpler forecaster the floor came from, when the forecast fell back to one. */
    fallback?: 'recent-level' | 'naive-day';
    /** The step's forecast band, p90 / p50, when the floor stores one (the forecast room reads it). */
    bandRatio?: number;
  } | null;
  /**
   * The lead time the applied floor was planned over (null with no floor): the policy's
   * leadTimeMinutes (source configured) or the measured one above it (source measured), and the
   * measured scale-outs behind it (shared/floors/lead-time.ts).
   */
  leadTime: {
    minutes: number;
    configuredMinutes: number;
    samples: number;
    source: 'configured' | 'measured';
  } | null;
  /** The measured noise the engine had (null: noise off, or none stored); see NoiseInput. */
  noise: NoiseInput | null;
  killSwitch: boolean;
  conflict: string | null;
  /** The error budget read this evaluation (targets with an SLO control only; shared/state/slo.ts). */
  slo?: SloInput;
}

/**
 * The measured noise in a decision record: the model (Var = a x level + b x level^2, requests a
 * minute), when it was fitted and its age in minutes; `stale` when it was too old to use (the
 * band kept its tolerance). `bands` names each signal whose dead band the engine widened, with
 * its tolerance and the band it used (fractions of the target): { invocationsPerInstance:
 * { tolerance: 0.1, band: 0.23 } } reads "within +-23 % instead of +-10 %".
 */
export interface NoiseInput {
  status: 'used' | 'stale';
  a: number;
  b: number;
  samples: number;
  computedAt: number;
  ageMinutes: number;
  bands: Partial<Record<MetricName, { tolerance: number; band: number }>>;
}

/** The record's noise from what the evaluator picked and what the engine did with it. */
export function noiseInput(
  t: TargetPolicy,
  pick: NoisePick,
  decision: Pick<Decision, 'signals'>,
): NoiseInput | null {
  if (pick.kind === 'noise') {
    const bands: NoiseInput['bands'] = {};
    for (const s of decision.signals) {
      const signal = t.signals.find((p) => p.metric === s.metric);
      if (s.noiseBand !== undefined && signal && 'tolerance' in signal)
        bands[s.metric] = { tolerance: signal.tolerance, band: s.noiseBand };
    }
    const { a, b, samples } = pick.model;
    return { status: 'used', a, b, samples, computedAt: pick.computedAt, ageMinutes: pick.ageMinutes, bands };
  }
  if (pick.reason !== 'Stale') return null;
  const { a, b, samples } = pick.model;
  return {
    status: 'stale',
    a,
    b,
    samples,
    computedAt: pick.computedAt,
    ageMinutes: pick.ageMinutes,
    bands: {},
  };
}

export type RecordAction =
  | { type: 'start-state-machine'; executionName: string; desiredCapacity: number; previousCapacity: number }
  | { type: 'set-desired-capacity'; desiredCapacity: number; previousCapacity: number }
  | null;

export interface DecisionRecord {
  decisionId: string;
  targetId: string;
  targetKind: TargetPolicy['kind'];
  at: string;
  mode: Mode;
  trigger: Trigger;
  /** null when the evaluation failed before a decision (capacity or state unreadable). */
  decision: Decision | null;
  inputs: RecordInputs;
  action: RecordAction;
  /**
   * What this evaluation suspended (onConflictingScaler: suspend): the Application Auto Scaling
   * resource id of a SageMaker target, or the name of a group whose AlarmNotification it suspended.
   */
  suspended: string | null;
  /**
   * What the kill switch's release resumed this evaluation (functions/evaluate/release.ts): the
   * Application Auto Scaling resource id or the group name; absent when the switch was not on release.
   */
  resumed?: string | null;
  outcome: Outcome;
  detail: string;
  /** Evaluations lost to concurrent ones before this one won its conditional write. */
  retries: number;
  /** The scale-out this evaluation saw serve and recorded in `leadTimes` (epoch ms), when it did. */
  leadSample?: { requestedAt: number; servingAt: number; minutes: number };
}

/** The evaluate function's default AUDIT_TTL_DAYS (shared/invocation/config.ts), for callers without a config. */
export const DEFAULT_AUDIT_TTL_DAYS = 30;

/** Epoch seconds ttlDays after an ISO time: DynamoDB's TTL unit. 2025-06-02T12:00:00Z + 30 d -> 1751457600. */
export const expiresAtFor = (at: string, ttlDays: number): number =>
  Math.floor(Date.parse(at) / 1000) + ttlDays * 86_400;

export const auditSk = (at: string, decisionId: string) => `DECISION#${at}#${decisionId}`;

/** The audit item: the record plus keys and a TTL of ttlDays (epoch seconds, DynamoDB's unit). */
export function auditItem(record: DecisionRecord, ttlDays: number): Record<string, unknown> {
  const expiresAt = expiresAtFor(record.at, ttlDays);
  return { pk: targetPk(record.targetId), sk: auditSk(record.at, record.decisionId), expiresAt, ...record };
}

/** The scale-target state machine's input (the contract with statemachines/scale-target.asl.json). */
export interface ScaleTargetInput {
  decisionId: string;
  targetId: string;
  kind: 'sagemaker-variant' | 'sagemaker-inference-component';
  endpointName: string;
  variantName?: string;
  inferenceComponentName?: string;
  desiredCapacity: number;
  previousCapacity: number;
  requestedAt: string;
  /**
   * Epoch seconds: the outcome item's TTL (ASL in JSONPath cannot compute it from requestedAt).
   * scaleTargetInput always sets it; the state machine treats it as optional.
   */
  expiresAt?: number;
  /**
   * The kill switch's raw value, which the evaluator judged off (shared/invocation/kill-switch.ts).
   * The state machine sends the change only while the parameter still holds exactly this value:
   * JSONPath cannot trim or lower-case, so any write to the switch since stops the change.
   */
  killSwitchValue: string;
  /**
   * The other scaler to suspend first (onConflictingScaler: suspend): the state machine calls
   * RegisterScalableTarget with both dynamic-scaling directions suspended right before the
   * change, after its kill-switch and generation checks.
   */
  suspend?: { resourceId: string; scalableDimension: string };
}

/** What the execution must check before it acts: the switch value judged off, a scaler to suspend. */
export interface ExecutionGuard {
  killSwitchValue: string;
  suspend?: { resourceId: string; scalableDimension: string };
}

export function scaleTargetInput(
  target: TargetPolicy,
  decisionId: string,
  desired: number,
  previous: number,
  at: string,
  ttlDays: number = DEFAULT_AUDIT_TTL_DAYS,
  guard: ExecutionGuard = { killSwitchValue: 'off' },
): ScaleTargetInput {
  const common = {
    decisionId,
    targetId: target.id,
    desiredCapacity: desired,
    previousCapacity: previous,
    requestedAt: at,
    expiresAt: expiresAtFor(at, ttlDays),
    killSwitchValue: guard.killSwitchValue,
    ...(guard.suspend ? { suspend: guard.suspend } : {}),
  };
  switch (target.kind) {
    case 'sagemaker-variant':
      return {
        ...common,
        kind: target.kind,
        endpointName: target.endpointName,
        variantName: target.variantName,
      };
    case 'sagemaker-inference-component':
      return {
        ...common,
        kind: target.kind,
        endpointName: target.endpointName,
        inferenceComponentName: target.inferenceComponentName,
      };
    case 'ec2-asg':
      throw new Error(`target ${target.id}: Auto Scaling groups are set directly, not by the state machine`);
  }
}

/**
 * A decision id that sorts by time and is a valid Step Functions execution name (at most 80
 * characters of letters, digits, - and _): `20250101T120000123Z-<8 hex>`.
 */
export function newDecisionId(now: number, random: () => number = Math.random): string {
  const stamp = new Date(now).toISOString().replace(/[-:.]/g, '');
  const suffix = Math.floor(random() * 0x1_0000_0000)
    .toString(16)
    .padStart(8, '0');
  return `${stamp}-${suffix}`;
}
