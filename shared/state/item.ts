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
  /** A part of the item through its own schema, or set aside with a problem line saying what that means. */
  const part = <T>(raw: unknown, schema: z.ZodType<T>, setAside: string): T | undefined => {
    if (raw === undefined) return undefined;
    const r = schema.safeParse(raw);
    if (r.success) return r.data;
    out.problems.push(`${setAside}: ${issuesOf(r.error)}`);
    return undefined;
  };
  const d = parsed.data;
  out.engine = part(
    d.engine,
    EngineStateSchema,
    'engine state set aside (restarting from the initial state)',
  );
  out.pending = part(d.pending, PendingSchema, 'pending change set aside');
  out.forecastFloor = part(d.forecastFloor, ForecastFloorSchema, 'forecastFloor set aside');
  out.noise = part(
    d.noise,
    StoredNoiseSchema,
    'noise set aside (the band keeps its tolerance until the next forecast run)',
  );
  out.burstDemand = part(
    d.burstDemand,
    StoredBurstDemandSchema,
    'burstDemand set aside (no burst floor until the next forecast run measures it)',
  );
  out.slo = part(
    d.slo,
    StoredSloSchema,
    "slo set aside (the SLI ledger starts empty and the headroom at the policy's targets)",
  );
  const lead = decodeLeadTimes(parsed.data);
  out.lead = lead.lead;
  appendAll(out.problems, lead.problems);
  return out;
}
