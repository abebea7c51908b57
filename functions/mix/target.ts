/**
 * One target's capacity mix, once per run: read -> plan (stepMix) -> claim -> apply -> record.
 *
 * Order, so a failure at any step leaves state consistent, and so neither this function nor the
 * spot-events function can overwrite the other's shift (issue 18: both write the one versioned
 * item MIX#<target>/PLAN, ../../shared/aws/mix-item.ts):
 *  1. Plan: stepMix on the stored state, the forecast floor schedule and the spot availability.
 *  2. Claim: the planner's next state, when it changed, on condition of the version read (the
 *     SPOT part carried as read). Lost (another writer stored since the read): no group write,
 *     nothing stored, reason Superseded and a sentence saying so. Under the kill switch nothing
 *     is stored. A failed write: no group write, the record fails.
 *  3. Apply (ec2-asg, active, kill switch off): the plan in force, every run, through the
 *     mixed-instances adapter, which writes only when the group's policy differs from it (so a
 *     group changed by hand, or by an earlier run, converges to the plan). A refused, busy or
 *     failed apply gives the claim back (the state before, on our own version): the next run
 *     decides again from it. After a write, the item is read again: a newer version's plan in
 *     force (a shift stored meanwhile) is applied, so the last group write is the newest plan.
 *     Shadow mode stores the dry run and writes no group: the shadow evaluator reads
 *     it, and the first active run applies the plan in force.
 *  4. Record: one decision record with the planner's reason codes and sentence, the outcome and
 *     the plan in force (the one stored, or the one before when nothing was).
 * SageMaker targets (no spot there) are planned and stored (the evaluator's floor and budget),
 * and no AWS resource is written for the plan.
 *  5. Variant fallback (sagemaker-variant with capacityMix.variantFallback, ./fallback.ts): after
 *     the plan, its own read, decision, write and FALLBACK item, in the same record; a failed
 *     read, write or store fails the record.
 */

import type { MixItemPort, StoredMixItem } from '../../shared/aws/mix-item.ts';
import type { GroupMixSettings, MixApplyResult } from '../../shared/aws/mixed-instances.ts';
import type { ForecastFloor } from '../../shared/floors/stored.ts';
import type { SpotState } from '../../shared/interruptions/state.ts';
import { availabilityAt } from '../../shared/interruptions/state.ts';
import { errorText } from '../../shared/invocation/errors.ts';
import { initialMixState, stepMix } from '../../shared/mix/plan.ts';
import type { MixPlan, MixPolicy, MixState, MixStepResult } from '../../shared/mix/types.ts';
import type { TargetPolicy } from '../../shared/policy/schema.ts';
import type { Pending } from '../../shared/state/pending.ts';
import { fallbackNeed, fallbackTarget } from './fallback.ts';
import { costPer1k, forecastFromFloor } from './inputs.ts';
import type { FallbackRecord, MixRecord, MixRunContext } from './record.ts';

/** What was read for one target before planning. */
export interface TargetReads {
  /** The target's one item (mix state and SPOT state), null when there is none yet. */
  stored: StoredMixItem | null;
  floor: ForecastFloor | undefined;
  spot: SpotState | null;
  /** Requests over the last hour (null: unknown). */
  requests: number | null;
  /** The evaluator's pending capacity change (part of the variant fallback's need). */
  pending: Pending | undefined;
  /** The group as this run read it for its zones (./zones.ts); the apply uses it instead of reading again. */
  group?: GroupMixSettings;
}

/** What happened to the group this run. */
export type GroupStatus = MixApplyResult['status'] | 'failed' | 'withheld' | 'none';
export interface GroupResult {
  status: GroupStatus;
  detail: string;
}

/** Step 2: the plan in force to the group, or why the group is not written. */
async function applyToGroup(
  ctx: MixRunContext,
  t: TargetPolicy,
  plan: MixPlan | null,
  read?: GroupMixSettings,
): Promise<GroupResult> {
  if (t.kind !== 'ec2-asg')
    return {
      status: 'none',
      detail: 'SageMaker has no spot: the plan is the floor and budget of the evaluator, no write',
    };
  if (!plan) return { status: 'none', detail: 'no plan yet: the group is left as it is' };
  if (ctx.withheld === 'shadow')
    return { status: 'withheld', detail: 'shadow mode (GOVERNOR_MODE): the group is not written' };
  if (ctx.withheld === 'kill-switch')
    return {
      status: 'withheld',
      detail: 'the kill switch is on: the group is not written and no plan stored',
    };
  try {
    const out = await ctx.ports.groups.apply(t.region, t.autoScalingGroupName, plan, read);
    switch (out.status) {
      case 'applied':
        return {
          status: 'applied',
          detail: `MixedInstancesPolicy of ${t.autoScalingGroupName} set to the plan`,
        };
      case 'unchanged':
        return { status: 'unchanged', detail: `${t.autoScalingGroupName} already has the plan: no write` };
      default:
        return { status: out.status, detail: out.message };
    }
  } catch (error) {
    return { status: 'failed', detail: `the group was not written: ${errorText(error)}` };
  }
}

const sameState = (a: MixState, b: MixState) => JSON.stringify(a) === JSON.stringify(b);

type Stored = 'written' | 'unchanged' | 'conflict' | 'not-written';

/**
 * Step 3 comes first (issue 18): the next state is claimed on condition of the version read (0:
 * none yet), carrying the SPOT part as read, before the group is written. A spot shift stored
 * after our read fails the condition: this run then writes no group and stores nothing.
 */
async function claim(
  items: MixItemPort,
  t: TargetPolicy,
  reads: TargetReads,
  next: MixState,
): Promise<Stored> {
  // Nothing new (a plan held, or no forecast yet and no item): no write.
  if (sameState(reads.stored?.state ?? initialMixState(), next)) return 'unchanged';
  return items.put(t.id, { state: next, spot: reads.stored?.spot ?? null }, reads.stored?.version ?? 0);
}

/**
 * A group write that did not take (failed, refused, busy) gives the claim back, on condition of
 * our own version: the next run decides again from the state before, as if nothing was stored.
 * If that write fails too, the claimed plan stays in force and the next run applies it.
 */
async function giveBack(ctx: MixRunContext, t: TargetPolicy, reads: TargetReads): Promise<boolean> {
  const before = { state: reads.stored?.state ?? initialMixState(), spot: reads.stored?.spot ?? null };
  const out = await ctx.ports.items.put(t.id, before, (reads.stored?.version ?? 0) + 1).catch(() => 'failed');
  return out === 'written';
}

/**
 * After a group write, the item again: a writer that stored after our claim (the spot-events
 * function's shift) may have had its group write overtaken by ours; its plan in force is then
 * written to the group, so the group ends with the newest item's plan whatever the order.
 */
async function converge(ctx: MixRunContext, t: TargetPolicy, version: number): Promise<string> {
  if (t.kind !== 'ec2-asg') return '';
  try {
    const now = await ctx.ports.items.get(t.id);
    if (!now || now.version === version || !now.state.plan) return '';
    await ctx.ports.groups.apply(t.region, t.autoScalingGroupName, now.state.plan);
    return `; the item moved to version ${now.version} meanwhile: its plan in force was applied to the group`;
  } catch (e) {
    return `; the item could not be read again after the write (${errorText(e)}): the next run converges`;
  }
}

function outcomeOf(
  ctx: MixRunContext,
  t: TargetPolicy,
  g: GroupResult,
  stored: Stored,
): MixRecord['outcome'] {
  if (g.status === 'failed' || g.status === 'refused' || g.status === 'busy') return g.status;
  if (ctx.withheld === 'kill-switch') return 'killed';
  if (stored === 'conflict') return 'superseded';
  if (ctx.withheld === 'shadow') return 'shadow';
  if (t.kind === 'ec2-asg' && (g.status === 'applied' || g.status === 'unchanged')) return g.status;
  return 'planned';
}

/** Why the outcome is what it is, in one sentence after the group's part. */
function detailOf(g: GroupResult, stored: Stored, changed: boolean): string {
  const kept = 'nothing stored: the next run plans again from the state before';
  if (['failed', 'refused', 'busy'].includes(g.status))
    return `${g.detail}; ${changed ? kept : 'plan unchanged'}`;
  if (stored === 'conflict')
    return `${g.detail}; another run stored its plan first: the next run applies the stored one`;
  if (stored === 'not-written') return `${g.detail}`;
  return `${g.detail}; state ${stored === 'written' ? 'stored' : 'unchanged'}`;
}

export async function mixTarget(
  ctx: MixRunContext,
  t: TargetPolicy,
  policy: MixPolicy,
  reads: TargetReads,
): Promise<MixRecord> {
  const forecast = forecastFromFloor(t, reads.floor, ctx.now);
  const availability = availabilityAt(reads.spot, ctx.now);
  const before = reads.stored?.state ?? initialMixState();
  const step: MixStepResult = stepMix(
    before,
    { forecast: forecast && { points: forecast.points }, availability },
    policy,
    ctx.now,
  );
  let stored: Stored = 'not-written';
  let storeError: string | null = null;
  if (ctx.withheld !== 'kill-switch') {
    try {
      stored = await claim(ctx.ports.items, t, reads, step.state);
    } catch (error) {
      storeError = `the PLAN item was not written (${errorText(error)}): no group written; the next run plans again from the state before`;
    }
  }
  if (stored === 'conflict')
    return supersededRecord(ctx, t, reads, step, forecast?.source ?? null, availability);
  const claimed = stored === 'written';
  let group: GroupResult = storeError
    ? { status: 'withheld', detail: 'not written: the plan could not be stored first' }
    : await applyToGroup(ctx, t, step.plan, reads.group);
  if (claimed && ['failed', 'refused', 'busy'].includes(group.status) && (await giveBack(ctx, t, reads)))
    stored = 'not-written';
  else if (claimed && group.status === 'applied')
    group = { ...group, detail: group.detail + (await converge(ctx, t, (reads.stored?.version ?? 0) + 1)) };
  const inForce = stored === 'written' || stored === 'unchanged' ? step.plan : before.plan;
  const fallback: FallbackRecord | null =
    t.kind === 'sagemaker-variant' && t.capacityMix?.variantFallback
      ? await fallbackTarget(ctx, t, fallbackNeed(t, reads.pending, forecast?.points[0]?.p90, ctx.now))
      : null;
  const detail = storeError ? storeError : detailOf(group, stored, step.decision.changed);
  return {
    ...ctx.recordBase(t),
    outcome: storeError || fallback?.ok === false ? 'failed' : outcomeOf(ctx, t, group, stored),
    reasons: step.decision.reasons,
    message: step.decision.message,
    detail: fallback ? `${detail}; variant fallback: ${fallback.detail}` : detail,
    changed: step.decision.changed,
    forecast: forecast?.source ?? null,
    availability,
    demand: step.decision.demand,
    plan: inForce,
    wanted: step.decision.wanted,
    group: group.status,
    stored,
    requestsLastHour: reads.requests,
    costPer1kRequestsUsd: inForce ? costPer1k(inForce.usdPerHour, reads.requests) : null,
    fallback,
  };
}

/** The run lost the race for the item: it changes nothing, and says so. */
function supersededRecord(
  ctx: MixRunContext,
  t: TargetPolicy,
  reads: TargetReads,
  step: MixStepResult,
  forecast: MixRecord['forecast'],
  availability: MixRecord['availability'],
): MixRecord {
  const version = reads.stored?.version ?? 0;
  return {
    ...ctx.recordBase(t),
    outcome: 'superseded',
    reasons: ['Superseded', ...step.decision.reasons],
    message: `Changed nothing: MIX#${t.id} was stored by another writer (a spot shift, or another mix run) after this run read version ${version}, so the group was not written and no plan stored; the next run plans from the newer item. This run would have said: ${step.decision.message}`,
    detail: 'another writer stored the item first: no group written, nothing stored',
    changed: false,
    forecast,
    availability,
    demand: step.decision.demand,
    plan: reads.stored?.state.plan ?? null,
    wanted: step.decision.wanted,
    group: 'withheld',
    stored: 'conflict',
    requestsLastHour: reads.requests,
    costPer1kRequestsUsd: null,
    fallback: null,
  };
}
