/**
 * The forecast function's parts of a target's state item, as stored: the floor schedule
 * (`forecastFloor`) and the measured noise (`noise`), each checked with its own schema. The
 * state item (shared/state/item.ts) decodes them; the floors of this room are planned into them.
 */
import * as z from 'zod';

/**
 * Written by the forecast function (functions/forecast, docs/forecast-aws.md): a floor schedule
 * at five-minute steps. capacities[i] holds from startsAt + 5 i minutes for five minutes, and is
 * already the most the forecast needs over [t, t + leadTimeMinutes] for t in that step, so the
 * evaluator takes the step of `now` as it is (shared/floors/forecast.ts picks it).
 */
export const ForecastFloorSchema = z.looseObject({
  quantile: z.string().min(1),
  /** Epoch ms the forecast was made; a floor older than 2 x refreshMinutes is stale. */
  computedAt: z.number(),
  /** Epoch ms of step 0's start (the forecast's origin, a five-minute boundary). */
  startsAt: z.number(),
  stepMinutes: z.literal(5),
  /** The lead each step covers: the policy's leadTimeMinutes, or more when measured (./lead-time.ts). */
  leadTimeMinutes: z.number().int().min(0),
  /** Where leadTimeMinutes came from; absent on floors written before it was measured (configured). */
  leadSource: z.enum(['configured', 'measured']).optional(),
  /** The policy's leadTimeMinutes when the floor was made (a changed policy makes the floor due). */
  configuredLeadTimeMinutes: z.number().int().min(0).optional(),
  /** Measured scale-outs behind the lead (0 when none). */
  leadSamples: z.number().int().min(0).optional(),
  capacities: z.array(z.number().int().min(0)),
  /** SageMaker: standby instances included in every capacity (it has no warm pool). */
  standby: z.number().int().min(0).optional(),
  /**
   * forecast: planned from the demand forecast; level: before a forecast exists (under a day of
   * history), the last level plus its measured noise for the next hour. Absent on floors written
   * before level floors: forecast.
   */
  kind: z.enum(['forecast', 'level']).optional(),
  /** The simpler forecaster the floor came from, when the seasonal model had lately scored worse. */
  fallback: z.enum(['recent-level', 'naive-day']).optional(),
  /** The noise term the floor was planned with (noise.floorSigmas of the model); absent: none. */
  noise: z
    .object({
      floorSigmas: z.number().min(0),
      a: z.number().min(0),
      b: z.number().min(0),
      samples: z.number().int().min(0),
    })
    .optional(),
  /**
   * The forecast band of each step, p90 / p50 (rounded up to 0.001; null where the median is 0),
   * for the forecast room (shared/slo/forecast-room.ts). Absent on level floors and on floors
   * written before the room: it stays closed.
   */
  bandRatios: z.array(z.number().min(0).nullable()).optional(),
  /** A level floor's level: the median of the last noise.levelMinutes minutes, requests a minute. */
  level: z.number().min(0).optional(),
});
export type ForecastFloor = z.infer<typeof ForecastFloorSchema>;

/**
 * Written by the forecast function next to the floor: the measured noise of the target's
 * per-minute demand around its level, Var(demand - level) = a x level + b x level^2, in requests
 * a minute as CloudWatch counts them (shared/sizing/noise-model.ts; docs/forecast-aws.md).
 * The evaluator widens the invocationsPerInstance band with it (shared/floors/noise.ts).
 */
export const StoredNoiseSchema = z.object({
  a: z.number().min(0),
  b: z.number().min(0),
  /** Minutes the fit was made from. */
  samples: z.number().int().min(0),
  /** Epoch ms of the fit; older than 3 x refreshMinutes (at least 3 h) it is stale. */
  computedAt: z.number(),
  /** noise.levelMinutes and noise.historyMinutes of the policy it was fitted under. */
  levelMinutes: z.number().int().min(1),
  historyMinutes: z.number().int().min(1),
});
export type StoredNoise = z.infer<typeof StoredNoiseSchema>;
