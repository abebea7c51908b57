/**
 * Region failover's values: what the planner is given each period (an observation per region),
 * what it keeps between periods (state, stored by the shell as it is), and what it returns
 * (actions as data and a decision that explains itself). docs/failover.md is the prose.
 *
 * Weights are percents of the group's traffic keyed by region, whole numbers summing to 100.
 * Times are epoch milliseconds.
 */
import * as z from 'zod';
import type { Reading } from '../engine/types.ts';

export type Weights = Record<string, number>;

/**
 * One region's readings this period; any may be absent (its period is then unknown, never
 * breaching). errorRatePercent and p95LatencyMs come from the region's own requests: a region the
 * weights send nothing has none to publish (SageMaker writes no Invocations datapoint for an idle
 * endpoint), so missing there, with every other signal fresh and within, is `idle` (./health.ts).
 */
export interface RegionObservation {
  /** 5xx responses as a percent of requests. */
  errorRatePercent?: Reading;
  p95LatencyMs?: Reading;
  /** Capacity errors (InsufficientCapacity and the like) counted in the period. */
  capacityErrors?: Reading;
  /** The region's Governor heartbeat: when it last beat, and when the shell read it. */
  heartbeat?: { lastBeatAt: number; readAt: number };
  /** The member target's capacity now, in instances. */
  capacity?: { desired: number; ready: number };
  /** Recent demand on the member target, in instances (same instance type in every region). */
  demand?: { forecastP90Instances?: number; recentPeakInstances?: number };
}

export interface FailoverObservation {
  regions: Record<string, RegionObservation>;
}

/**
 * 'idle': the region had no traffic share (weight 0) and only its traffic signals (error rate,
 * p95) were missing, every other signal fresh and within: nothing to measure, nothing wrong seen.
 */
export const PERIOD_VERDICTS = ['ok', 'breach', 'unknown', 'idle'] as const;
export type PeriodVerdict = (typeof PERIOD_VERDICTS)[number];
export type HealthStatus = 'healthy' | 'idle' | 'degraded' | 'failed' | 'unknown';

export const REGION_REASON_CODES = [
  'RegionHealthy',
  'RegionDegraded',
  'RegionFailed',
  'RegionUnknown',
  'RegionIdle',
  'RegionRecovered',
] as const;
export type RegionReasonCode = (typeof REGION_REASON_CODES)[number];

/** One region's health this period, from its last periods (./health.ts). */
export interface RegionHealth {
  region: string;
  status: HealthStatus;
  /** The last recoverPeriods periods were all healthy, with no gap. */
  recovered: boolean;
  /** This period's verdict. */
  verdict: PeriodVerdict;
  /** Breaching periods in the last failWindowPeriods. */
  breaches: number;
  /** Consecutive healthy periods up to this one. */
  okStreak: number;
  /** The signals that breached this period, as phrases ("errorRatePercent 9.2 > 5"). */
  breaching: string[];
  /** The signals that were missing or stale this period. */
  missing: string[];
  reasons: RegionReasonCode[];
  message: string;
}

export const PHASES = ['steady', 'prescaling', 'shifting', 'failed-over', 'halted'] as const;
export type Phase = (typeof PHASES)[number];

export const FAILOVER_REASON_CODES = [
  'Steady',
  'StandbyUnhealthy',
  'AllRegionsUnhealthy',
  'FailoverDwell',
  'FailoverStarted',
  'FailbackStarted',
  'DemandUnknown',
  'PrescaleClampedToMax',
  'PrescaleWaiting',
  'PrescaleResized',
  'ReceiverIdle',
  'SourceServesNothing',
  'ShiftAwaitingCapacity',
  'StandbyCapacityUnavailable',
  'StandbyCapacityRecovered',
  'ShiftStep',
  'ShiftCheckHolding',
  'ShiftCheckUnknown',
  'ShiftRolledBack',
  'FailedOver',
  'FailedBack',
  'FailbackDwell',
  'FailbackAwaitingRecovery',
  'SourceRecovered',
  'InvariantHeld',
] as const;
export type FailoverReasonCode = (typeof FAILOVER_REASON_CODES)[number];

const weightsSchema = z.record(z.string(), z.number().int().min(0).max(100));

/** What the planner keeps between periods; the shell stores it (DynamoDB) as it is. */
export const FailoverStateSchema = z
  .object({
    version: z.literal(1),
    phase: z.enum(PHASES),
    /** Per region: [period start, verdict], oldest first, the last max(M, R) periods. */
    health: z.record(z.string(), z.array(z.tuple([z.number(), z.enum(PERIOD_VERDICTS)]))),
    /** The weights last applied. */
    weights: weightsSchema,
    /** 'failover' moves traffic off `source`; 'failback' returns it. Null in steady. */
    direction: z.enum(['failover', 'failback']).nullable(),
    /** The region whose traffic is moving (the failed one), or null. */
    source: z.string().nullable(),
    /** Regions taking the source's traffic, with their share of it (percents summing to 100). */
    shares: weightsSchema.nullable(),
    /** Index into shift.stepsPercent of the step applied; -1 = none yet. */
    step: z.number().int().min(-1),
    /** When the current phase began. */
    phaseSince: z.number().nullable(),
    /** Since when the regions receiving traffic have been healthy without a break (the check clock). */
    checkSince: z.number().nullable(),
    /** Instances each receiving target must have ready before the first step, by target id. */
    needed: z.record(z.string(), z.number().int().min(0)).nullable(),
    /** When the last failover started (the dwell clock), and when the last one completed. */
    lastFailoverAt: z.number().nullable(),
    failedOverAt: z.number().nullable(),
  })
  .strict();
export type FailoverState = z.infer<typeof FailoverStateSchema>;

/** Route 53 weighted records: set each region's record weight (0-100 here; Route 53 allows 255). */
export interface SetWeightsAction {
  kind: 'set-weights';
  groupId: string;
  weights: Weights;
}
/** ARC: routing controls of the regions with weight > 0 on, the rest off. `on` is never empty. */
export interface SetRoutingControlsAction {
  kind: 'set-routing-controls';
  groupId: string;
  on: string[];
  off: string[];
  weights: Weights;
}
/** Global Accelerator: each endpoint group's traffic dial (0-100), from the weights (./routing.ts). */
export interface SetDialsAction {
  kind: 'set-dials';
  groupId: string;
  dials: Record<string, number>;
  weights: Weights;
}
export type RoutingAction = SetWeightsAction | SetRoutingControlsAction | SetDialsAction;

/** Raise a target to `desired` instances now (idempotent: the shell sets desired = max(current, this)). */
export interface PrescaleAction {
  kind: 'prescale';
  groupId: string;
  targetId: string;
  region: string;
  desired: number;
}
/** Page a human: raised once when entering the state it names. */
export interface AlarmAction {
  kind: 'alarm';
  groupId: string;
  code: 'StandbyCapacityUnavailable';
  message: string;
}
export type FailoverAction = RoutingAction | PrescaleAction | AlarmAction;

export interface FailoverDecision {
  groupId: string;
  at: number;
  phase: Phase;
  previousPhase: Phase;
  /** The primary reason first. */
  reasons: FailoverReasonCode[];
  message: string;
  weights: Weights;
  health: Record<string, RegionHealth>;
}

export interface FailoverStepResult {
  state: FailoverState;
  actions: FailoverAction[];
  decision: FailoverDecision;
  /**
   * Capacity floors by target id that each member's own decide() must respect this period (the
   * evaluator raises its decision to them, as to a forecast floor): the standby's warm floor in
   * steady, the prescale target while traffic is moving or moved.
   */
  floors: Record<string, number>;
}
