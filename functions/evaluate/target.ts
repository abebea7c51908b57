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

import { scalableRef } from '../../shared/aws/app-autoscaling.ts';
import type { Capacity } from '../../shared/aws/capacity.ts';
import type { Config, Mode } from '../../shared/control/config.ts';
import {
  type Conflict,
  conflictMessage,
  type Outcome,
  type Plan,
  planFor,
} from '../../shared/control/plan.ts';
import type { TargetReadings } from '../../shared/control/readings.ts';
import {
  type DecisionRecord,
  type RecordAction,
  type RecordInputs,
  scaleTargetInput,
  type Trigger,
} from '../../shared/control/records.ts';
import {
  carriedPending,
  decodeState,
  effectiveDesired,
  type Pending,
  pendingWindowMs,
  type StoredState,
} from '../../shared/control/state.ts';
import { decide } from '../../shared/engine/decide.ts';
import { type Decision, initialState } from '../../shared/engine/types.ts';
import type { TargetPolicy } from '../../shared/policy/schema.ts';
import { readCapacity } from './observe.ts';
import type { Ports } from './ports.ts';
import type { Telemetry } from './telemetry.ts';

/** Tries to win the conditional write before handing the period to the next tick. */
export const MAX_CLAIM_ATTEMPTS = 4;

export interface TargetContext {
  config: Config;
  mode: Mode;
  ports: Ports;
  telemetry: Telemetry;
  now: number;
  killSwitch: boolean;
  trigger: Trigger;
  newId: (now: number) => string;
  /** Waits between claim attempts: 10-50 ms x attempt, jittered, so losers do not collide again. */
  backoff: (attempt: number) => Promise<void>;
}

export interface TargetInputs {
  capacity: Capacity | Error;
  conflict: Conflict | null | Error;
  readings: TargetReadings | undefined;
}

interface Attempt {
  stored: StoredState;
  capacity: Capacity;
  decision: Decision;
  next: ReturnType<typeof decide>['state'];
  plan: Plan;
  decisionId: string;
  inputs: RecordInputs;
}

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
  const snapshot = {
    capacity: { desired, ready: capacity.ready },
    readings: readings.readings,
    ...(readings.activation ? { activation: readings.activation } : {}),
    ...(stored.forecastFloor ? { forecastFloor: stored.forecastFloor } : {}),
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
    forecastFloor: stored.forecastFloor ?? null,
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

interface Acted {
  outcome: Outcome;
  detail: string;
  action: RecordAction;
  suspended: string | null;
}

async function act(ctx: TargetContext, t: TargetPolicy, a: Attempt): Promise<Acted> {
  const { plan, decision } = a;
  let suspended: string | null = null;
  if (plan.suspend) {
    const ref = scalableRef(t)!;
    await ctx.ports.scalers.suspendDynamicScaling(t.region, ref);
    suspended = ref.resourceId;
    ctx.telemetry.warn(`suspended Application Auto Scaling dynamic scaling on ${ref.resourceId}`, {
      targetId: t.id,
      undo: 'RegisterScalableTarget with SuspendedState DynamicScalingInSuspended/OutSuspended false',
    });
  }
  if (plan.kind === 'record') return { outcome: plan.outcome, detail: plan.detail, action: null, suspended };
  const to = decision.desiredCapacity;
  const from = decision.currentCapacity;
  if (plan.via === 'state-machine') {
    const input = scaleTargetInput(t, a.decisionId, to, from, new Date(ctx.now).toISOString());
    const started = await ctx.ports.executions.startScaleTarget(ctx.config.SCALE_STATE_MACHINE_ARN, input);
    const detail = started.duplicate ? `${plan.detail} (already started under this name)` : plan.detail;
    return {
      outcome: 'started',
      detail,
      action: {
        type: 'start-state-machine',
        executionName: a.decisionId,
        desiredCapacity: to,
        previousCapacity: from,
      },
      suspended,
    };
  }
  if (t.kind !== 'ec2-asg') throw new Error(`target ${t.id}: SetDesiredCapacity is for Auto Scaling groups`);
  const result = await ctx.ports.groups.setDesiredCapacity(t.region, t.autoScalingGroupName, to);
  const action: RecordAction = { type: 'set-desired-capacity', desiredCapacity: to, previousCapacity: from };
  return result.status === 'applied'
    ? { outcome: 'applied', detail: plan.detail, action, suspended }
    : {
        outcome: 'deferred',
        detail: `group is busy (${result.message}); the change waits for the next tick`,
        action,
        suspended,
      };
}

/** Writes the engine state from before the claim back, if nobody has written since. */
async function undoClaim(ctx: TargetContext, t: TargetPolicy, a: Attempt): Promise<void> {
  const restored = await ctx.ports.state.claim(t.id, (a.stored.version ?? 0) + 1, {
    engine: a.stored.engine ?? initialState(),
    updatedAt: new Date(ctx.now).toISOString(),
    lastDecisionId: a.decisionId,
    pending: carriedPending(a.stored.pending, a.capacity.desired, ctx.now, pendingWindowMs(t)),
  });
  if (!restored)
    ctx.telemetry.warn('state moved on before the undo; the newer evaluation stands', { targetId: t.id });
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
    last = attempt(ctx, t, capacity, decodeState(await ctx.ports.state.read(t.id), ctx.now), inp);
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
