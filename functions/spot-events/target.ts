/**
 * One target's share of a spot-events batch (./run.ts reads and screens the batch): the pure step
 * (handleSpotBatch), the replacements and the shift not yet done, the SPOT write on its version,
 * and on conflict one re-read and redo; then its decision records and metrics.
 */

import { clip } from '../../shared/events/bounded.ts';
import type { SpotEvent } from '../../shared/interruptions/events.ts';
import { handleSpotBatch } from '../../shared/interruptions/handle.ts';
import type { SpotDecision } from '../../shared/interruptions/message.ts';
import { type SpotState, unmarkHandled } from '../../shared/interruptions/state.ts';
import { errorLine } from '../../shared/invocation/errors.ts';
import type { MixPlan } from '../../shared/mix/types.ts';
import type { Managed, Outcome, SpotEventsDeps, SpotEventsTelemetry, Tagged, TargetReport } from './types.ts';

export interface Start {
  spot: SpotState | null;
  version: number;
  plan: MixPlan | null;
}

/** One target's events: step, act what was not yet done, write; on conflict re-read and redo once. */
export async function handleTarget(
  deps: SpotEventsDeps,
  m: Managed,
  tagged: Tagged[],
  start: Start,
  now: number,
  killedBy: string | null,
): Promise<TargetReport> {
  const { ports, telemetry, config } = deps;
  const events = tagged.map((t) => t.event);
  const messagesOf = (pred: (e: SpotEvent) => boolean) => [
    ...new Set(tagged.filter((t) => pred(t.event)).map((t) => t.messageId)),
  ];
  const report: TargetReport = {
    targetId: m.policy.targetId,
    outcome: config.GOVERNOR_MODE === 'shadow' ? 'shadow' : killedBy ? 'killed' : 'applied',
    replaced: [],
    duplicates: 0,
    poolsMarked: [],
    breakerOpened: false,
    shifted: false,
    failedMessages: [],
    detail: killedBy ?? '',
  };
  const acting = report.outcome === 'applied';
  const detached = new Set<string>();
  const failedIds = new Set<string>();
  let shiftedKey: string | null = null;
  let current = start;
  for (let attempt = 1; attempt <= 2; attempt++) {
    const r = handleSpotBatch({ state: current.spot, events, policy: m.policy, plan: current.plan, now });
    let state = r.state;
    let shiftFailed = false;
    if (acting) {
      for (const a of r.actions) {
        if (a.kind === 'replace') {
          const todo = a.instanceIds.filter((i) => !detached.has(i) && !failedIds.has(i));
          if (todo.length === 0) continue;
          const out = await ports.groups.replace(m.region, m.groupName, todo);
          for (const i of out.detached) detached.add(i);
          for (const f of out.failed) {
            for (const i of f.instanceIds) failedIds.add(i);
            telemetry.error(clip(f.error), { targetId: m.policy.targetId });
            report.detail = clip(f.error);
          }
        }
        if (a.kind === 'shift') {
          const key = JSON.stringify(a.plan.mixedInstancesPolicy);
          if (key === shiftedKey) continue;
          try {
            const applied = await ports.mixedInstances.apply(m.region, m.groupName, a.plan);
            if (applied.status === 'busy') throw new Error(applied.message);
            if (applied.status === 'refused') report.detail = clip(applied.message);
            shiftedKey = key;
          } catch (e) {
            shiftFailed = true;
            report.detail = `the shift was not applied: ${clip(errorLine(e))}`;
            telemetry.error(report.detail, { targetId: m.policy.targetId });
          }
        }
      }
      if (shiftFailed) state = r.stateIfShiftFails;
      state = unmarkHandled(state, [...failedIds]);
    }
    if (killedBy) {
      logDecisions(telemetry, r.decisions, report.outcome, m);
      return report;
    }
    const written = await ports.spot.put(m.policy.targetId, state, current.version);
    if (written === 'written') {
      report.replaced = acting
        ? [...detached]
        : (r.actions.find((a) => a.kind === 'replace')?.instanceIds ?? []);
      report.duplicates = r.duplicates.length;
      report.poolsMarked = shiftFailed ? [] : r.poolsMarked;
      report.breakerOpened = !shiftFailed && r.actions.some((a) => a.kind === 'breaker-opened');
      report.shifted = shiftedKey !== null;
      const failedInstances = messagesOf(
        (e) => (e.kind === 'interruption' || e.kind === 'retirement') && failedIds.has(e.instanceId),
      );
      const shiftMessages = shiftFailed
        ? messagesOf(
            (e) =>
              e.kind === 'launch-failed' ||
              (r.actions.some((a) => a.kind === 'breaker-opened') && e.kind === 'interruption'),
          )
        : [];
      report.failedMessages = [...new Set([...failedInstances, ...shiftMessages])];
      if (report.failedMessages.length > 0) report.outcome = 'failed';
      logDecisions(telemetry, r.decisions, report.outcome, m, report.detail);
      emit(telemetry, report);
      return report;
    }
    const [spot, plan] = await Promise.all([
      ports.spot.get(m.policy.targetId),
      ports.plans.get(m.policy.targetId),
    ]);
    current = { spot: spot?.spot ?? null, version: spot?.version ?? 0, plan: plan?.state.plan ?? null };
  }
  report.outcome = 'superseded';
  report.detail =
    'the SPOT item changed under two attempts in a row: every message of this target is redelivered';
  report.replaced = [...detached];
  report.failedMessages = messagesOf(() => true);
  telemetry.error(report.detail, { targetId: m.policy.targetId });
  emit(telemetry, report);
  return report;
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
