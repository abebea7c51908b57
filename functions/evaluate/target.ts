/**
 * One target's evaluation: read state -> decide -> claim -> act -> record.
 *
 * Order, so a failure at any step leaves state consistent:
 * 1. Claim: write the engine's next state (and the change in flight, "pending") with a
 *    condition on the version read. Of concurrent evaluations exactly one claim succeeds; the
 *    others re-read state and live capacity and decide again (at most MAX_CLAIM_ATTEMPTS times),
 *    and now see the winner's pending change, so they hold instead of asking again.
 * 2. Act: start the scale-target state machine (SageMaker) or SetDesiredCapacity (group).
 * 3. If the action failed or the target was busy, write the previous engine state back
 *    (conditional on our own version): cooldowns and windows never start from an action that
 *    did not happen.
 * 4. Record: the decision record is logged and written to the audit item with its outcome.
 */

import type { Capacity } from '../../shared/aws/capacity.ts';
import { conflictMessage } from '../../shared/control/conflicts.ts';
import { pickFloor } from '../../shared/control/forecast-floor.ts';
import { planFor } from '../../shared/control/plan.ts';
import type { DecisionRecord, RecordInputs } from '../../shared/control/records.ts';
import {
  carriedPending,
  decodeState,
  effectiveDesired,
  type Pending,
  pendingWindowMs,
  type StoredState,
} from '../../shared/control/state.ts';
import { decide } from '../../shared/engine/decide.ts';
import type { TargetPolicy } from '../../shared/policy/schema.ts';
import { type Acted, act, undoClaim } from './act.ts';
import type { Attempt, TargetContext, TargetInputs } from './context.ts';
import { readCapacity } from './observe.ts';

export type { TargetContext } from './context.ts';

/** Tries to win the conditional write before handing the period to the next tick. */
export const MAX_CLAIM_ATTEMPTS = 4;

const lastChange = (s: StoredState): number | null => {
  const times = [s.engine?.lastScaleOutAt, s.engine?.lastScaleInAt].filter(
    (t): t is number => typeof t === 'number',
  );
  return times.length === 0 ? null : Math.max(...times);
};

function attempt(
  ctx: TargetContext,
  t: TargetPolicy,
  capacity: Capacity,
  stored: StoredState,
  inp: TargetInputs,
): Attempt {
  const conflict = inp.conflict instanceof Error ? null : inp.conflict;
  const window = pendingWindowMs(t);
  const desired = effectiveDesired(capacity.desired, stored.pending, ctx.now, window);
  const readings = inp.readings ?? { readings: {} };
  // The floor schedule's step for now; none when stale, not started or forecasting is off.
  const floor = pickFloor(t, stored.forecastFloor, ctx.now);
  const snapshot = {
    capacity: { desired, ready: capacity.ready },
    readings: readings.readings,
    ...(readings.activation ? { activation: readings.activation } : {}),
    ...(floor.kind === 'floor'
      ? { forecastFloor: { capacity: floor.capacity, quantile: floor.quantile } }
      : {}),
  };
  const { decision, state: next } = decide(stored.engine, snapshot, t, ctx.now);
  const plan = planFor(decision, t, {
    mode: ctx.mode,
    killSwitch: ctx.killSwitch,
    conflict,
    status: capacity.status,
    homeRegion: ctx.config.AWS_REGION,
    lastChangeAt: lastChange(stored),
    now: ctx.now,
  });
  const inputs: RecordInputs = {
    capacity: { desired, ready: capacity.ready, liveDesired: capacity.desired, status: capacity.status },
    readings: { ...readings.readings },
    activation: { ...(readings.activation ?? {}) },
    forecastFloor:
      floor.kind === 'floor'
        ? { capacity: floor.capacity, quantile: floor.quantile, computedAt: floor.computedAt }
        : null,
    killSwitch: ctx.killSwitch,
    conflict: conflict ? conflictMessage(conflict) : null,
  };
  return { stored, capacity, decision, next, plan, decisionId: ctx.newId(ctx.now), inputs };
}

async function claim(ctx: TargetContext, t: TargetPolicy, a: Attempt): Promise<boolean> {
  if (a.plan.kind === 'record' && !a.plan.persist) return true;
  const pending: Pending | undefined =
    a.plan.kind === 'act'
      ? {
          decisionId: a.decisionId,
          desiredCapacity: a.decision.desiredCapacity,
          previousCapacity: a.decision.currentCapacity,
          at: ctx.now,
        }
      : carriedPending(a.stored.pending, a.capacity.desired, ctx.now, pendingWindowMs(t));
  return ctx.ports.state.claim(t.id, a.stored.version, {
    engine: a.next,
    updatedAt: new Date(ctx.now).toISOString(),
    lastDecisionId: a.decisionId,
    pending,
  });
}

const errorText = (e: unknown) => (e instanceof Error ? `${e.name}: ${e.message}` : String(e));

function baseRecord(
  ctx: TargetContext,
  t: TargetPolicy,
  decisionId: string,
): Omit<DecisionRecord, 'decision' | 'inputs' | 'outcome' | 'detail'> {
  return {
    decisionId,
    targetId: t.id,
    targetKind: t.kind,
    at: new Date(ctx.now).toISOString(),
    mode: ctx.mode,
    trigger: ctx.trigger,
    action: null,
    suspended: null,
    retries: 0,
  };
}

/** A record for a target that could not be evaluated (capacity, scalers or state unreadable). */
export function failedRecord(ctx: TargetContext, t: TargetPolicy, why: string): DecisionRecord {
  return {
    ...baseRecord(ctx, t, ctx.newId(ctx.now)),
    decision: null,
    inputs: {
      capacity: null,
      readings: {},
      activation: {},
      forecastFloor: null,
      killSwitch: ctx.killSwitch,
      conflict: null,
    },
    outcome: 'failed',
    detail: why,
  };
}

async function finish(
  ctx: TargetContext,
  t: TargetPolicy,
  a: Attempt,
  retries: number,
): Promise<DecisionRecord> {
  let acted: Acted;
  try {
    acted = await act(ctx, t, a);
  } catch (error) {
    acted = {
      outcome: 'failed',
      detail: `action failed: ${errorText(error)}`,
      action: null,
      suspended: null,
    };
  }
  if (a.plan.kind === 'act' && (acted.outcome === 'failed' || acted.outcome === 'deferred'))
    await undoClaim(ctx, t, a);
  for (const p of a.stored.problems) ctx.telemetry.warn(`state of ${t.id}: ${p}`);
  return {
    ...baseRecord(ctx, t, a.decisionId),
    decision: a.decision,
    inputs: a.inputs,
    ...acted,
    retries,
  };
}

export async function evaluateTarget(
  ctx: TargetContext,
  t: TargetPolicy,
  inp: TargetInputs,
): Promise<DecisionRecord> {
  if (inp.capacity instanceof Error)
    return failedRecord(ctx, t, `cannot read capacity: ${errorText(inp.capacity)}`);
  if (inp.conflict instanceof Error) {
    return failedRecord(ctx, t, `cannot check for other scalers: ${errorText(inp.conflict)}`);
  }
  let capacity = inp.capacity;
  let last: Attempt | undefined;
  for (let tries = 0; tries < MAX_CLAIM_ATTEMPTS; tries++) {
    if (tries > 0) {
      await ctx.backoff(tries);
      capacity = await readCapacity(ctx.ports, t);
    }
    last = attempt(ctx, t, capacity, decodeState(await ctx.ports.state.read(t.id)), inp);
    if (await claim(ctx, t, last)) return finish(ctx, t, last, tries);
  }
  return {
    ...baseRecord(ctx, t, last!.decisionId),
    decision: last!.decision,
    inputs: last!.inputs,
    outcome: 'deferred',
    detail: `lost ${MAX_CLAIM_ATTEMPTS} conditional writes to concurrent evaluations of this target; the next tick decides`,
    retries: MAX_CLAIM_ATTEMPTS,
  };
}
