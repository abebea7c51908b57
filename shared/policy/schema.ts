/**
 * The policy file: which targets Governor manages, which signals drive each one, and how
 * strongly decisions are damped. Every optional field has a default chosen for GPU inference
 * fleets (instances that take minutes to start and cost dollars an hour); units are in the
 * field names or the comments. Cross-field rules live in ./rules.ts. The signals' schema is
 * ./signal-schema.ts, the forecast's, warm pool's and noise's ./forecast-schema.ts: re-exported
 * here, so the policy's types come from one module.
 */
import * as z from 'zod';
import { CapacityMixSchema } from './capacity-mix-schema.ts';
import { FailoverSchema } from './failover-schema.ts';
import { ForecastPolicySchema, NoisePolicySchema, WarmPoolPolicySchema } from './forecast-schema.ts';
import { CloudWatchSourceSchema, isLatencySignal, positiveSeconds, SignalSchema } from './signal-schema.ts';
import { SloSchema } from './slo-schema.ts';

export type { ForecastPolicy, NoisePolicy, WarmPoolPolicy } from './forecast-schema.ts';
export { ForecastPolicySchema, NoisePolicySchema, WarmPoolPolicySchema } from './forecast-schema.ts';
export type {
  LatencyMetric,
  LatencySignal,
  MetricName,
  ProportionalMetric,
  ProportionalSignal,
  Signal,
} from './signal-schema.ts';
export {
  CloudWatchSourceSchema,
  isLatencySignal,
  LATENCY_METRICS,
  LatencySignalSchema,
  METRIC_NAMES,
  PROPORTIONAL_METRICS,
  ProportionalSignalSchema,
  SignalSchema,
} from './signal-schema.ts';

const StepSchema = z
  .object({
    instances: z
      .number()
      .int()
      .min(1, { message: 'must be at least 1' })
      .describe('Instances one period may add or remove at least.'),
    percent: z
      .number()
      .min(0)
      .max(1000)
      .describe('Percent of current capacity one period may add or remove; the larger limit wins.'),
  })
  .strict();

export const DampingSchema = z
  .object({
    periodSeconds: positiveSeconds()
      .default(60)
      .describe('Seconds between evaluations; breach counts are counted in these periods.'),
    scaleOutBreaches: z
      .number()
      .int()
      .min(1)
      .default(2)
      .describe('Consecutive breaching periods before a scale-out (N).'),
    scaleInBreaches: z
      .number()
      .int()
      .min(1)
      .default(10)
      .describe('Consecutive below-target periods before a scale-in (M, at least N).'),
    scaleInStabilizationSeconds: positiveSeconds()
      .default(300)
      .describe('Scale-in goes only to the highest recommendation seen in this window.'),
    scaleOutCooldownSeconds: z
      .number()
      .int()
      .min(0)
      .default(120)
      .describe(
        'After a scale-out, only a scale-out step at least as large may follow within this time (panic scales at once; a scale-in ends it).',
      ),
    scaleInCooldownSeconds: z
      .number()
      .int()
      .min(0)
      .default(300)
      .describe('After a scale-in, no scale-in within this time (a scale-out ends it).'),
    stepUp: StepSchema.default({ instances: 4, percent: 100 }),
    stepDown: StepSchema.default({ instances: 1, percent: 20 }),
  })
  .strict();

export const PanicSchema = z
  .object({
    enabled: z.boolean().default(true),
    threshold: z
      .number()
      .gt(1)
      .default(2)
      .describe('Panic when any proportional signal is at or above this multiple of its target.'),
    periods: z
      .number()
      .int()
      .min(1)
      .default(1)
      .describe('Consecutive periods at the threshold that trigger panic (the short window).'),
    stableWindowSeconds: positiveSeconds()
      .default(600)
      .describe('Scale-in stays blocked until the signal has been calm for this long.'),
  })
  .strict();

export const ActivationSchema = z
  .object({
    metric: z
      .enum(['queueDepth', 'invocations', 'concurrency'])
      .describe('A total (not per-instance) metric that wakes a target scaled to zero.'),
    threshold: z
      .number()
      .min(0)
      .describe('Scale from zero when the metric is above this; scale to zero only at or below it.'),
    staleAfterSeconds: positiveSeconds().default(180),
    cloudwatch: CloudWatchSourceSchema.optional().describe(
      "Where the total lives (for example an SQS queue's ApproximateNumberOfMessagesVisible, Maximum). Needed for every activation but an inference component's invocations.",
    ),
  })
  .strict();

export const ScalingSchema = z
  .object({
    minCapacity: z.number().int().min(0),
    maxCapacity: z.number().int().min(1),
    scaleToZero: z
      .boolean()
      .default(false)
      .describe(
        'Allow capacity 0 (inference components and Auto Scaling groups only; needs minCapacity 0 and activation).',
      ),
    activation: ActivationSchema.optional(),
  })
  .strict();

/** What one instance serves, from a load test: the backtest uses it to put a trace in this target's units. */
export const InstanceCapacitySchema = z
  .object({
    requestsPerMinuteAtSlo: z
      .number()
      .positive()
      .describe('Requests per minute one instance serves with p95 latency at the SLO (from a load test).'),
  })
  .strict();

const targetCommon = {
  id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/, {
    message: 'must be 1-63 letters, digits, ".", "_" or "-", starting with a letter or digit',
  }),
  region: z
    .string()
    .regex(/^[a-z]{2}(-gov)?-[a-z]+-\d$/, { message: 'must be an AWS region name such as us-east-1' }),
  scaling: ScalingSchema,
  signals: z.array(SignalSchema).min(1, { message: 'needs at least one signal' }),
  damping: DampingSchema.default(DampingSchema.parse({})),
  panic: PanicSchema.default(PanicSchema.parse({})),
  instanceCapacity: InstanceCapacitySchema.optional(),
  forecast: ForecastPolicySchema.optional(),
  warmPool: WarmPoolPolicySchema.optional(),
  noise: NoisePolicySchema.optional(),
  slo: SloSchema.optional().describe(
    'The SLO objective: the share of minutes (and optionally requests) whose p95 latency is within sloMs, over a window, and the error-budget control of headroom (docs/slo.md). Absent on a target with a latency signal: 99.5 % of minutes over 30 days.',
  ),
  capacityMix: CapacityMixSchema.optional().describe(
    'Capacity mix: instance types and prices, the committed base, spot allowed or not, and a budget (docs/capacity-mix.md).',
  ),
  onConflictingScaler: z
    .enum(['refuse', 'suspend'])
    .default('refuse')
    .describe(
      "What to do when other scaling policies already manage the target (Application Auto Scaling on SageMaker targets, EC2 Auto Scaling on groups): refuse changes nothing; suspend suspends their dynamic scaling (the AlarmNotification process on a group), then acts. A group's predictive scaling in ForecastAndScale mode is refused either way.",
    ),
};

export const TargetSchema = z.discriminatedUnion('kind', [
  z
    .object({
      kind: z.literal('sagemaker-variant'),
      endpointName: z.string().min(1),
      variantName: z.string().min(1).default('AllTraffic'),
      ...targetCommon,
    })
    .strict(),
  z
    .object({
      kind: z.literal('sagemaker-inference-component'),
      inferenceComponentName: z.string().min(1),
      endpointName: z.string().min(1),
      ...targetCommon,
    })
    .strict(),
  z
    .object({
      kind: z.literal('ec2-asg'),
      autoScalingGroupName: z.string().min(1),
      ...targetCommon,
    })
    .strict(),
]);

export const PolicyFileSchema = z
  .object({
    version: z.literal(1, { message: 'must be 1' }),
    targets: z.array(TargetSchema).min(1, { message: 'needs at least one target' }),
    failover: FailoverSchema.optional().describe(
      'Region failover: groups of targets serving the same model in different regions (docs/failover.md).',
    ),
    parts: z
      .object({
        count: z
          .number()
          .int()
          .min(1, { message: 'must be at least 1' })
          .describe(
            'How many part parameters this policy is published in (written by governor policy split).',
          ),
      })
      .strict()
      .optional()
      .describe(
        'A policy split into parts (docs/scale.md): the number of parts that must be found beside it, so a missing part fails the load instead of silently leaving its targets unmanaged.',
      ),
  })
  .strict();

export type Damping = z.infer<typeof DampingSchema>;
export type Panic = z.infer<typeof PanicSchema>;
export type Scaling = z.infer<typeof ScalingSchema>;
export type TargetPolicy = z.infer<typeof TargetSchema>;
export type TargetKind = TargetPolicy['kind'];
export type PolicyFile = z.infer<typeof PolicyFileSchema>;
export type PolicyFileInput = z.input<typeof PolicyFileSchema>;

/** Requests per minute one instance is planned at, for the forecast floor; null when unknown. */
export function plannedRequestsPerInstance(t: TargetPolicy): number | null {
  if (t.forecast?.requestsPerInstance !== undefined) return t.forecast.requestsPerInstance;
  const inv = t.signals.find((s) => s.metric === 'invocationsPerInstance');
  if (inv && !isLatencySignal(inv)) return inv.target;
  return t.instanceCapacity?.requestsPerMinuteAtSlo ?? null;
}
