/**
 * Where measured lead times come from and how they are kept in the state item. Pure.
 *
 * Two recorders, two attributes, so neither overwrites the other:
 * - `leadTimes` ([{requestedAt, servingAt}], epoch ms): the evaluator's. Every minute it reads
 *   live capacity; when the last scale-out it started has `ready` at the requested capacity, it
 *   adds one sample in the conditional write it makes anyway (servedScaleOut below).
 * - `leadTimesSfn` ([{requestedAt, servingAt}], ISO strings): the scale-target state machine's.
 *   When it verifies a scale-out InService at the new capacity it appends one sample with
 *   list_append (ASL cannot compute epoch ms: requestedAt is the execution input's, servingAt
 *   `$$.State.EnteredTime`). It cannot trim the list, so the evaluator's claim removes the oldest
 *   entries beyond LEAD_MAX_SAMPLES (REMOVE by index: appends only add at the end, so the first
 *   entries are still the ones it read).
 * Both usually measure the same scale-out (same requestedAt: the decision time); mergeLeadSamples
 * keeps one per requestedAt, the earlier servingAt (the state machine looks every 30 s, the
 * evaluator every minute).
 */
import * as z from 'zod';
import type { EngineState } from '../engine/types.ts';
import {
  addLeadSample,
  type EffectiveLead,
  effectiveLead,
  LEAD_MAX_SAMPLES,
  type LeadSample,
} from '../floors/lead-time.ts';
import type { Pending } from './pending.ts';

/** The evaluator's attribute: epoch ms. */
export const LeadTimesSchema = z.array(z.object({ requestedAt: z.number(), servingAt: z.number() }));

const isoMs = z
  .string()
  .refine((s) => Number.isFinite(Date.parse(s)), 'is not an ISO time')
  .transform((s) => Date.parse(s));
/** One entry of the state machine's attribute: ISO strings, read as epoch ms. */
export const SfnLeadSampleSchema = z.object({ requestedAt: isoMs, servingAt: isoMs });

/**
 * A scale-out older than this is not measured when it finally serves: the state machine gives
 * up after an hour (TimeoutSeconds 3600), so capacity that arrives later came from something
 * else (an operator, a later retry), not from this request.
 */
export const LEAD_GIVE_UP_MINUTES = 60;

export interface StoredLeadTimes {
  /** `leadTimes`, the evaluator's samples ([] when absent or set aside). */
  own: LeadSample[];
  /** `leadTimesSfn`, the state machine's samples that decoded. */
  sfn: LeadSample[];
  /** Entries in the raw `leadTimesSfn` list (decoded or not), for trimming; 0 when absent. */
  sfnEntries: number;
  /** `leadTimesSfn` is there but not a list: the state machine's appends fail until it is removed. */
  sfnNotAList: boolean;
}

export const noLeadTimes = (): StoredLeadTimes => ({ own: [], sfn: [], sfnEntries: 0, sfnNotAList: false });

const issuesOf = (e: z.ZodError) =>
  e.issues.map((i) => `${i.path.join('.') || '(value)'} ${i.message}`).join('; ');

/** The two raw attributes to samples, with a problem line for each part set aside (never fatal). */
export function decodeLeadTimes(raw: { leadTimes?: unknown; leadTimesSfn?: unknown }): {
  lead: StoredLeadTimes;
  problems: string[];
} {
  const lead = noLeadTimes();
  const problems: string[] = [];
  if (raw.leadTimes !== undefined) {
    const own = LeadTimesSchema.safeParse(raw.leadTimes);
    if (own.success) lead.own = own.data;
    else problems.push(`leadTimes set aside (measuring starts again): ${issuesOf(own.error)}`);
  }
  if (raw.leadTimesSfn !== undefined) {
    if (!Array.isArray(raw.leadTimesSfn)) {
      lead.sfnNotAList = true;
      problems.push('leadTimesSfn set aside: (value) is not a list; it is removed at the next write');
    } else {
      lead.sfnEntries = raw.leadTimesSfn.length;
      raw.leadTimesSfn.forEach((entry, i) => {
        const s = SfnLeadSampleSchema.safeParse(entry);
        if (s.success) lead.sfn.push(s.data);
        else problems.push(`leadTimesSfn[${i}] set aside: ${issuesOf(s.error)}`);
      });
    }
  }
  return { lead, problems };
}

/** Every sample of both recorders, one per scale-out, the newest LEAD_MAX_SAMPLES. */
export const mergeLeadSamples = (lead: StoredLeadTimes): LeadSample[] =>
  [...lead.own, ...lead.sfn].reduce<LeadSample[]>((kept, s) => addLeadSample(kept, s), []);

/**
 * What the claim does to `leadTimesSfn`: remove the oldest entries beyond LEAD_MAX_SAMPLES (23
 * entries -> the first 3), remove it whole when it is not a list, or leave it.
 */
export function sfnTrim(lead: StoredLeadTimes): number | 'all' | null {
  if (lead.sfnNotAList) return 'all';
  return lead.sfnEntries > LEAD_MAX_SAMPLES ? lead.sfnEntries - LEAD_MAX_SAMPLES : null;
}

export type ServingCheck =
  | { sample: LeadSample }
  | {
      sample: null;
      reason: 'NoScaleOut' | 'Superseded' | 'AlreadyRecorded' | 'NotServing' | 'GaveUp';
    };

interface ServingInputs {
  /** The engine state as stored (before this evaluation's decision). */
  engine: EngineState | undefined;
  pending: Pending | undefined;
  /** The evaluator's own samples so far. */
  recorded: readonly LeadSample[];
  /** Instances in service now (live). */
  ready: number;
  now: number;
}

/**
 * The sample to record now, if the last scale-out has just served: the newest scale-out the
 * engine state (lastScaleOutAt, lastScaleOutTo) or the pending change names, not followed by a
 * scale-in (a scale-out superseded before it served measures nothing), not recorded yet (one
 * sample per scale-out), with `ready` at least the capacity asked for. A scale-out superseded by
 * a larger one is measured as the larger one. Timeline: asked at t0 for 6, ready 2 at t0 + 12
 * min (NotServing), ready 6 at t0 + 13 min -> {t0, t0 + 13 min}; at t0 + 14 min AlreadyRecorded.
 */
export function servedScaleOut(inp: ServingInputs): ServingCheck {
  const outs: { at: number; to: number }[] = [];
  const ins: number[] = [];
  const e = inp.engine;
  if (e?.lastScaleOutAt != null && e.lastScaleOutTo != null)
    outs.push({ at: e.lastScaleOutAt, to: e.lastScaleOutTo });
  if (e?.lastScaleInAt != null) ins.push(e.lastScaleInAt);
  const p = inp.pending;
  if (p && p.desiredCapacity > p.previousCapacity) outs.push({ at: p.at, to: p.desiredCapacity });
  if (p && p.desiredCapacity < p.previousCapacity) ins.push(p.at);
  const last = outs.sort((a, b) => b.at - a.at)[0];
  if (!last) return { sample: null, reason: 'NoScaleOut' };
  if (ins.some((at) => at >= last.at)) return { sample: null, reason: 'Superseded' };
  if (inp.recorded.some((s) => s.requestedAt === last.at)) return { sample: null, reason: 'AlreadyRecorded' };
  if (inp.now - last.at > LEAD_GIVE_UP_MINUTES * 60_000) return { sample: null, reason: 'GaveUp' };
  if (inp.ready < last.to) return { sample: null, reason: 'NotServing' };
  return { sample: { requestedAt: last.at, servingAt: inp.now } };
}

/**
 * The lead for a target from its stored attributes: both recorders merged, then effectiveLead.
 * The forecast function reads them with the floor (one GetItem) and plans the floor over it.
 */
export function storedLead(
  configuredMinutes: number,
  raw: { leadTimes?: unknown; leadTimesSfn?: unknown },
): { lead: EffectiveLead; problems: string[] } {
  const decoded = decodeLeadTimes(raw);
  return {
    lead: effectiveLead(configuredMinutes, mergeLeadSamples(decoded.lead)),
    problems: decoded.problems,
  };
}
