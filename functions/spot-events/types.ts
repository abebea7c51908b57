/**
 * The spot-events function's types: the SQS batch it takes, the tagged events, the managed
 * groups, each target's report and the batch's result, and the telemetry and dependencies the
 * run is given. No code.
 */
import type { SpotEvent } from '../../shared/interruptions/events.ts';
import type { MixPolicy } from '../../shared/mix/types.ts';
import type { SpotEventsConfig } from './config.ts';
import type { SpotEventsPorts } from './ports.ts';

export interface SqsBatch {
  Records: { messageId: string; body: string }[];
}

/** An event and the SQS message it came in. */
export interface Tagged {
  messageId: string;
  event: SpotEvent;
}

export type IgnoreReason =
  | 'Malformed'
  | 'ForeignAccount'
  | 'ForeignRegion'
  | 'NotManaged'
  /** In no Auto Scaling group now: already detached (a late duplicate), or never in one. */
  | 'NotInGroup'
  | 'NotEc2Instance'
  /** A Health event that is not an upcoming or open scheduledChange: nothing to replace. */
  | 'NotActionable';

/** Why records are returned in batchItemFailures (SQS redelivers them; after 5, the DLQ). */
export type FailReason =
  /** Not one of the four events, or a field out of its shape or bounds: the DLQ keeps it. */
  'Malformed' | 'PolicyUnreadable' | 'LookupFailed' | 'StateUnreadable';

export interface Managed {
  policy: MixPolicy;
  groupName: string;
  region: string;
}

export type Outcome = 'applied' | 'shadow' | 'killed' | 'failed' | 'superseded';

export interface TargetReport {
  targetId: string;
  outcome: Outcome;
  replaced: string[];
  duplicates: number;
  poolsMarked: string[];
  breakerOpened: boolean;
  shifted: boolean;
  failedMessages: string[];
  detail: string;
}

export interface SpotEventsTelemetry {
  info(message: string, attributes?: Record<string, unknown>): void;
  error(message: string, attributes?: Record<string, unknown>): void;
  decision(record: Record<string, unknown>): void;
  count(metric: SpotMetric, value: number): void;
}

export type SpotMetric =
  | 'ReplacementsRequested'
  | 'DuplicatesIgnored'
  | 'ForeignIgnored'
  | 'PoolsMarkedUnavailable'
  | 'SpotBreakerOpened';

export interface SpotEventsDeps {
  config: SpotEventsConfig;
  ports: SpotEventsPorts;
  telemetry: SpotEventsTelemetry;
}

export interface SpotEventsResult {
  batchItemFailures: { itemIdentifier: string }[];
  targets: TargetReport[];
  ignored: Record<IgnoreReason, number>;
}
