/**
 * The decision engine's values: what it is given (a snapshot of signals and capacity), what it
 * keeps between periods (state), and what it returns (a decision that explains itself).
 */
import * as z from 'zod';
import type { MetricName } from '../policy/schema.ts';
import type { NoiseModel } from '../sizing/noise-model.ts';

/** One reading of a signal: its newest datapoint. Times are epoch milliseconds. */
export interface Reading {
  value: number;
  timestamp: number;
  /**
   * Ready instances the per-instance value was averaged over, when known. CloudWatch's
   * per-instance metrics lag the fleet by a period or two; multiplying a lagged per-instance
   * value by today's fleet over-counts demand right after new instances arrive, so the engine
   * uses this basis when given and the current ready count otherwise.
   */
  basis?: number;
}

export type * from './floor-types.ts';

import type {
  BudgetCeiling,
  BurstFloorRecord,
  CommittedFloor,
  FailoverFloor,
  MixFloor,
} from './floor-types.ts';

export type ActivationMetric = 'queueDepth' | 'invocations' | 'concurrency';

export interface SignalSnapshot {
  capacity: {
    /** The capacity the target is set to now (ready + still starting). */
    desired: number;
    /** Instances in service now. */
    ready: number;
  };
  readings: Partial<Record<MetricName, Reading>>;
  /** Totals (not per instance) for activation from and to zero. */
  activation?: Partial<Record<ActivationMetric, Reading>>;
  /**
   * A capacity floor for now: from the forecast over the lead time, or, before a forecast exists,
   * the last level plus its measured noise (kind 'level'; absent kind: 'forecast').
   */
  forecastFloor?: {
    capacity: number;
    quantile: string;
    kind?: 'forecast' | 'level';
    /** The simpler forecaster the floor came from, when the seasonal model had lately scored worse. */
    fallback?: 'recent-level' | 'naive-day';
  };
  /**
   * The error budget's burst floor (shared/slo/burst-floor.ts), while it stands: a floor like the
   * forecast floor (the budget ceiling caps it), for bursts shorter than a scale-out.
   */
  burstFloor?: BurstFloorRecord;
  /**
   * The lead time the forecast floor was planned over: the policy's leadTimeMinutes, or more
   * when the target's measured scale-outs took longer (shared/floors/lead-time.ts).
   */
  leadTime?: { minutes: number; configuredMinutes: number; samples: number };
  /**
   * The error budget's factor the policy's load targets were multiplied by before decide() got
   * them (shared/slo/headroom.ts; absent: 1, the targets as written). Below 1, a panic in its
   * first lead time is sized at the written targets (./young-burst.ts).
   */
  headroomFactor?: number;
  /**
   * The capacity a failover group holds this target at (shared/failover/plan.ts capacityFloors,
   * read from the group's FAILOVER# item): a standby's warm floor in steady, the prescale while
   * traffic moves or has moved. Its own scale-in never goes below it.
   */
  failoverFloor?: FailoverFloor;
  /**
   * The capacity mix's loss cover (shared/mix/shift.ts lossCoverFloor under the plan the mix
   * function stored): the least capacity that, after losing its largest spot pool, still serves
   * the forecast. A floor, like the failover floor: it wins over the budget ceiling.
   */
  mixFloor?: MixFloor;
  /**
   * The committed base of the capacity mix plan in force (its `committed`: the on-demand
   * instances the commitment covers). Paid whether they run or not, so the fleet never runs
   * fewer: idle commitment is headroom bought already. A floor: it wins over the budget ceiling.
   */
  committedFloor?: CommittedFloor;
  /**
   * Spot instances to hold beyond the capacity the engine decides (capacityMix.spot.overProvision),
   * given while the capacity mix plan in force runs spot: headroom on top of what the signals and
   * the forecast floor ask, within the budget ceiling (./spot-headroom.ts). Absent: none.
   */
  spotHeadroom?: { instances: number };
  /**
   * The most the target's budget (capacityMix.maxUsdPerHour) pays for, grown from the plan in
   * force the way its MixedInstancesPolicy grows (shared/mix/shift.ts affordableCapacity). It caps
   * scale-out only (what signals and the forecast floor ask for); it never causes a scale-in, and
   * the mix and failover floors and minCapacity win over it. Absent: no ceiling, and decide()
   * is what it was before ceilings existed (tests/engine/ceiling.test.ts).
   */
  budgetCeiling?: BudgetCeiling;
  /**
   * Measured noise of demand around its level, in the policy's request units (Var = a x level +
   * b x level^2, shared/sizing/noise-model.ts): widens the invocationsPerInstance band.
   */
  noise?: NoiseModel;
}

export const REASON_CODES = [
  'WithinBand',
  'NoData',
  'PartialData',
  'ScaleOutBreach',
  'ScaleOutAwaitingBreaches',
  'CapacityPending',
  'LatencyGuard',
  'BreachPeak',
  'PanicScaleOut',
  'PanicHold',
  'PanicAtWrittenTargets',
  'ScaleInBreach',
  'ScaleInAwaitingBreaches',
  'ScaleInStabilized',
  'ScaleInBlockedByLatency',
  'ScaleInBlockedByMissingData',
  'ScaleOutCooldown',
  'ScaleInCooldown',
  'StepLimitUp',
  'StepLimitDown',
  'ClampedToMin',
  'ClampedToMax',
  'ActivationFromZero',
  'IdleAtZero',
  'ScaleToZero',
  'ForecastFloor',
  'LeadTimeMeasured',
  'ForecastFallback',
  'BurstFloor',
  'FailoverFloor',
  'MixPlanFloor',
  'CommittedFloor',
  'SpotHeadroom',
  'BudgetCapped',
  'BudgetBurning',
  'BudgetSpare',
  'BudgetExhausted',
  'SpareRoomClosed',
  'ForecastConfident',
] as const;
export type ReasonCode = (typeof REASON_CODES)[number];

export type SignalStatus = 'high' | 'within' | 'low' | 'missing' | 'guarding';

/** How one configured signal was read this period. */
export interface SignalAssessment {
  metric: MetricName;
  /** 'load' signals track a per-instance target; 'latency' signals guard an SLO. */
  kind: 'load' | 'latency';
  status: SignalStatus;
  value: number | null;
  /** The target (or the SLO, for latency). */
  target: number;
  /** value / target; null when missing. */
  ratio: number | null;
  /** Capacity this signal alone asks for; null when missing or when it has no opinion. */
  proposal: number | null;
  ageSeconds: number | null;
  /** The dead band, when measured noise widened it beyond the signal's tolerance (a fraction of target). */
  noiseBand?: number;
}

export type Action = 'hold' | 'scale-out' | 'scale-in';

export interface Decision {
  targetId: string;
  at: number;
  action: Action;
  currentCapacity: number;
  desiredCapacity: number;
  /** The primary reason first, then every limiting step that shaped the result. */
  reasons: ReasonCode[];
  message: string;
  signals: SignalAssessment[];
  panic: boolean;
  /** Where the floor came from, when one applied: see SignalSnapshot.forecastFloor. */
  floorKind?: 'forecast' | 'level';
  /** The simpler forecaster a forecast floor came from, when there was a fallback. */
  floorFallback?: 'recent-level' | 'naive-day';
  /** The lead time the floor was planned over, when the snapshot said (see SignalSnapshot.leadTime). */
  leadTime?: { minutes: number; configuredMinutes: number; samples: number };
  /**
   * A panic met at the written targets (./young-burst.ts): the error budget's factor, how long
   * the load has been at the panic threshold and the lead time it is held within (minutes), and
   * the capacity the written targets ask for.
   */
  youngBurst?: { factor: number; minutes: number; leadMinutes: number; capacity: number };
  /** The burst floor, when one stood (see SignalSnapshot.burstFloor). */
  burstFloor?: BurstFloorRecord;
  /** The failover floor, when one was given (see SignalSnapshot.failoverFloor). */
  failoverFloor?: FailoverFloor;
  /** The capacity mix plan's floor, when one was given (see SignalSnapshot.mixFloor). */
  mixFloor?: MixFloor;
  /** The committed base held, when one was given (see SignalSnapshot.committedFloor). */
  committedFloor?: CommittedFloor;
  /** The budget's ceiling, when one was given (see SignalSnapshot.budgetCeiling). */
  budgetCeiling?: BudgetCeiling;
  /** The spot headroom asked (SignalSnapshot.spotHeadroom) and the extra instances held this period. */
  spotHeadroom?: { instances: number; held: number };
  /**
   * The error-budget control's headroom this period (shared/slo/control.ts), when the target has
   * an SLO objective: the factor its load targets were multiplied by and why (while the burst
   * floor held it, burstFloor.asWritten, the control's factor, and the targets stood as written).
   */
  headroom?: {
    factor: number;
    reason: string;
    fastBurn: number | null;
    slowBurn: number | null;
    remaining: number;
    /**
     * Present when the forecast's measured accuracy set the factor (shared/slo/forecast-room.ts):
     * the band p90 / p50 of the minute, the written room, the bands kept, and the budget
     * control's own factor (which the room stood above).
     */
    forecastRoom?: { bandRatio: number; writtenRoom: number; bandWeight: number; budgetFactor: number };
  };
}

/** What the engine keeps between periods; the shell stores it (DynamoDB) as it is. */
export const EngineStateSchema = z
  .object({
    version: z.literal(1),
    lastEvaluatedAt: z.number().nullable(),
    outStreak: z.number().int().min(0),
    inStreak: z.number().int().min(0),
    panicStreak: z.number().int().min(0),
    /** Scale-in is blocked until this time (epoch ms) after a panic. */
    panicUntil: z.number().nullable(),
    lastScaleOutAt: z.number().nullable(),
    lastScaleOutTo: z.number().int().nullable(),
    /** Instances the last scale-out added: a scale-out in its cooldown must add at least this many. */
    lastScaleOutStep: z.number().int().nullable(),
    lastScaleInAt: z.number().nullable(),
    /**
     * [epoch ms, recommended capacity] within the scale-in stabilization window (or the last N
     * periods, when longer: a confirmed scale-out is sized on their peak), oldest first.
     */
    recommendations: z.array(z.tuple([z.number(), z.number().int().min(0)])),
    /**
     * Spot headroom the last decision held above the engine's own capacity, and that capacity
     * (./spot-headroom.ts heldNow reads it against the group the next decision sees).
     */
    spotHeadroom: z
      .object({ held: z.number().int().min(1), own: z.number().int().min(0) })
      .strict()
      .optional(),
  })
  .strict();
export type EngineState = z.infer<typeof EngineStateSchema>;

export const initialState = (): EngineState => ({
  version: 1,
  lastEvaluatedAt: null,
  outStreak: 0,
  inStreak: 0,
  panicStreak: 0,
  panicUntil: null,
  lastScaleOutAt: null,
  lastScaleOutTo: null,
  lastScaleOutStep: null,
  lastScaleInAt: null,
  recommendations: [],
});

export interface DecisionResult {
  decision: Decision;
  state: EngineState;
}
