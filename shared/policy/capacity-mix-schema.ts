/**
 * The `capacityMix` section of a target: which instance types it may run, what each costs, the
 * committed base already paid for (Reserved Instances or a Savings Plan), whether spot is allowed
 * and how much of it, and a budget. Cross-field rules live in ./capacity-mix-rules.ts; the pure
 * planner that reads these fields is shared/mix/ (docs/capacity-mix.md is the prose).
 *
 * Prices are USD per instance-hour, from the operator's own price list: Governor looks nothing up.
 */
import * as z from 'zod';

/** AWS Spot Instance Advisor "frequency of interruption" bands, per month, least risky first. */
export const INTERRUPTION_BANDS = ['<5%', '5-10%', '10-15%', '15-20%', '>20%'] as const;
export type InterruptionBand = (typeof INTERRUPTION_BANDS)[number];
export const bandRank = (b: InterruptionBand): number => INTERRUPTION_BANDS.indexOf(b);

/** What one spot loss takes: a pool (a type in one zone) or a whole zone (docs/capacity-mix.md). */
export const SPOT_LOSS_DOMAINS = ['pool', 'zone'] as const;
export type SpotLossDomain = (typeof SPOT_LOSS_DOMAINS)[number];

const usdPerHour = () => z.number().positive({ message: 'must be greater than 0 (USD per instance-hour)' });

export const CapacityPoolSchema = z
  .object({
    instanceType: z
      .string()
      .regex(/^(ml\.)?[a-z][a-z0-9-]*\.[a-z0-9-]+$/, {
        message: 'must be an instance type such as g5.2xlarge (ml.g5.2xlarge on SageMaker)',
      })
      .describe('An EC2 instance type the group may run (one override of its MixedInstancesPolicy).'),
    onDemandUsdPerHour: usdPerHour().describe('On-demand price in this region, USD per instance-hour.'),
    spotUsdPerHour: usdPerHour()
      .optional()
      .describe('Expected spot price in this region, USD per instance-hour (required when spot is allowed).'),
    interruption: z
      .enum(INTERRUPTION_BANDS)
      .optional()
      .describe(
        "The Spot Instance Advisor's frequency of interruption band for this type and region, per month (required when spot is allowed).",
      ),
  })
  .strict();

export const CommittedBaseSchema = z
  .object({
    instances: z
      .number()
      .int()
      .min(0)
      .default(0)
      .describe('Instances covered by Reserved Instances or a Savings Plan: paid every hour, used or not.'),
    instanceType: z
      .string()
      .min(1)
      .optional()
      .describe('The pool the commitment covers (required when instances > 0); listed first for on-demand.'),
    usdPerHour: z
      .number()
      .min(0)
      .optional()
      .describe(
        'Effective price of one committed instance, USD per hour (the reservation or plan rate). Default: the pool on-demand price.',
      ),
  })
  .strict();

export const SpotPolicySchema = z
  .object({
    maxPercent: z
      .number()
      .int()
      .min(1)
      .max(100)
      .describe('Spot instances at most, as a whole percent of the running instances, at any group size.'),
    maxInterruption: z
      .enum(INTERRUPTION_BANDS)
      .default('10-15%')
      .describe(
        'Pools in a riskier band than this are not given spot (not listed as overrides when spot is planned).',
      ),
    maxPoolShare: z
      .number()
      .int({ message: 'must be a whole percent (of the plan capacity one loss may take)' })
      .min(1, { message: 'must be at least 1 (percent); remove it for no cap' })
      .max(100, { message: 'must be at most 100 (percent); remove it for no cap' })
      .optional()
      .describe(
        'Spot one loss may take at most (one pool, an instance type in one zone; one zone with lossDomain zone), as a whole percent of the capacity: the spot share is capped at this times the number of pools (zones) spot is spread over. Absent: no cap beyond the loss cover.',
      ),
    overProvision: z
      .number()
      .int()
      .min(0, { message: 'must be at least 0 (instances); 0 holds no spot headroom' })
      .max(100, { message: 'must be at most 100 (instances)' })
      .default(0)
      .describe(
        'Spot instances held beyond the capacity Governor decides while the plan in force runs spot, as headroom (SkyServe SpotHedge over-provisions this way): on top of what the load and the forecast ask, not of the committed base, within maxCapacity and the budget. 0 (default): none.',
      ),
    lossDomain: z
      .enum(SPOT_LOSS_DOMAINS)
      .default('pool')
      .describe(
        "What one spot loss takes, for the loss cover and maxPoolShare: 'pool' (an instance type in one zone, AWS's spot capacity pool) or 'zone' (every pool of one zone at once: reclaims correlated across a zone; needs zones).",
      ),
  })
  .strict();

/** Availability Zone names: us-east-1a, us-gov-west-1b, us-west-2-lax-1a (Local Zones). */
const ZONE = /^[a-z]{2}(?:-[a-z0-9]{1,12}){2,5}[a-z]?$/;

export const MixDampingSchema = z
  .object({
    deadBandPercent: z
      .number()
      .min(0)
      .max(100)
      .default(10)
      .describe(
        'A forecast whose p90 (with the lead time) is within this percent of the one the held plan was sized for (at least 1 instance) changes nothing.',
      ),
    dwellMinutes: z
      .number()
      .int()
      .min(0)
      .max(1440)
      .default(30)
      .describe('Minutes a different plan must be wanted without a break before it is applied.'),
    minHoursBetweenChanges: z
      .number()
      .gt(0)
      .max(168)
      .default(3)
      .describe('Hours at least between two plan changes (a change that restores loss cover is exempt).'),
  })
  .strict();

export const SpotBreakerSchema = z
  .object({
    reclaimedPercent: z
      .number()
      .int()
      .min(1)
      .max(100)
      .default(20)
      .describe(
        'Opens when more than this percent of the spot fleet (the plan in force) gets interruption warnings within windowMinutes.',
      ),
    windowMinutes: z
      .number()
      .int()
      .min(1)
      .max(120)
      .default(10)
      .describe('The window interruption warnings are counted over.'),
    openMinutes: z
      .number()
      .int()
      .min(5)
      .max(1440)
      .default(60)
      .describe(
        'Minutes the target stays all on-demand once the breaker opened; then spot comes back through the damping of the planner.',
      ),
  })
  .strict();

export const InterruptionHandlingSchema = z
  .object({
    poolUnavailableMinutes: z
      .number()
      .int()
      .min(1)
      .max(1440)
      .default(30)
      .describe(
        'Minutes a spot pool is left out of the plan after a spot launch in it failed for lack of capacity (its share goes to on-demand).',
      ),
    breaker: SpotBreakerSchema.default(SpotBreakerSchema.parse({})).describe(
      'Moves the target to on-demand, and alarms, when too much of its spot fleet is reclaimed at once.',
    ),
    // Issue 18: one EC2 Health event could detach a whole group at once. A retirement is
    // scheduled days ahead, so there is time to replace a few at a time. Example: budget 2, a
    // Health event naming 5 instances of a group at desired 10: 2 detached (replacements start),
    // 3 wait; while the group runs 8 InService of 10 nothing more is detached; once it is whole
    // again the next 2 go (tests/interruptions/retire.test.ts).
    healthDisruptionBudget: z
      .number()
      .int()
      .min(1)
      .max(1000)
      .default(2)
      .describe(
        "Instances an AWS Health event (a scheduled retirement or maintenance) may take out of the group at once: its instances are detached at most this many minus the group's shortfall (desired capacity - InService) at a time; the others wait for the replacements, their message redelivered by SQS.",
      ),
  })
  .strict();

/** One production variant of the same endpoint that takes capacity the primary cannot get. */
export const FallbackVariantSchema = z
  .object({
    variantName: z
      .string()
      .min(1)
      .describe("A production variant already in the endpoint's config (Governor creates none)."),
    instanceType: z
      .string()
      .min(1)
      .describe("The variant's instance type: one of capacityMix.pools, so its price is known."),
  })
  .strict();

export const VariantFallbackSchema = z
  .object({
    variants: z
      .array(FallbackVariantSchema)
      .min(1, { message: 'needs at least one fallback variant' })
      .max(9, { message: 'may list at most 9 variants (an endpoint holds at most 10)' })
      .describe('The other production variants of the endpoint, in priority order.'),
    holdMinutes: z
      .number()
      .int()
      .min(5)
      .max(1440)
      .default(60)
      .describe(
        'Minutes capacity stays on the fallback before the primary is tried again; also the least time between two shifts.',
      ),
  })
  .strict();

export const CapacityMixSchema = z
  .object({
    pools: z
      .array(CapacityPoolSchema)
      .min(1, { message: 'needs at least one pool' })
      .max(20, { message: 'may list at most 20 pools' })
      .describe('The instance types the target may run and their prices.'),
    zones: z
      .array(z.string().regex(ZONE, { message: 'must be an Availability Zone name such as us-east-1a' }))
      .min(1, {
        message: 'needs at least one zone: list the Availability Zones of the group, or remove zones',
      })
      .max(16, { message: 'may list at most 16 zones' })
      .optional()
      .describe(
        "ec2-asg only: the group's Availability Zones (its AvailabilityZones in DescribeAutoScalingGroups). A spot pool is an instance type in one zone: the planner spreads spot over types and zones and sizes the loss cover on one pool (or zone). Absent: the zones the group runs in, read before each plan (a pool per type across them when that read fails).",
      ),
    committed: CommittedBaseSchema.default({ instances: 0 }).describe(
      'The committed base: instances already paid for. Neither the plan nor the fleet goes below it: billed whether they run or not, they serve (CommittedFloor). Of a commitment shared with other workloads, count only the share of this target.',
    ),
    spot: SpotPolicySchema.optional().describe('Allow spot (ec2-asg only). Absent: on-demand only.'),
    replacementLeadTimeMinutes: z
      .number()
      .int()
      .min(1)
      .max(240)
      .optional()
      .describe(
        "Minutes from losing a spot pool to replacement capacity serving: after the loss of the largest spot pool, what remains serves the p90 forecast this long. A replacement is a scale-out, so by default this is the target's measured scale-out lead time (the forecast floor's LeadTimeMeasured), 15 before one is measured; when set, the measured lead still wins when it is longer.",
      ),
    horizonHours: z
      .number()
      .int()
      .min(1)
      .max(48)
      .default(3)
      .describe('Hours of forecast a plan covers (at least damping.minHoursBetweenChanges).'),
    maxUsdPerHour: z
      .number()
      .positive()
      .optional()
      .describe(
        'Budget: the planned fleet costs at most this, USD per hour, except that the plan never goes below the committed base or minCapacity.',
      ),
    damping: MixDampingSchema.default(MixDampingSchema.parse({})),
    interruptions: InterruptionHandlingSchema.default(InterruptionHandlingSchema.parse({})).describe(
      'How spot interruptions and spot capacity shortages are handled (docs/interruptions.md).',
    ),
    variantFallback: VariantFallbackSchema.optional().describe(
      'sagemaker-variant only: when the primary variant cannot get capacity of its type, the shortfall goes to these variants of other types (docs/variant-fallback.md).',
    ),
  })
  .strict();

export type CapacityPool = z.infer<typeof CapacityPoolSchema>;
export type CapacityMix = z.infer<typeof CapacityMixSchema>;
export type CapacityMixInput = z.input<typeof CapacityMixSchema>;
export type InterruptionHandling = z.infer<typeof InterruptionHandlingSchema>;
export type VariantFallback = z.infer<typeof VariantFallbackSchema>;
