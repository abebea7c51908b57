/**
 * The error-budget control's part of a target's state item (`slo`, beside `engine`), and what the
 * evaluator derives for it from the readings it already reads. Pure; the evaluator's wiring is
 * functions/evaluate/slo.ts, the control itself shared/slo/ (docs/slo.md, "In AWS").
 *
 * Stored: the SLI ledger in its own stored form (shared/slo/ledger.ts), the headroom state
 * (shared/slo/control.ts) and, while the burst floor stands, its state (shared/slo/burst-floor.ts:
 * `{ standUntil }`, about 25 bytes), each checked with its own schema, and bounded: at most the hourly
 * buckets of the longest window the policy allows (90 days: 2,160 hours, plus the partial oldest
 * one) and the minutes of the longest fast window (360). A 30-day window stores 721 buckets, about
 * 17 KB; 90 days about 50 KB, well under DynamoDB's 400 KB item.
 */
import * as z from 'zod';
import type { Reading } from '../engine/types.ts';
import type { MetricName } from '../policy/schema.ts';
import type { BudgetStatus } from '../slo/budget.ts';
import { BurstFloorStateSchema } from '../slo/burst-floor.ts';
import { HeadroomStateSchema } from '../slo/control.ts';
import { SliLedgerJsonSchema, type SliSample } from '../slo/ledger.ts';
import type { ResolvedSlo } from '../slo/objective.ts';
import { sliSample } from '../slo/step.ts';

/** 90 days (SloSchema's longest window) of hourly buckets, and the partial oldest hour. */
export const MAX_STORED_HOURS = 90 * 24 + 1;
/** SloControlSchema's longest fast window, minute by minute. */
export const MAX_STORED_MINUTES = 360;

export const StoredSloSchema = z
  .object({
    ledger: SliLedgerJsonSchema.refine((l) => l.hours.length <= MAX_STORED_HOURS, {
      message: `holds more than ${MAX_STORED_HOURS} hourly buckets (90 days)`,
    }).refine((l) => l.minutes.length <= MAX_STORED_MINUTES, {
      message: `holds more than ${MAX_STORED_MINUTES} minutes (the longest fast window)`,
    }),
    headroom: HeadroomStateSchema,
    /**
     * The burst floor's state, written only while its standUntil is set (an item without it,
     * from before the floor or after it stood down, decodes as none standing).
     */
    burst: BurstFloorStateSchema.optional(),
  })
  .strict();
export type StoredSlo = z.infer<typeof StoredSloSchema>;

/**
 * The budget as the decision record carries it (inputs.slo), beside the decision's headroom
 * (factor, reason, burn rates, budget left): what the evaluation read and recorded.
 */
export interface SloInput {
  /** "99.5 % of minutes within the SLO over 30 days" (describeObjective). */
  objective: string;
  /** The SLI: the latency signal and its threshold. */
  metric: MetricName;
  sloMs: number;
  /** This evaluation's SLI minute (epoch minute), or null without a latency reading. */
  sample: { minute: number; good: boolean; requests: number } | null;
  /** Minutes the ledger took from this evaluation: 0 when the minute was already recorded. */
  recorded: number;
  /** Observed and bad minutes in the objective's window. */
  observedMinutes: number;
  badMinutes: number;
  /** Share of observed minutes within the SLO over the window (null: none observed). */
  attainment: number | null;
  /** Share of requests within the SLO (objectives with a requests share only). */
  requestAttainment?: number | null;
  /** Minutes until the budget is gone at the slow burn rate (null: not burning). */
  exhaustsInMinutes: number | null;
  /** The budget is spent, or will be before one window's length at the slow burn rate. */
  atRisk: boolean;
}

/**
 * Requests in the latency reading's minute: the invocations reading times the instances it was
 * averaged over (its basis, else the ready count, as the engine reads it). 0 (unknown) when there
 * is no invocations reading for the same minute: a count from another minute would be a guess.
 */
function requestsIn(r: Reading | undefined, timestamp: number, ready: number): number {
  if (!r || r.timestamp !== timestamp) return 0;
  return r.value * (r.basis !== undefined && r.basis > 0 ? r.basis : ready);
}

/**
 * This evaluation's SLI minute from its newest latency reading: minute = floor(timestamp / 60 s)
 * (the reading's timestamp is the end of its CloudWatch minute, so 12:05-12:06 is minute 12:06,
 * the same for every reading of it: a re-read counts once). Null without a reading.
 */
export function sliSampleOf(
  sli: NonNullable<ResolvedSlo['sli']>,
  readings: Partial<Record<MetricName, Reading>>,
  ready: number,
): SliSample | null {
  const latency = readings[sli.metric];
  if (!latency) return null;
  const requests = requestsIn(readings.invocationsPerInstance, latency.timestamp, ready);
  return sliSample(Math.floor(latency.timestamp / 60_000), latency.value, sli.sloMs, requests);
}

/**
 * The alarm's condition (ErrorBudgetAtRisk): the budget is spent, or at the slow window's burn
 * rate it is gone before one more window's length (exhaustsInMinutes < windowMinutes, which is
 * slowBurn > the share left). Only once the ledger holds a slow window's worth of observed
 * minutes: on a fresh ledger one bad minute in the first hour reads as a burn of 200 (1 / 1 over
 * 0.005), and would alarm for three hours after it. Conservative: it ignores the bad minutes
 * that will leave the rolling window meanwhile.
 */
export function budgetAtRisk(
  status: BudgetStatus,
  windowMinutes: number,
  slowWindowMinutes: number,
): boolean {
  if (status.remaining <= 0) return true;
  if (status.window.observed < slowWindowMinutes) return false;
  return status.exhaustsInMinutes !== null && status.exhaustsInMinutes < windowMinutes;
}
