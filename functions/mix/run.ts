/**
 * One run of the mix function (every 5 minutes, EventBridge Scheduler), from the raw event to one
 * decision record per target with a capacityMix. Order, so a bad event or policy costs no read:
 *   parse the tick (malformed -> EventError) -> its origin (source, account, region) and age
 *   (at most MAX_TICK_AGE_SECONDS old, 60 s ahead): refused with no AWS call -> policy from SSM
 *   (main parameter and parts; invalid -> MixPolicyError) -> targets with capacityMix -> shadow
 *   mode, or the kill switch (read every run: only "off" lets group writes through) -> batched
 *   reads: state items (the forecast floor), PLAN and SPOT items, and the last hour's requests
 *   (one GetMetricData per region) -> each target, MIX_TARGETS_IN_FLIGHT at a time: plan, apply,
 *   store (./target.ts), then its Health retirements in flight, terminated once replaced
 *   (./retirements.ts) -> record.
 * Every target is attempted. A failed read fails the targets it concerns (nothing planned on
 * guessed state), never the others: a batch of PLAN or SPOT items that fails is read again one
 * item at a time, so a malformed item fails its own target; the cost metric alone does without
 * its requests. A target is
 * not started with less than MIX_TARGET_MARGIN_MS left (deferred, DeadlineReached). A run with a
 * failed or deferred target throws at the end, after every record is written, so the function's
 * Errors alarm sees it; the next run (5 minutes) or Lambda's one retry plans again.
 */

import { newDecisionId } from '../../shared/apply/records.ts';
import type { StoredMixItem } from '../../shared/aws/mix-item.ts';
import { clip } from '../../shared/events/bounded.ts';
import { type Ignored, screenScheduledTick } from '../../shared/events/routing.ts';
import type { SpotState } from '../../shared/interruptions/state.ts';
import { deadlineReached, type TimeLeft, unlimited } from '../../shared/invocation/budget.ts';
import { errorText } from '../../shared/invocation/errors.ts';
import { readKillSwitch } from '../../shared/invocation/kill-switch.ts';
import { mapBounded } from '../../shared/invocation/pool.ts';
import { resolveMixPolicy } from '../../shared/mix/types.ts';
import type { TargetPolicy } from '../../shared/policy/schema.ts';
import { readPolicy } from '../../shared/policy-store/read.ts';
import { demandQueries, type HistoryQuery } from '../../shared/signals/demand.ts';
import { decodeState } from '../../shared/state/item.ts';
import { commitmentsByRegion, withExistingCommitment } from './commitments.ts';
import type { MixConfig } from './config.ts';
import { lastHour, requestsIn } from './inputs.ts';
import type { MixPorts } from './ports.ts';
import {
  type MixRecord,
  type MixRunContext,
  type MixTelemetry,
  mixAuditItem,
  unplannedRecord,
  type Withheld,
} from './record.ts';
import { reconcileRetirements } from './retirements.ts';
import { mixTarget, type TargetReads } from './target.ts';
import { withGroupZones } from './zones.ts';

export interface MixDeps {
  config: MixConfig;
  ports: MixPorts;
  telemetry: MixTelemetry;
  newId?: (now: number) => string;
}

export interface MixReport {
  eventId: string;
  ignored: Ignored | null;
  records: MixRecord[];
}

/** One target's reads, its Describe and Update, two PutItem: with one slow attempt each, 15 s. */
export const MIX_TARGET_MARGIN_MS = 15_000;
/** Targets planned and applied at once: each is 3-5 calls one after the other. */
export const MIX_TARGETS_IN_FLIGHT = 8;

export class MixPolicyError extends Error {
  override name = 'MixPolicyError';
}
export class MixRunError extends Error {
  override name = 'MixRunError';
}

/** A caught error as text, clipped: its message may quote what a sender controls. */
const clipped = (e: unknown) => clip(errorText(e));

async function withheld(deps: MixDeps): Promise<Withheld | null> {
  if (deps.config.GOVERNOR_MODE === 'shadow') return 'shadow';
  const name = deps.config.KILL_SWITCH_PARAMETER_NAME;
  const judged = await readKillSwitch((n) => deps.ports.parameters.get(n), name);
  if (!judged.on) return null;
  const line = `${judged.message}: no group is written and no plan stored`;
  if (judged.reason === 'On' || judged.reason === 'Release') deps.telemetry.info(line, { parameter: name });
  else deps.telemetry.error(line, { parameter: name, reason: judged.reason });
  return 'kill-switch';
}

/** Reads `what` for every target at once; a failure is kept as the Error, for each target to report. */
const attempt = <T>(what: string, read: () => Promise<T>): Promise<T | Error> =>
  read().catch((e: unknown) => new Error(`cannot read ${what}: ${clipped(e)}`));

/** The last hour's requests by target: one GetMetricData per region; unknown on any failure. */
async function requestsByTarget(deps: MixDeps, targets: readonly TargetPolicy[], now: number) {
  const window = lastHour(now);
  const queries = demandQueries(targets);
  const byRegion = new Map<string, HistoryQuery[]>();
  const regionOf = new Map(targets.map((t) => [t.id, t.region]));
  for (const q of queries) {
    const r = regionOf.get(q.targetId)!;
    byRegion.set(r, [...(byRegion.get(r) ?? []), q]);
  }
  const out = new Map<string, number | null>();
  for (const [region, list] of byRegion) {
    const results = await deps.ports.history.demand(region, list, window).catch((e: unknown) => {
      deps.telemetry.warn(
        `the last hour's requests in ${region} are unreadable (no cost per 1,000 requests this run): ${clipped(e)}`,
      );
      return null;
    });
    for (const t of targets.filter((x) => x.region === region)) {
      const own = list.filter((q) => q.targetId === t.id);
      out.set(t.id, results ? requestsIn(own, results, window) : null);
    }
  }
  return out;
}

/** A target's item: the value, null when there is none, or why it could not be read. */
type ItemRead<T> = T | null | Error;

interface Reads {
  states: Map<string, Record<string, unknown> | undefined> | Error;
  plans: Map<string, ItemRead<StoredMixItem>>;
  spot: Map<string, ItemRead<{ spot: SpotState }>>;
  requests: Map<string, number | null>;
}

/**
 * Items by id from one batched read; when the batch fails (a malformed item, throttling past
 * its retries), one GetItem per id, so a bad item fails its own target, not every target.
 */
async function itemsOf<T>(
  what: string,
  ids: string[],
  many: (ids: string[]) => Promise<Map<string, T>>,
  one: (id: string) => Promise<T | null>,
): Promise<Map<string, ItemRead<T>>> {
  try {
    const found = await many(ids);
    return new Map(ids.map((id) => [id, found.get(id) ?? null]));
  } catch {
    const out = new Map<string, ItemRead<T>>();
    for (const id of ids)
      out.set(id, await one(id).catch((e: unknown) => new Error(`cannot read the ${what}: ${clipped(e)}`)));
    return out;
  }
}

async function readAll(deps: MixDeps, targets: TargetPolicy[], now: number): Promise<Reads> {
  const ids = targets.map((t) => t.id);
  const { items: plans, legacySpot: spot } = deps.ports;
  const [states, planItems, spotItems, requests] = await Promise.all([
    attempt('the state items (forecast floors)', () => deps.ports.states.readMany(ids)),
    itemsOf(
      'PLAN item',
      ids,
      (x) => plans.getMany(x),
      (id) => plans.get(id),
    ),
    itemsOf(
      'SPOT item',
      ids,
      (x) => spot.getMany(x),
      (id) => spot.get(id),
    ),
    requestsByTarget(deps, targets, now),
  ]);
  return { states, plans: planItems, spot: spotItems, requests };
}

/** One target's reads, or why it cannot be planned (a failed read; a state item left unprocessed). */
function readsOf(t: TargetPolicy, r: Reads): TargetReads | string {
  const plan = r.plans.get(t.id) ?? null;
  const spot = r.spot.get(t.id) ?? null;
  const failed = [r.states, plan, spot].find((x) => x instanceof Error);
  if (failed) return `${failed.message}: not planned, nothing changed`;
  const states = r.states as Map<string, Record<string, unknown> | undefined>;
  if (!states.has(t.id))
    return 'its state item was left unprocessed by BatchGetItem: not planned, nothing changed';
  const state = decodeState(states.get(t.id));
  const stored = plan as StoredMixItem | null;
  return {
    stored,
    floor: state.forecastFloor,
    pending: state.pending,
    // The item's own SPOT part; before the spot-events function first wrote it, the legacy item.
    spot: stored?.spot ?? (spot as { spot: SpotState } | null)?.spot ?? null,
    requests: r.requests.get(t.id) ?? null,
  };
}

export function createMixRunner(deps: MixDeps) {
  const newId = deps.newId ?? newDecisionId;

  async function planTargets(targets: TargetPolicy[], now: number, leftMs: TimeLeft) {
    const ctx: MixRunContext = {
      config: deps.config,
      ports: deps.ports,
      now,
      withheld: await withheld(deps),
      recordBase: (t) => ({
        decisionId: newId(now),
        targetId: t.id,
        targetKind: t.kind,
        at: new Date(now).toISOString(),
        mode: deps.config.GOVERNOR_MODE,
      }),
    };
    const reads = await readAll(deps, targets, now);
    const commitments = await commitmentsByRegion(deps.ports.commitments, targets);
    return mapBounded(targets, MIX_TARGETS_IN_FLIGHT, async (t) => {
      const late = deadlineReached(leftMs(), MIX_TARGET_MARGIN_MS, "one target's plan, apply and store");
      if (late) return unplannedRecord(ctx, t, 'deferred', late);
      try {
        const own = readsOf(t, reads);
        if (typeof own === 'string') return unplannedRecord(ctx, t, 'failed', own);
        // The replacement lead follows the lead the forecast floor was planned over (measured).
        const mix = resolveMixPolicy(t, own.floor?.leadTimeMinutes)!;
        // Spread over the zones the group runs in when the policy lists none (./zones.ts), then
        // planned on what is committed there (COMMIT#<region>), never more than the policy says.
        const zoned = await withGroupZones(ctx, t, mix, own.stored?.state.plan ?? null);
        const { policy } = withExistingCommitment(
          zoned?.policy ?? mix,
          t,
          commitments.get(t.region) ?? null,
          now,
        );
        const planned = await mixTarget(ctx, t, policy, zoned?.group ? { ...own, group: zoned.group } : own);
        const record = zoned ? { ...planned, zones: zoned.zones } : planned;
        const retirements = await reconcileRetirements(ctx, t, own.stored);
        return retirements ? { ...record, retirements } : record;
      } catch (e) {
        // A malformed state item, or a bug: this target is not planned, the others are.
        return unplannedRecord(ctx, t, 'failed', `not planned: ${clipped(e)}`);
      }
    });
  }

  async function recordAll(records: MixRecord[]) {
    // Every run, so the retirements-overdue alarm clears once they are done.
    deps.telemetry.count?.(
      'RetirementsOverdue',
      records.reduce((n, r) => n + (r.retirements?.overdue.length ?? 0), 0),
    );
    for (const r of records) {
      deps.telemetry.record(r);
      await deps.ports.records.put(mixAuditItem(r, deps.config.AUDIT_TTL_DAYS)).catch((e: unknown) => {
        // Counted and alarmed as the evaluate function's (AuditWriteFailures): a hole in the trail.
        deps.telemetry.count?.('MixRecordWriteFailures', 1);
        deps.telemetry.error(
          `MixRecordWriteFailed: the decision record ${r.decisionId} of ${r.targetId} was not written to the state table; it is in this log only`,
          { error: clipped(e) },
        );
      });
    }
  }

  return async function run(
    raw: unknown,
    now: number,
    invocation: { account?: string; leftMs?: TimeLeft } = {},
  ): Promise<MixReport> {
    const { event, ignored } = screenScheduledTick(
      raw,
      now,
      { account: invocation.account, region: deps.config.AWS_REGION },
      deps.config.MAX_TICK_AGE_SECONDS,
      'event field detail-type is an alarm: the mix function runs on its 5-minute "Scheduled Event"',
    );
    if (ignored) {
      deps.telemetry.warn(`tick refused: ${ignored.reason}: ${ignored.message}`, { reason: ignored.reason });
      return { eventId: clip(event.id), ignored, records: [] };
    }
    const merged = await readPolicy(deps.ports.parameters, deps.config.POLICY_PARAMETER_NAME);
    if (!merged.ok) throw new MixPolicyError(`no valid policy: ${merged.problems.join('; ')}`);
    const targets = merged.policy.targets.filter((t) => t.capacityMix !== undefined);
    if (targets.length === 0) {
      deps.telemetry.info('no target has a capacityMix: nothing to plan');
      return { eventId: clip(event.id), ignored: null, records: [] };
    }
    const records = await planTargets(targets, now, invocation.leftMs ?? unlimited);
    await recordAll(records);
    const bad = records.filter((r) => r.outcome === 'failed' || r.outcome === 'deferred');
    if (bad.length > 0)
      throw new MixRunError(
        `mix failed for ${bad.length} of ${records.length} targets: ${bad.map((r) => r.targetId).join(', ')} (see the records)`,
      );
    return { eventId: clip(event.id), ignored: null, records };
  };
}
