/**
 * The mix function's decision record: one per target and run, logged as one structured line and
 * written to the state table (pk MIX#<targetId>, sk DECISION#<ISO time>#<decisionId>, TTL
 * expiresAt). It holds the planner's reason codes and sentence, what it planned from (the
 * forecast floor it read, the spot availability, the demand), the plan in force after the run
 * and the one wanted, what happened to the group and to the PLAN item, and the unit cost.
 */
import { expiresAtFor } from '../../shared/apply/records.ts';
import type { RetirementReason } from '../../shared/interruptions/retirements.ts';
import type {
  FallbackDecision,
  FallbackReasonCode,
  FallbackState,
  VariantView,
  VariantWrite,
} from '../../shared/mix/fallback-types.ts';
import type { MixDemand, MixPlan, MixReasonCode, SpotAvailability } from '../../shared/mix/types.ts';
import type { TargetPolicy } from '../../shared/policy/schema.ts';
import type { MixConfig } from './config.ts';
import type { ForecastSource } from './inputs.ts';
import type { MixPorts } from './ports.ts';

/** Where the zones a plan was spread over came from (./zones.ts), in the record's `zones`. */
export interface ZonesUsed {
  /** policy: capacityMix.zones; group: read from it; plan: the plan in force's (the read failed); types: none known. */
  source: 'policy' | 'group' | 'plan' | 'types';
  /** The zones planned over; null: a pool per type across the group's zones. */
  zones: string[] | null;
  detail: string;
}

/** The run's own reason codes, beside the planner's. */
export const MIX_RUN_REASON_CODES = [
  /** Another writer stored the item after this run read it: nothing written, nothing applied. */
  'Superseded',
] as const;
export type MixRunReason = (typeof MIX_RUN_REASON_CODES)[number];

/** What happened to the endpoint this run. */
export type FallbackWrite = 'applied' | 'busy' | 'failed' | 'shadow' | 'killed' | 'none';

/** The fallback's part of the target's mix decision record. */
export interface FallbackRecord {
  action: FallbackDecision['action'] | null;
  reasons: FallbackReasonCode[];
  message: string;
  detail: string;
  write: FallbackWrite;
  /** False when a read, the write or the store failed: the target's record is then failed. */
  ok: boolean;
  stored: 'written' | 'unchanged' | 'conflict' | 'not-written';
  endpointStatus: string | null;
  /** Every variant as read, and what was (or in shadow, would be) written. */
  before: VariantView[];
  after: VariantWrite[] | null;
  /** The state in force after the run: the one stored, or the one before. */
  state: FallbackState | null;
}

/** The retirements' part of a target's mix decision record (./retirements.ts). */
export interface RetirementRecord {
  reasons: RetirementReason[];
  message: string;
  terminated: string[];
  cleared: string[];
  waiting: string[];
  overdue: string[];
  /** Calls that failed this run (their entries kept, retried next run), one line each. */
  failed: string[];
  /** Whether the cleared entries were stored: 'written', 'unchanged' (none to clear), or why not. */
  stored: string;
}

/** Why group writes are withheld this run, or null when Governor is active. */
export type Withheld = 'shadow' | 'kill-switch';

export type MixOutcome =
  /** ec2-asg: the group's MixedInstancesPolicy was set to the plan in force. */
  | 'applied'
  /** ec2-asg: the group already had it; no write. */
  | 'unchanged'
  /** SageMaker (no write), or no plan yet. */
  | 'planned'
  | 'shadow'
  | 'killed'
  /** The adapter refused before writing (one line naming the field and the fix). */
  | 'refused'
  /** The group is mid-update: the next run tries again. */
  | 'busy'
  /** Another run stored its plan first. */
  | 'superseded'
  /** An AWS call failed: nothing stored. */
  | 'failed'
  /** Not started for lack of time (DeadlineReached). */
  | 'deferred';

export interface MixRecord {
  decisionId: string;
  targetId: string;
  targetKind: TargetPolicy['kind'];
  at: string;
  mode: MixConfig['GOVERNOR_MODE'];
  outcome: MixOutcome;
  /**
   * The planner's: the primary reason first, then the modifiers of the plan in force; a run that
   * lost the race for the item puts Superseded first (it changed nothing).
   */
  reasons: (MixReasonCode | MixRunReason)[];
  message: string;
  detail: string;
  changed: boolean;
  forecast: ForecastSource | null;
  availability: SpotAvailability | null;
  demand: MixDemand | null;
  /** The plan in force after this run: the one stored, or the one before when nothing was. */
  plan: MixPlan | null;
  wanted: MixPlan | null;
  group: string | null;
  stored: 'written' | 'unchanged' | 'conflict' | 'not-written';
  requestsLastHour: number | null;
  costPer1kRequestsUsd: number | null;
  /** sagemaker-variant with capacityMix.variantFallback: what the fallback decided and did. */
  fallback: FallbackRecord | null;
  /** ec2-asg with spot: the zones the plan was spread over and where they came from (./zones.ts). */
  zones?: ZonesUsed;
  /** ec2-asg with retirements in flight: what was terminated, cleared and is still waited for. */
  retirements?: RetirementRecord | null;
}

export interface MixTelemetry {
  info(message: string, attributes?: Record<string, unknown>): void;
  warn(message: string, attributes?: Record<string, unknown>): void;
  error(message: string, attributes?: Record<string, unknown>): void;
  /** One structured line per record, and its metrics. */
  record(r: MixRecord): void;
  /**
   * Adds to a control-plane counter, [service] dimension: MixRecordWriteFailures, the records
   * not written to the table (the template alarms on it, as on evaluate's); RetirementsOverdue,
   * retiring instances still waiting for their replacement after an hour (./retirements.ts).
   */
  count?(metric: 'MixRecordWriteFailures' | 'RetirementsOverdue', value: number): void;
}

/** What one run gives each target. */
export interface MixRunContext {
  config: MixConfig;
  ports: MixPorts;
  now: number;
  withheld: Withheld | null;
  recordBase(t: TargetPolicy): Pick<MixRecord, 'decisionId' | 'targetId' | 'targetKind' | 'at' | 'mode'>;
}

/** A record for a target that was not planned: its reads failed, or too little time was left. */
export function unplannedRecord(
  ctx: MixRunContext,
  t: TargetPolicy,
  outcome: 'failed' | 'deferred',
  detail: string,
): MixRecord {
  return {
    ...ctx.recordBase(t),
    outcome,
    reasons: [],
    message: '',
    detail,
    changed: false,
    forecast: null,
    availability: null,
    demand: null,
    plan: null,
    wanted: null,
    group: null,
    stored: 'not-written',
    requestsLastHour: null,
    costPer1kRequestsUsd: null,
    fallback: null,
  };
}

/** The audit item: the record, its keys and a TTL of ttlDays. */
export const mixAuditItem = (r: MixRecord, ttlDays: number): Record<string, unknown> => ({
  pk: `MIX#${r.targetId}`,
  sk: `DECISION#${r.at}#${r.decisionId}`,
  expiresAt: expiresAtFor(r.at, ttlDays),
  ...r,
});
