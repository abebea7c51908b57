/**
 * The capacity mix planner's values: what it is given (a forecast in instances), what it keeps
 * between evaluations (state, stored by the shell as it is) and what it returns (a plan an Auto
 * Scaling MixedInstancesPolicy can be built from, and a decision that explains itself).
 * docs/capacity-mix.md is the prose. Times are epoch milliseconds; prices USD per hour.
 */
import * as z from 'zod';
import type { CapacityMix } from '../policy/capacity-mix-schema.ts';
import type { TargetPolicy } from '../policy/schema.ts';

/** One forecast step, in instances needed (the shell divides requests by requests per instance). */
export interface ForecastPoint {
  at: number;
  p50: number;
  p90: number;
}

/**
 * What the interruption handler (shared/interruptions/) learned about spot: pools whose spot
 * launches failed for lack of capacity, and the breaker. The planner plans around them at once.
 */
export interface SpotAvailability {
  /**
   * Pools left out of spot: a spot launch in them failed for lack of capacity lately. A pool key
   * (./pools.ts): "g5.2xlarge@us-east-1b" leaves out that type in that zone only, "g5.2xlarge"
   * the type in every zone.
   */
  unavailablePools: readonly string[];
  /** Too much of the spot fleet was reclaimed at once: on-demand only until it closes. */
  breakerOpen: boolean;
}

export const ALL_SPOT_AVAILABLE: SpotAvailability = { unavailablePools: [], breakerOpen: false };

export interface MixInputs {
  /** The latest forecast, or null when there is none (the plan is then held). */
  forecast: { points: ForecastPoint[] } | null;
  /** Spot pools out of reach and the breaker; absent: every pool available. */
  availability?: SpotAvailability;
}

/** The parts of a target's policy the planner reads. */
export interface MixPolicy {
  targetId: string;
  minCapacity: number;
  maxCapacity: number;
  mix: CapacityMix;
  /** Minutes from losing a spot pool to its replacement serving: replacementLeadMinutes(). */
  replacementLeadMinutes: number;
}

/** Before any scale-out is measured, and with none configured. */
export const DEFAULT_REPLACEMENT_LEAD_MINUTES = 15;

/**
 * The replacement lead: a replacement is a scale-out, so the target's measured scale-out lead
 * (the forecast floor's leadTimeMinutes: LeadTimeMeasured) when there is one; a configured
 * replacementLeadTimeMinutes is a minimum, as forecast.leadTimeMinutes is for the floor.
 */
export function replacementLeadMinutes(
  configured: number | undefined,
  measured: number | null | undefined,
): number {
  if (configured !== undefined) return Math.max(configured, measured ?? 0);
  return measured ?? DEFAULT_REPLACEMENT_LEAD_MINUTES;
}

/** The planner's view of a target, with `measuredLeadMinutes` the lead its forecast floor was planned over. */
export const resolveMixPolicy = (t: TargetPolicy, measuredLeadMinutes?: number | null): MixPolicy | null =>
  t.capacityMix
    ? {
        targetId: t.id,
        minCapacity: t.scaling.minCapacity,
        maxCapacity: t.scaling.maxCapacity,
        mix: t.capacityMix,
        replacementLeadMinutes: replacementLeadMinutes(
          t.capacityMix.replacementLeadTimeMinutes,
          measuredLeadMinutes,
        ),
      }
    : null;

export const MIX_REASON_CODES = [
  // Primary: what happened to the plan this evaluation.
  'MixPlanned',
  'LossCoverRestored',
  'WithinDeadBand',
  'DwellHold',
  'ChangeRateHold',
  'ForecastMissing',
  'AvailabilityShift',
  'PoolsChanged',
  // Modifiers: what shaped the wanted plan.
  'FloorHeld',
  'ClampedToMax',
  'BudgetCapped',
  'OnDemandOnly',
  'SpotNotCheaper',
  'PoolUnavailable',
  'SpotBreakerOpen',
  'PoolShareCapped',
  'SpotHedge',
] as const;
export type MixReasonCode = (typeof MIX_REASON_CODES)[number];

/**
 * The fields of an Auto Scaling MixedInstancesPolicy this plan fills. At the plan's capacity the
 * group runs exactly `onDemand` on-demand and `spot` spot instances; above it, at most
 * onDemandPercentageAboveBaseCapacity's complement is spot, so the spot share stays within
 * spot.maxPercent at any size (Auto Scaling rounds the on-demand part up).
 */
export const MixedInstancesSchema = z
  .object({
    onDemandBaseCapacity: z.number().int().min(0),
    onDemandPercentageAboveBaseCapacity: z.number().int().min(0).max(100),
    onDemandAllocationStrategy: z.literal('prioritized'),
    spotAllocationStrategy: z.literal('price-capacity-optimized'),
    /** In on-demand priority order: the committed type first. */
    overrides: z.array(z.object({ instanceType: z.string() }).strict()),
  })
  .strict();

export const MixPlanSchema = z
  .object({
    /** Instances the plan is sized for: a floor for the capacity engine while it holds. */
    capacity: z.number().int().min(0),
    onDemand: z.number().int().min(0),
    /** Of onDemand, instances covered by the commitment (billed whether they run or not). */
    committed: z.number().int().min(0),
    spot: z.number().int().min(0),
    /**
     * Spot instances per pool (key "type@zone", or the type when no zones are known: ./pools.ts),
     * assuming the group spreads them evenly over its zones and price-capacity-optimized over the
     * pools of a zone.
     */
    spotByPool: z.record(z.string(), z.number().int().min(0)),
    /** The most spot one loss takes: one pool, or one zone with spot.lossDomain 'zone' (worst case of the spread). */
    largestSpotPool: z.number().int().min(0),
    /**
     * The pools spot may go to under this plan (available pools of the listed types, by zone);
     * absent in plans stored before zones were planned: the listed types, one zone.
     */
    pools: z.array(z.string()).optional(),
    mixedInstancesPolicy: MixedInstancesSchema,
    /** What the plan costs per hour at its capacity, committed base included. */
    usdPerHour: z.number().min(0),
    /** The p90 loss cover (instances) it was sized for: the dead band is measured from it. */
    sizedFor: z.number().int().min(0),
    /** Modifier reasons that shaped it (FloorHeld, ClampedToMax, BudgetCapped, ...). */
    shapedBy: z.array(z.enum(MIX_REASON_CODES)),
  })
  .strict();
export type MixPlan = z.infer<typeof MixPlanSchema>;

export const MixStateSchema = z
  .object({
    version: z.literal(1),
    plan: MixPlanSchema.nullable(),
    /** When the plan last changed (the change-rate clock). */
    lastChangeAt: z.number().nullable(),
    /** Since when a plan outside the dead band has been wanted without a break (the dwell clock). */
    pendingSince: z.number().nullable(),
  })
  .strict();
export type MixState = z.infer<typeof MixStateSchema>;

/** Demand the plan was sized on, in instances (rounded up). */
export interface MixDemand {
  /** Peak p90 over the horizon: the plan serves it. */
  p90Peak: number;
  /** Peak p90 over the horizon plus the replacement lead time: served after losing the largest pool. */
  p90LossCover: number;
  /** Mean p50 over the horizon, for the sentence. */
  p50Mean: number;
}

export interface MixDecision {
  targetId: string;
  at: number;
  /** The primary reason first, then the modifiers of the plan in force. */
  reasons: MixReasonCode[];
  message: string;
  demand: MixDemand | null;
  /** The plan the forecast asks for now, before damping. */
  wanted: MixPlan | null;
  changed: boolean;
}

export interface MixStepResult {
  state: MixState;
  /** The plan in force (null only before any forecast was seen). */
  plan: MixPlan | null;
  decision: MixDecision;
}

/**
 * The plan's group may run spot: planned spot, or a plan with none whose group grows past its
 * capacity on spot (onDemandPercentageAboveBaseCapacity below 100, only spot pools listed).
 */
export const listsSpot = (plan: MixPlan): boolean =>
  plan.mixedInstancesPolicy.onDemandPercentageAboveBaseCapacity < 100;

/**
 * The spot headroom the engine holds under `plan` (capacityMix.spot.overProvision): the setting
 * while the plan lets the group run spot, 0 under a plan on demand only. The evaluator in AWS
 * (functions/evaluate/mix-plan.ts) and the backtest's controller both read it here.
 */
export const spotHeadroomOf = (policy: MixPolicy, plan: MixPlan): number =>
  listsSpot(plan) ? (policy.mix.spot?.overProvision ?? 0) : 0;
