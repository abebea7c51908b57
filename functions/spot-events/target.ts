/**
 * One target's share of a spot-events batch (./run.ts reads and screens the batch), in an order
 * that cannot lose a warning (issue 18):
 *  1. Step: handleSpotBatch on the item as read. In active mode an instance marked handled that
 *     the lookup still found in its group was never detached (a failed call, or a crash after
 *     step 2): its mark is stale and it is handled again.
 *  2. Intent: the item (MIX#<target>/PLAN: the mix state, with the shifted plan as the plan in
 *     force, and the SPOT state with the warnings counted and the instances marked) written on
 *     condition of its version. On conflict: re-read and redo once; still in conflict, every
 *     message is redelivered. A failed write fails every message, and nothing was called yet.
 *  3. Act: DetachInstances (warnings), the retirements' surge (SetDesiredCapacity; at MaxSize,
 *     TerminateInstanceInAutoScalingGroup, ./retire.ts), then the shifted MixedInstancesPolicy.
 *  4. Correct: when a call failed, the item again with those instances unmarked (and the pools,
 *     breaker and plan as before a failed shift), so the redelivered message acts. Should this
 *     write fail too, the redelivery still acts (step 1), and a lost shift is re-applied by the
 *     mix function's next run, which applies the stored plan in force.
 *  5. After a shift, the item is read again: a writer that stored after us (the mix function)
 *     may have had its group write overtaken by ours, so its plan in force is applied (once).
 */
import { clip } from '../../shared/events/bounded.ts';
import type { SpotEvent } from '../../shared/interruptions/events.ts';
import { handleSpotBatch, type SpotBatchResult } from '../../shared/interruptions/handle.ts';
import type { SpotDecision } from '../../shared/interruptions/message.ts';
import type { GroupHealth } from '../../shared/interruptions/retire.ts';
import { type SpotState, unmarkHandled } from '../../shared/interruptions/state.ts';
import { errorLine } from '../../shared/invocation/errors.ts';
import { zonedAsPlanned } from '../../shared/mix/pools.ts';
import type { MixPlan, MixState } from '../../shared/mix/types.ts';
import { actRetire } from './retire.ts';
import type { Managed, Outcome, SpotEventsDeps, SpotEventsTelemetry, Tagged, TargetReport } from './types.ts';

/** The target's item as read: the mix state, the SPOT state (null: none yet) and its version. */
export interface Start {
  state: MixState;
  spot: SpotState | null;
  version: number;
}

/** The mix state with the shifted plan in force, as the backtest's controller stores it. */
export const shiftedState = (s: MixState, plan: MixPlan, now: number): MixState => ({
  ...s,
  plan,
  lastChangeAt: now,
  pendingSince: null,
});

const replacing = (e: SpotEvent) => e.kind === 'interruption' || e.kind === 'retirement';

/**
 * Step 1's rule: marks of instances the lookup found in their group are stale, except those
 * retiring: a retiring instance stays in its group by design until the mix function terminates
 * it, so its entry is the truth and a redelivered Health event for it is a duplicate.
 */
function forgetStale(spot: SpotState | null, events: readonly SpotEvent[]): SpotState | null {
  if (!spot) return null;
  const stale = events
    .filter(replacing)
    .map((e) => (e as { instanceId: string }).instanceId)
    .filter((i) => !Object.hasOwn(spot.retiring, i));
  return stale.some((i) => Object.hasOwn(spot.handled, i)) ? unmarkHandled(spot, stale) : spot;
}

interface Acted {
  detached: string[];
  failedIds: Set<string>;
  shifted: boolean;
  shiftFailed: boolean;
}

export const emptyReport = (targetId: string, outcome: Outcome): TargetReport => ({
  targetId,
  outcome,
  replaced: [],
  duplicates: 0,
  poolsMarked: [],
  breakerOpened: false,
  shifted: false,
  failedMessages: [],
  detail: '',
});

/**
 * How a target's events are handled: ./hold.ts in front, handleEvents behind it. `group`: the
 * target's group as ./hold.ts read it back (active mode, a batch with retirements), for the surge.
 */
export type TargetStep = (
  deps: SpotEventsDeps,
  m: Managed,
  tagged: Tagged[],
  start: Start,
  now: number,
  killedBy: string | null,
  group?: GroupHealth | null,
) => Promise<TargetReport>;

/** One target's events, held ones already taken out (./hold.ts). */
export const handleEvents: TargetStep = async (deps, m, tagged, start, now, killedBy, group = null) => {
  const { ports, telemetry, config } = deps;
  const id = m.policy.targetId;
  const events = tagged.map((t) => t.event);
  const messagesOf = (pred: (e: SpotEvent) => boolean) => [
    ...new Set(tagged.filter((t) => pred(t.event)).map((t) => t.messageId)),
  ];
  const report: TargetReport = {
    ...emptyReport(id, config.GOVERNOR_MODE === 'shadow' ? 'shadow' : killedBy ? 'killed' : 'applied'),
    detail: killedBy ?? '',
  };
  const acting = report.outcome === 'applied';
  let current = start;
  for (let attempt = 1; attempt <= 2; attempt++) {
    const spot = acting ? forgetStale(current.spot, events) : current.spot;
    const r = handleSpotBatch({
      state: spot,
      events,
      // Over the zones the plan was spread over (read from the group when the policy lists none).
      policy: zonedAsPlanned(m.policy, current.state.plan),
      plan: current.state.plan,
      now,
      group: acting && group ? { name: m.groupName, health: group } : null,
    });
    if (killedBy) {
      logDecisions(telemetry, r.decisions, report.outcome, m);
      return report;
    }
    const shift = r.actions.find((a) => a.kind === 'shift');
    const next = {
      state: shift ? shiftedState(current.state, shift.plan, now) : current.state,
      spot: r.state,
    };
    let written: 'written' | 'conflict';
    try {
      written = await ports.items.put(id, next, current.version);
    } catch (e) {
      return failAll(
        report,
        tagged,
        `the item was not written before any call (${clip(errorLine(e))}): nothing detached or shifted, every message is redelivered`,
        telemetry,
      );
    }
    if (written === 'conflict') {
      const again = await ports.items.get(id);
      current = {
        state: again?.state ?? current.state,
        spot: again?.spot ?? null,
        version: again?.version ?? 0,
      };
      continue;
    }
    const version = current.version + 1;
    const acted = acting
      ? await act(deps, m, r, report)
      : { detached: [], failedIds: new Set<string>(), shifted: false, shiftFailed: false };
    if (acted.failedIds.size > 0 || acted.shiftFailed) {
      const corrected = {
        state: acted.shiftFailed ? current.state : next.state,
        spot: unmarkHandled(acted.shiftFailed ? r.stateIfShiftFails : r.state, [...acted.failedIds]),
      };
      const out = await ports.items.put(id, corrected, version).catch((e: unknown) => clip(errorLine(e)));
      if (out !== 'written')
        telemetry.error(
          `spot ${id}: the correction after a failed call was not stored (${out}): the redelivered message acts again (its instance is still in the group), and the mix function re-applies the plan in force`,
          { targetId: id },
        );
    }
    if (acted.shifted) await convergeAfterShift(deps, m, version);
    report.replaced = acting
      ? acted.detached
      : r.decisions
          .filter((d) => d.kind === 'replace' || d.kind === 'retire')
          .flatMap((d) => d.items.map((x) => x.id));
    report.duplicates = r.duplicates.length;
    report.poolsMarked = acted.shiftFailed ? [] : r.poolsMarked;
    report.breakerOpened = !acted.shiftFailed && r.actions.some((a) => a.kind === 'breaker-opened');
    report.shifted = acted.shifted;
    const failedInstances = messagesOf(
      (e) => replacing(e) && acted.failedIds.has((e as { instanceId: string }).instanceId),
    );
    const breakerOpened = r.actions.some((a) => a.kind === 'breaker-opened');
    const shiftMessages = acted.shiftFailed
      ? messagesOf((e) => e.kind === 'launch-failed' || (breakerOpened && e.kind === 'interruption'))
      : [];
    report.failedMessages = [...new Set([...failedInstances, ...shiftMessages])];
    if (report.failedMessages.length > 0) report.outcome = 'failed';
    logDecisions(telemetry, r.decisions, report.outcome, m, report.detail);
    emit(telemetry, report);
    return report;
  }
  report.outcome = 'superseded';
  report.detail =
    'the item changed under two attempts in a row: nothing was called, every message of this target is redelivered';
  report.failedMessages = messagesOf(() => true);
  telemetry.error(report.detail, { targetId: id });
  emit(telemetry, report);
  return report;
};

/** Step 3: the replacements, then the shift; what failed is named, nothing thrown. */
async function act(
  deps: SpotEventsDeps,
  m: Managed,
  r: SpotBatchResult,
  report: TargetReport,
): Promise<Acted> {
  const { ports, telemetry } = deps;
  const out: Acted = { detached: [], failedIds: new Set(), shifted: false, shiftFailed: false };
  for (const a of r.actions) {
    if (a.kind === 'replace' || a.kind === 'retire') {
      const done =
        a.kind === 'retire'
          ? await actRetire(deps, m, a).then((x) => ({ detached: x.done, failed: x.failed }))
          : await ports.groups.replace(m.region, m.groupName, a.instanceIds).catch((e: unknown) => ({
              detached: [] as string[],
              failed: [{ instanceIds: a.instanceIds, error: errorLine(e) }],
            }));
      out.detached.push(...done.detached);
      for (const f of done.failed) {
        for (const i of f.instanceIds) out.failedIds.add(i);
        telemetry.error(clip(f.error), { targetId: m.policy.targetId });
        report.detail = clip(f.error);
      }
    }
    if (a.kind === 'shift') {
      try {
        const applied = await ports.mixedInstances.apply(m.region, m.groupName, a.plan);
        if (applied.status === 'busy') throw new Error(applied.message);
        if (applied.status === 'refused') report.detail = clip(applied.message);
        out.shifted = true;
      } catch (e) {
        out.shiftFailed = true;
        report.detail = `the shift was not applied: ${clip(errorLine(e))}`;
        telemetry.error(report.detail, { targetId: m.policy.targetId });
      }
    }
  }
  return out;
}

/** Step 5: a newer item's plan in force wins the group, whichever group write landed last. */
async function convergeAfterShift(deps: SpotEventsDeps, m: Managed, version: number): Promise<void> {
  try {
    const now = await deps.ports.items.get(m.policy.targetId);
    if (!now || now.version === version || !now.state.plan) return;
    await deps.ports.mixedInstances.apply(m.region, m.groupName, now.state.plan);
    deps.telemetry.info(
      `spot ${m.policy.targetId}: the item moved to version ${now.version} during the shift: its plan in force was applied to ${clip(m.groupName)}`,
    );
  } catch (e) {
    deps.telemetry.error(
      `spot ${m.policy.targetId}: the item could not be re-read after the shift (${clip(errorLine(e))}); the mix function applies the plan in force at its next run`,
    );
  }
}

function failAll(r: TargetReport, tagged: Tagged[], detail: string, t: SpotEventsTelemetry): TargetReport {
  r.outcome = 'failed';
  r.detail = detail;
  r.failedMessages = [...new Set(tagged.map((x) => x.messageId))];
  t.error(`spot ${r.targetId}: ${detail}`, { targetId: r.targetId });
  emit(t, r);
  return r;
}

function logDecisions(
  t: SpotEventsTelemetry,
  decisions: SpotDecision[],
  outcome: Outcome,
  m: Managed,
  detail = '',
) {
  for (const d of decisions)
    t.decision({
      kind: d.kind,
      targetId: d.targetId,
      groupName: clip(m.groupName),
      at: new Date(d.at).toISOString(),
      outcome,
      reasons: d.reasons,
      message: d.message,
      instanceIds: d.items.map((x) => x.id),
      eventIds: d.items.map((x) => clip(x.event.eventId)),
      ...(d.until !== undefined ? { until: new Date(d.until).toISOString() } : {}),
      ...(d.plan ? { mixedInstancesPolicy: d.plan.mixedInstancesPolicy } : {}),
      ...(detail ? { detail: clip(detail) } : {}),
    });
}

function emit(t: SpotEventsTelemetry, r: TargetReport) {
  t.count('ReplacementsRequested', r.replaced.length);
  t.count('DuplicatesIgnored', r.duplicates);
  t.count('PoolsMarkedUnavailable', r.poolsMarked.length);
  t.count('SpotBreakerOpened', r.breakerOpened ? 1 : 0);
}
