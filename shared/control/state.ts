/**
 * The per-target state item in DynamoDB (`pk=TARGET#<id>`, `sk=STATE`), decoded with zod, and
 * the "pending" change it carries: a capacity change Governor started that the live API may
 * not show yet (a state machine execution takes seconds to call SageMaker). While pending, the
 * engine sees the requested capacity, so a second evaluation in the same minute holds
 * (CapacityPending) instead of asking again.
 */

import * as z from 'zod';
import { appendAll } from '../arrays/extent.ts';
import { type EngineState, EngineStateSchema } from '../engine/types.ts';
import type { TargetPolicy } from '../policy/schema.ts';
import { decodeLeadTimes, noLeadTimes, type StoredLeadTimes } from './lead-samples.ts';
import { type StoredSlo, StoredSloSchema } from './slo-state.ts';

export const STATE_SK = 'STATE';
export const targetPk = (targetId: string) => `TARGET#${targetId}`;

export const PendingSchema = z.object({
  decisionId: z.string().min(1),
  desiredCapacity: z.number().int().min(0),
  previousCapacity: z.number().int().min(0),
  /** Epoch ms the change was started. */
  at: z.number(),
});
export type Pending = z.infer<typeof PendingSchema>;

/**
 * Written by the forecast function (functions/forecast, docs/forecast-aws.md): a floor schedule
 * at five-minute steps. capacities[i] holds from startsAt + 5 i minutes for five minutes, and is
 * already the most the forecast needs over [t, t + leadTimeMinutes] for t in that step, so the
 * evaluator takes the step of `now` as it is (shared/control/forecast-floor.ts picks it).
 */
export const ForecastFloorSchema = z.looseObject({
  quantile: z.string().min(1),
  /** Epoch ms the forecast was made; a floor older than 2 x refreshMinutes is stale. */
  computedAt: z.number(),
  /** Epoch ms of step 0's start (the forecast's origin, a five-minute boundary). */
  startsAt: z.number(),
  stepMinutes: z.literal(5),
  /** The lead each step covers: the policy's leadTimeMinutes, or more when measured (lead-time.ts). */
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
  /** A level floor's level: the median of the last noise.levelMinutes minutes, requests a minute. */
  level: z.number().min(0).optional(),
});
export type ForecastFloor = z.infer<typeof ForecastFloorSchema>;

/**
 * Written by the forecast function next to the floor: the measured noise of the target's
 * per-minute demand around its level, Var(demand - level) = a x level + b x level^2, in requests
 * a minute as CloudWatch counts them (shared/forecast/noise-model.ts; docs/forecast-aws.md).
 * The evaluator widens the invocationsPerInstance band with it (shared/control/noise.ts).
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

const StateItemSchema = z.looseObject({
  version: z.number().int().min(0).optional(),
  engine: z.unknown().optional(),
  pending: z.unknown().optional(),
  forecastFloor: z.unknown().optional(),
  leadTimes: z.unknown().optional(),
  leadTimesSfn: z.unknown().optional(),
  noise: z.unknown().optional(),
  slo: z.unknown().optional(),
});

export interface StoredState {
  /** null when no evaluation has written the item yet (conditional create). */
  version: number | null;
  engine: EngineState | undefined;
  pending: Pending | undefined;
  /** The forecast function's floor schedule, as stored; whether it applies now is for the picker. */
  forecastFloor: ForecastFloor | undefined;
  /** Measured scale-outs (`leadTimes`, `leadTimesSfn`; shared/control/lead-samples.ts). */
  lead: StoredLeadTimes;
  /** The forecast function's measured noise (`noise`; shared/control/noise.ts), as stored. */
  noise: StoredNoise | undefined;
  /** The error-budget control's ledger and headroom (`slo`; ./slo-state.ts); absent on older items. */
  slo: StoredSlo | undefined;
  /** Parts of the item that did not decode and were set aside (logged; never fatal). */
  problems: string[];
}

const issuesOf = (e: z.ZodError) =>
  e.issues.map((i) => `${i.path.join('.') || '(value)'} ${i.message}`).join('; ');

/**
 * A raw item (or none) to StoredState. A corrupt `engine` map restarts the engine from its
 * initial state (every streak at 0: the most cautious start) and says so, instead of leaving the
 * target unmanaged. No clock: whether a forecast floor still applies is decided where it is
 * used (shared/control/forecast-floor.ts), with the target's refreshMinutes.
 */
export function decodeState(item: Record<string, unknown> | undefined): StoredState {
  const out: StoredState = {
    version: null,
    engine: undefined,
    pending: undefined,
    forecastFloor: undefined,
    lead: noLeadTimes(),
    noise: undefined,
    slo: undefined,
    problems: [],
  };
  if (!item) return out;
  const parsed = StateItemSchema.safeParse(item);
  if (!parsed.success) throw new Error(`state item is malformed: ${issuesOf(parsed.error)}`);
  out.version = parsed.data.version ?? null;
  if (parsed.data.engine !== undefined) {
    const engine = EngineStateSchema.safeParse(parsed.data.engine);
    if (engine.success) out.engine = engine.data;
    else
      out.problems.push(
        `engine state set aside (restarting from the initial state): ${issuesOf(engine.error)}`,
      );
  }
  if (parsed.data.pending !== undefined) {
    const pending = PendingSchema.safeParse(parsed.data.pending);
    if (pending.success) out.pending = pending.data;
    else out.problems.push(`pending change set aside: ${issuesOf(pending.error)}`);
  }
  if (parsed.data.forecastFloor !== undefined) {
    const floor = ForecastFloorSchema.safeParse(parsed.data.forecastFloor);
    if (floor.success) out.forecastFloor = floor.data;
    else out.problems.push(`forecastFloor set aside: ${issuesOf(floor.error)}`);
  }
  if (parsed.data.noise !== undefined) {
    const noise = StoredNoiseSchema.safeParse(parsed.data.noise);
    if (noise.success) out.noise = noise.data;
    else
      out.problems.push(
        `noise set aside (the band keeps its tolerance until the next forecast run): ${issuesOf(noise.error)}`,
      );
  }
  if (parsed.data.slo !== undefined) {
    const slo = StoredSloSchema.safeParse(parsed.data.slo);
    if (slo.success) out.slo = slo.data;
    else
      out.problems.push(
        `slo set aside (the SLI ledger starts empty and the headroom at the policy's targets): ${issuesOf(slo.error)}`,
      );
  }
  const lead = decodeLeadTimes(parsed.data);
  out.lead = lead.lead;
  appendAll(out.problems, lead.problems);
  return out;
}

/**
 * How long a started change counts as pending: three periods, at least 180 s. A state machine
 * applies a change within seconds unless the endpoint is busy; after this window the live
 * capacity is believed again (a failed execution must not hide forever behind its request).
 */
export const pendingWindowMs = (policy: TargetPolicy): number =>
  Math.max(180, 3 * policy.damping.periodSeconds) * 1000;

const active = (p: Pending | undefined, liveDesired: number, now: number, windowMs: number): p is Pending =>
  p !== undefined && now - p.at < windowMs && liveDesired !== p.desiredCapacity;

/** The desired capacity the engine should see: a pending request the live API does not show yet. */
export function effectiveDesired(
  liveDesired: number,
  pending: Pending | undefined,
  now: number,
  windowMs: number,
): number {
  return active(pending, liveDesired, now, windowMs) ? pending.desiredCapacity : liveDesired;
}

/** The pending change to keep when this evaluation starts none: the old one while it is still in flight. */
export function carriedPending(
  previous: Pending | undefined,
  liveDesired: number,
  now: number,
  windowMs: number,
): Pending | undefined {
  return active(previous, liveDesired, now, windowMs) ? previous : undefined;
}
