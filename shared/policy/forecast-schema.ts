/**
 * Look-ahead sections of a target in the policy file: the forecast floor, the warm pool and the
 * measured noise. Re-exported by ./schema.ts.
 */
import * as z from 'zod';

/** The lead time a target plans over when its policy says none: a SageMaker GPU start and a metric's delay. */
export const DEFAULT_LEAD_TIME_MINUTES = 10;

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
      .default(DEFAULT_LEAD_TIME_MINUTES)
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
 * recent minutes (shared/sizing/noise-model.ts), so headroom follows the traffic instead of a
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

export type ForecastPolicy = z.infer<typeof ForecastPolicySchema>;
export type WarmPoolPolicy = z.infer<typeof WarmPoolPolicySchema>;
export type NoisePolicy = z.infer<typeof NoisePolicySchema>;
