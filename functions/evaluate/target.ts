/**
 * One target's evaluation: read state -> decide -> claim -> act -> record. The decision (the
 * snapshot, the engine under the error budget's headroom, the plan) is one attempt (./attempt.ts).
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
 *
 * Time: a claim is not started with less than EVALUATE_TARGET_MARGIN_MS left of the invocation
 * (shared/invocation/budget.ts): the target is recorded as deferred (DeadlineReached) with nothing
 * claimed or changed, instead of being cut off between its claim and its action.
 */

import type { DecisionRecord } from '../../shared/apply/records.ts';
import { initialState } from '../../shared/engine/types.ts';
import { addLeadSample, type LeadSample } from '../../shared/floors/lead-time.ts';
import { deadlineReached, EVALUATE_TARGET_MARGIN_MS } from '../../shared/invocation/budget.ts';
import { errorText } from '../../shared/invocation/errors.ts';
import type { TargetPolicy } from '../../shared/policy/schema.ts';
import { decodeState } from '../../shared/state/item.ts';
import { sfnTrim } from '../../shared/state/lead-samples.ts';
import { carriedPending, type Pending, pendingWindowMs } from '../../shared/state/pending.ts';
import { type Acted, act, undoClaim } from './act.ts';
import { attempt } from './attempt.ts';
import type { Attempt, TargetContext, TargetInputs } from './context.ts';
import { readCapacity } from './live.ts';

export type { TargetContext } from './context.ts';

/** Tries to win the conditional write before handing the period to the next tick. */
export const MAX_CLAIM_ATTEMPTS = 4;

/**
 * The conditional write of this attempt: the next engine state and the change in flight, plus a
 * measured scale-out when one just served, the trim of the state machine's samples and the error
 * budget's ledger. A plan that keeps the engine state as it was (killed, refused, deferred) writes
 * nothing, unless a scale-out just served or the ledger took a minute: then the stored engine
 * state is written back with them. The SLI is kept whatever Governor did with its decision: the
 * minutes around a deferred scale-out are the ones most likely bad, and a ledger without them
 * would read the budget as fuller than it is.
 */
async function claim(ctx: TargetContext, t: TargetPolicy, a: Attempt): Promise<boolean> {
  const persist = !(a.plan.kind === 'record' && !a.plan.persist);
  if (!persist && !a.leadSample && !a.slo?.changed) return true;
  const pending: Pending | undefined =
    a.plan.kind === 'act'
      ? {
          decisionId: a.decisionId,
          desiredCapacity: a.decision.desiredCapacity,
          previousCapacity: a.decision.currentCapacity,
          at: ctx.now,
        }
      : carriedPending(a.stored.pending, a.capacity.desired, ctx.now, pendingWindowMs(t));
  const trim = sfnTrim(a.stored.lead);
  return ctx.ports.state.claim(t.id, a.stored.version, {
    engine: persist ? a.next : (a.stored.engine ?? initialState()),
    updatedAt: new Date(ctx.now).toISOString(),
    lastDecisionId: a.decisionId,
    pending,
    ...(a.leadSample ? { leadTimes: addLeadSample(a.stored.lead.own, a.leadSample) } : {}),
    ...(trim !== null ? { trimLeadTimesSfn: trim } : {}),
    ...(a.slo ? { slo: a.slo.write } : {}),
  });
}

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
  return undecided(ctx, t, 'failed', why);
}

/** A record for a target left for the next tick before anything was read or written. */
export function deferredRecord(ctx: TargetContext, t: TargetPolicy, why: string): DecisionRecord {
  return undecided(ctx, t, 'deferred', why);
}

function undecided(
  ctx: TargetContext,
  t: TargetPolicy,
  outcome: 'failed' | 'deferred',
  why: string,
): DecisionRecord {
  return {
    ...baseRecord(ctx, t, ctx.newId(ctx.now)),
    decision: null,
    inputs: {
      capacity: null,
      readings: {},
      activation: {},
      forecastFloor: null,
      leadTime: null,
      noise: null,
      killSwitch: ctx.killSwitch,
      conflict: null,
    },
    outcome,
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
  // Refused here: the read-back before 0 copies (./act.ts) found the endpoint unable to follow.
  if (a.plan.kind === 'act' && ['failed', 'deferred', 'refused'].includes(acted.outcome))
    await undoClaim(ctx, t, a);
  for (const p of a.stored.problems) ctx.telemetry.warn(`state of ${t.id}: ${p}`);
  const sample = a.leadSample ? measured(ctx, t, a.leadSample) : null;
  return {
    ...baseRecord(ctx, t, a.decisionId),
    decision: a.decision,
    inputs: a.inputs,
    ...acted,
    retries,
    ...(sample ? { leadSample: sample } : {}),
  };
}

/** Logs a recorded scale-out ("lead time of chat-llm: the scale-out asked for at ... served after 13.0 min"). */
function measured(ctx: TargetContext, t: TargetPolicy, s: LeadSample) {
  const minutes = Math.round((s.servingAt - s.requestedAt) / 600) / 100;
  ctx.telemetry.info(
    `lead time of ${t.id}: the scale-out asked for at ${new Date(s.requestedAt).toISOString()} served after ${minutes.toFixed(1)} min (recorded in leadTimes)`,
    { targetId: t.id, requestedAt: s.requestedAt, servingAt: s.servingAt },
  );
  return { ...s, minutes };
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
    const late = deadlineReached(
      ctx.leftMs(),
      EVALUATE_TARGET_MARGIN_MS,
      "one target's claim, action and record",
    );
    if (late) {
      const record = deferredRecord(ctx, t, late);
      return last ? { ...record, decision: last.decision, inputs: last.inputs, retries: tries } : record;
    }
    if (tries > 0) {
      await ctx.backoff(tries);
      capacity = await readCapacity(ctx.ports, t);
    }
    // The tick's batched read serves the first attempt; after a lost claim, read again, fresh.
    const item = tries === 0 && inp.stored ? inp.stored.item : await ctx.ports.state.read(t.id);
    last = attempt(ctx, t, capacity, decodeState(item), inp);
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
