/** What one target's evaluation works with: the invocation's context and the target's reads. */

import type { Conflict } from '../../shared/apply/conflicts.ts';
import type { Plan } from '../../shared/apply/plan.ts';
import type { RecordInputs, Trigger } from '../../shared/apply/records.ts';
import type { Capacity } from '../../shared/aws/capacity.ts';
import type { Decision, EngineState } from '../../shared/engine/types.ts';
import type { LeadSample } from '../../shared/floors/lead-time.ts';
import type { TimeLeft } from '../../shared/invocation/budget.ts';
import type { Config, Mode } from '../../shared/invocation/config.ts';
import type { TargetReadings } from '../../shared/signals/readings.ts';
import type { StoredState } from '../../shared/state/item.ts';
import type { StoredSlo } from '../../shared/state/slo.ts';
import type { FailoverFloorInput } from './failover-floor.ts';
import type { HeldPlan, MixPlanInput } from './mix-plan.ts';
import type { Ports } from './ports.ts';
import type { Telemetry } from './telemetry.ts';

export interface TargetContext {
  config: Config;
  mode: Mode;
  ports: Ports;
  telemetry: Telemetry;
  now: number;
  /** The kill switch is on (shared/invocation/kill-switch.ts: anything but "off", missing, unreadable). */
  killSwitch: boolean;
  /** Why the switch is on when not simply "on" (missing, unreadable, another value), for the record. */
  killSwitchWhy?: string;
  /** The raw value judged off, passed to the state machine, which re-checks it (null when on). */
  killSwitchValue: string | null;
  /** Milliseconds left before the invocation's deadline (shared/invocation/budget.ts). */
  leftMs: TimeLeft;
  trigger: Trigger;
  newId: (now: number) => string;
  /** Waits between claim attempts: 10-50 ms x attempt, jittered, so losers do not collide again. */
  backoff: (attempt: number) => Promise<void>;
}

export interface TargetInputs {
  capacity: Capacity | Error;
  conflict: Conflict | null | Error;
  readings: TargetReadings | undefined;
  /**
   * The state item as the tick's batched read found it (item undefined: none yet); absent when
   * it was not read in the batch, and the first attempt reads it with GetItem. Either way the
   * claim's version condition decides: a stale read loses the claim and is read again.
   */
  stored?: { item: Record<string, unknown> | undefined };
  /** A failover group member's floor (./failover-floor.ts); absent for a target in no group. */
  failoverFloor?: FailoverFloorInput;
  /** The capacity mix plan in force and the budget's ceiling (./mix-plan.ts); absent without capacityMix. */
  mixPlan?: HeldPlan;
}

/** The record's inputs, with the failover floor of a failover group's member and the mix plan's limits. */
export type EvaluatedInputs = RecordInputs & { failoverFloor?: FailoverFloorInput; mixPlan?: MixPlanInput };

export interface Attempt {
  stored: StoredState;
  capacity: Capacity;
  decision: Decision;
  next: EngineState;
  plan: Plan;
  decisionId: string;
  inputs: EvaluatedInputs;
  /** The last scale-out, seen serving now: recorded in `leadTimes` by this attempt's claim. */
  leadSample: LeadSample | null;
  /** The error budget's ledger and headroom for the claim (./slo.ts); null without an SLO control. */
  slo: { write: StoredSlo; changed: boolean } | null;
}
