/**
 * The signals of a target in the policy file: the metrics Governor scales on (per-instance loads
 * and latencies), where each is read in CloudWatch when not the default, and its target and dead
 * band. Re-exported by ./schema.ts.
 */
import * as z from 'zod';

export const positiveSeconds = () =>
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

export type Signal = z.infer<typeof SignalSchema>;
export type ProportionalSignal = z.infer<typeof ProportionalSignalSchema>;
export type LatencySignal = z.infer<typeof LatencySignalSchema>;

/** Read for every signal of every decision: two comparisons, not an array search. */
export const isLatencySignal = (s: Signal): s is LatencySignal =>
  s.metric === 'p95LatencyMs' || s.metric === 'p99LatencyMs';
