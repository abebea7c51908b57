/**
 * The forecaster's contract: options (zod-checked), and the result, which is either a forecast
 * with quantiles or a reason it cannot forecast. Units: requests per minute; time: minute
 * indexes (a trace minute, or epoch ms / 60 000), never a clock read.
 */
import * as z from 'zod';

export const ForecastOptionsSchema = z
  .object({
    stepMinutes: z
      .union([z.literal(1), z.literal(5)], {
        message: 'must be 1 (per-minute counts) or 5 (per five minutes)',
      })
      .describe('Resolution of the history: request counts per minute or per five minutes.'),
    origin: z
      .number({ message: 'must be a number' })
      .refine(Number.isFinite, { message: 'must be a finite minute index' })
      .describe('Minute index of the first forecast step: the minute right after the last history value.'),
    horizonMinutes: z
      .number()
      .int()
      .min(5, { message: 'must be at least 5' })
      .max(10_080, { message: 'must be at most 10080 (7 days)' })
      .default(2880)
      .describe('How far ahead to forecast, in minutes. Default 2880 (48 h).'),
    dayStartMinute: z
      .number()
      .int()
      .min(0, { message: 'must be from 0 to 1439' })
      .max(1439, { message: 'must be from 0 to 1439' })
      .default(0)
      .describe(
        "Minute of the day, on the clock of origin, when demand's day turns over (local midnight): 0 for a trace that starts at midnight, 240 for US Eastern summer time on UTC epoch minutes.",
      ),
  })
  .strict();
export type ForecastOptions = z.input<typeof ForecastOptionsSchema>;

/** Which seasonal model the history allowed (docs/forecast.md, "The model"). */
export type ForecastModel = 'daily' | 'weekly';

export const QUANTILES = { p10: 0.1, p50: 0.5, p90: 0.9, p99: 0.99 } as const;
export type QuantileName = keyof typeof QUANTILES;

export interface Forecast {
  ok: true;
  model: ForecastModel;
  /** Sentences on what the history allowed or lacked (fallbacks, trimmed history, gaps). */
  notes: string[];
  /** Minute index of the first step; step i covers [origin + 5 i, origin + 5 i + 5). */
  origin: number;
  stepMinutes: 5;
  /** Whole days of history the model was fitted on (at most 28). */
  historyDays: number;
  /** Point forecast, requests per minute: the model's median, equal to p50. */
  point: number[];
  quantiles: Record<QuantileName, number[]>;
  /** Out-of-sample residuals the quantiles were taken from (0: an in-sample fallback). */
  residualSamples: number;
  /**
   * Present when a simpler forecaster scored better than the seasonal model over the last 24 h
   * (lower p90 and p50 pinball loss): the point and quantiles are then that forecaster's.
   */
  fallback?: {
    to: 'recent-level' | 'naive-day';
    /** Mean p90 pinball loss over the last 24 h, requests per minute: the seasonal model's. */
    seasonalPinballP90: number;
    /** The same for the forecaster used instead. */
    fallbackPinballP90: number;
    /** One sentence with the numbers, for logs and decision records. */
    message: string;
  };
}

/** Why the forecast is a simpler forecaster's, with the losses that decided it. */
export type ForecastFallback = NonNullable<Forecast['fallback']>;

export type ForecastUnavailableReason = 'InsufficientHistory' | 'NoData';

export interface ForecastUnavailable {
  ok: false;
  reason: ForecastUnavailableReason;
  message: string;
}

export type ForecastResult = Forecast | ForecastUnavailable;

/** Bad input from the caller (a bug or a misconfiguration): the message names the field and the fix. */
export class ForecastInputError extends Error {
  override name = 'ForecastInputError';
}
