/**
 * The per-target state item in DynamoDB (`pk=TARGET#<id>`, `sk=STATE`), decoded with zod: the
 * engine's state, the pending change (./pending.ts), the forecast function's floor and noise
 * (shared/floors/stored.ts) and the burst floor's demand (./burst-demand.ts), the measured lead
 * times (./lead-samples.ts) and the error budget's part (./slo.ts). Each part is decoded on its own; a part that does not decode is set aside
 * with a problem line, never fatal.
 */

import * as z from 'zod';
import { appendAll } from '../arrays/extent.ts';
import { type EngineState, EngineStateSchema } from '../engine/types.ts';
import {
  type ForecastFloor,
  ForecastFloorSchema,
  type StoredNoise,
  StoredNoiseSchema,
} from '../floors/stored.ts';
import { type StoredBurstDemand, StoredBurstDemandSchema } from './burst-demand.ts';
import { decodeLeadTimes, noLeadTimes, type StoredLeadTimes } from './lead-samples.ts';
import { type Pending, PendingSchema } from './pending.ts';
import { type StoredSlo, StoredSloSchema } from './slo.ts';

export const STATE_SK = 'STATE';
export const targetPk = (targetId: string) => `TARGET#${targetId}`;

const StateItemSchema = z.looseObject({
  version: z.number().int().min(0).optional(),
  engine: z.unknown().optional(),
  pending: z.unknown().optional(),
  forecastFloor: z.unknown().optional(),
  leadTimes: z.unknown().optional(),
  leadTimesSfn: z.unknown().optional(),
  noise: z.unknown().optional(),
  burstDemand: z.unknown().optional(),
  slo: z.unknown().optional(),
});

export interface StoredState {
  /** null when no evaluation has written the item yet (conditional create). */
  version: number | null;
  engine: EngineState | undefined;
  pending: Pending | undefined;
  /** The forecast function's floor schedule, as stored; whether it applies now is for the picker. */
  forecastFloor: ForecastFloor | undefined;
  /** Measured scale-outs (`leadTimes`, `leadTimesSfn`; shared/state/lead-samples.ts). */
  lead: StoredLeadTimes;
  /** The forecast function's measured noise (`noise`; shared/floors/noise.ts), as stored. */
  noise: StoredNoise | undefined;
  /** The forecast function's burst demand (`burstDemand`; ./burst-demand.ts); absent on older items. */
  burstDemand: StoredBurstDemand | undefined;
  /** The error-budget control's ledger and headroom (`slo`; ./slo.ts); absent on older items. */
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
 * used (shared/floors/forecast.ts), with the target's refreshMinutes.
 */
export function decodeState(item: Record<string, unknown> | undefined): StoredState {
  const out: StoredState = {
    version: null,
    engine: undefined,
    pending: undefined,
    forecastFloor: undefined,
    lead: noLeadTimes(),
    noise: undefined,
    burstDemand: undefined,
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
  if (parsed.data.burstDemand !== undefined) {
    const burst = StoredBurstDemandSchema.safeParse(parsed.data.burstDemand);
    if (burst.success) out.burstDemand = burst.data;
    else
      out.problems.push(
        `burstDemand set aside (no burst floor until the next forecast run measures it): ${issuesOf(burst.error)}`,
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
