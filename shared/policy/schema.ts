/**
 * The policy file: which targets Governor manages, which signals drive each one, and how
 * strongly decisions are damped. Every optional field has a default chosen for GPU inference
 * fleets (instances that take minutes to start and cost dollars an hour); units are in the
 * field names or the comments. Cross-field rules live in ./rules.ts.
 */
import * as z from 'zod';
import { CapacityMixSchema } from './capacity-mix-schema.ts';
import { FailoverSchema } from './failover-schema.ts';
import { SloSchema } from './slo-schema.ts';

const positiveSeconds = () =>
  z.number().int().positive({ message: 'must be a whole number of seconds greater than 0' });

/** Signals whose value is a per-instance load: capacity needed scales with value / target. */
export const PROPORTIONAL_METRICS = [
  'invocationsPerInstance',
  'gpuUtilization',
  'gpuMemoryUtilization',
  'queueDepthPerInstance',
  'concurrencyPerInstance',
] as const;
export const LATENCY_METRICS = ['p95LatencyMs', 'p99LatencyMs'] as const;
export const METRIC_NAMES = [...PROPORTIONAL_METRICS, ...LATENCY_METRICS] as const;
export type ProportionalMetric = (typeof PROPORTIONAL_METRICS)[number];
export type LatencyMetric = (typeof LATENCY_METRICS)[number];
export type MetricName = (typeof METRIC_NAMES)[number];

/** Optional override of where a signal is read in CloudWatch (for custom queue metrics). */
export const CloudWatchSourceSchema = z
  .object({
    namespace: z.string().min(1),
    metricName: z.string().min(1),
    dimensions: z.record(z.string(), z.string()).default({}),
    statistic: z.string().min(1).default('Average'),
  })
  .strict();

const signalCommon = {
  staleAfterSeconds: positiveSeconds()
    .default(180)
    .describe('A reading older than this is missing. Default 180 s: three one-minute periods.'),
  cloudwatch: CloudWatchSourceSchema.optional(),
};

export const ProportionalSignalSchema = z
  .object({
    metric: z.enum(PROPORTIONAL_METRICS),
    target: z
      .number()
      .positive({ message: 'must be greater than 0' })
      .describe('The per-instance value to hold: percent for GPU metrics, requests or items otherwise.'),
    tolerance: z
      .number()
      .min(0)
      .max(0.9)
      .default(0.1)
      .describe('Dead band as a fraction of target: 0.1 means values within +-10 % are left alone.'),
    ...signalCommon,
  })
  .strict();

export const LatencySignalSchema = z
  .object({
    metric: z.enum(LATENCY_METRICS),
    sloMs: z
      .number()
      .positive({ message: 'must be greater than 0' })
      .describe('The latency SLO in milliseconds.'),
    scaleInBlockFraction: z
      .number()
      .gt(0)
      .max(1)
      .default(0.8)
      .describe('Scale-in is blocked while latency is above this fraction of the SLO.'),
    tolerance: z
      .number()
      .min(0)
      .max(0.9)
      .default(0.05)
      .describe('Latency must exceed sloMs x (1 + tolerance) to count as a breach.'),
    maxScaleOutFactor: z
      .number()
      .gt(1)
      .max(10)
      .default(2)
      .describe('The most one breach may multiply capacity by (latency is not proportional to load).'),
    ...signalCommon,
  })
  .strict();

export const SignalSchema = z.discriminatedUnion('metric', [ProportionalSignalSchema, LatencySignalSchema]);

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

/** Look ahead: a capacity floor from the demand forecast, set ahead of the provisioning lead time. */
export const ForecastPolicySchema = z
  .object({
    enabled: z.boolean().default(true),
    quantile: z
      .enum(['p50', 'p90', 'p99'])
      .default('p90')
      .describe('Forecast quantile the floor covers: p90 pays for capacity 9 minutes in 10 would need.'),
    leadTimeMinutes: z
      .number()
      .int()
      .min(1)
      .max(180)
      .default(10)
      .describe(
        'Minutes from asking for an instance to it serving, plus metric delay: the floor covers now to now + this. Default 10 (SageMaker GPU start about 525 s, plus about 1 min of CloudWatch delay).',
      ),
    requestsPerInstance: z
      .number()
      .positive()
      .optional()
      .describe(
        'Requests per minute one instance is planned at. Default: the invocationsPerInstance target, else instanceCapacity.requestsPerMinuteAtSlo.',
      ),
    historyDays: z
      .number()
      .int()
      .min(1)
      .max(28)
      .default(14)
      .describe('Days of history each forecast is fitted on.'),
    refreshMinutes: z.number().int().min(5).max(1440).default(60).describe('Minutes between forecasts.'),
    dayStartMinute: z
      .number()
      .int()
      .min(0)
      .max(1439)
      .default(0)
      .describe("Minute of the UTC day when the service's day turns over (its local midnight)."),
    scheduledActions: z
      .boolean()
      .default(true)
      .describe(
        'Also write Application Auto Scaling scheduled actions that raise min capacity ahead of ramps.',
      ),
  })
  .strict();

/** Pre-initialized capacity kept idle so a scale-out serves in seconds rather than minutes. */
export const WarmPoolPolicySchema = z
  .object({
    enabled: z.boolean().default(true),
    minSize: z.number().int().min(0).default(0).describe('Idle instances always kept.'),
    maxSize: z.number().int().min(0).default(10).describe('Idle instances kept at most.'),
    warmStartMinutes: z.number().min(0).default(1).describe('Minutes a warm instance needs to serve.'),
    idleCostFraction: z
      .number()
      .min(0)
      .max(1)
      .default(0.05)
      .describe('Cost of an idle warm instance as a fraction of a running one (stopped: storage only).'),
  })
  .strict();

/**
 * Measured noise: how far each minute's demand strays from its level, fitted on the target's own
 * recent minutes (shared/forecast/noise-model.ts), so headroom follows the traffic instead of a
 * constant: a quiet night of small counts is relatively noisier than a busy afternoon.
 */
export const NoisePolicySchema = z
  .object({
    enabled: z.boolean().default(true),
    floorSigmas: z
      .number()
      .min(0)
      .max(6)
      .default(2.33)
      .describe(
        'The floor covers the demand level plus this many standard deviations of its measured per-minute noise, at the SLO capacity of an instance. 2.33: 99 % of minutes under a normal shape; 0 turns the noise floor off.',
      ),
    bandSigmas: z
      .number()
      .min(0)
      .max(6)
      .default(1)
      .describe(
        "The invocationsPerInstance dead band widens to this many of the load's relative standard deviations where that is wider than its tolerance, so noise does not trigger scaling. 0 keeps the tolerance as written.",
      ),
    historyMinutes: z
      .number()
      .int()
      .min(60)
      .max(20_160)
      .default(2880)
      .describe('Minutes of per-minute demand the noise is measured on (default 2880: two days).'),
    levelMinutes: z
      .number()
      .int()
      .min(3)
      .max(120)
      .default(15)
      .describe("A minute's level: the median of this many minutes before it."),
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

export type Signal = z.infer<typeof SignalSchema>;
export type ProportionalSignal = z.infer<typeof ProportionalSignalSchema>;
export type LatencySignal = z.infer<typeof LatencySignalSchema>;
export type Damping = z.infer<typeof DampingSchema>;
export type Panic = z.infer<typeof PanicSchema>;
export type Scaling = z.infer<typeof ScalingSchema>;
export type TargetPolicy = z.infer<typeof TargetSchema>;
export type ForecastPolicy = z.infer<typeof ForecastPolicySchema>;
export type WarmPoolPolicy = z.infer<typeof WarmPoolPolicySchema>;
export type NoisePolicy = z.infer<typeof NoisePolicySchema>;
export type TargetKind = TargetPolicy['kind'];
export type PolicyFile = z.infer<typeof PolicyFileSchema>;
export type PolicyFileInput = z.input<typeof PolicyFileSchema>;

export const isLatencySignal = (s: Signal): s is LatencySignal =>
  (LATENCY_METRICS as readonly string[]).includes(s.metric);

/** Requests per minute one instance is planned at, for the forecast floor; null when unknown. */
export function plannedRequestsPerInstance(t: TargetPolicy): number | null {
  if (t.forecast?.requestsPerInstance !== undefined) return t.forecast.requestsPerInstance;
  const inv = t.signals.find((s) => s.metric === 'invocationsPerInstance');
  if (inv && !isLatencySignal(inv)) return inv.target;
  return t.instanceCapacity?.requestsPerMinuteAtSlo ?? null;
}
