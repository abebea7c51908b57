/**
 * One target's capacity mix, once per run: read -> plan (stepMix) -> apply -> store -> record.
 *
 * Order, so a failure at any step leaves state consistent. The PLAN item says which plan is in
 * force, so it is written only after the group has that plan (or needs none):
 *  1. Plan: stepMix on the stored state, the forecast floor schedule and the spot availability.
 *  2. Apply (ec2-asg, active, kill switch off): the plan in force, every run, through the
 *     mixed-instances adapter, which writes only when the group's policy differs from it (so a
 *     group changed by hand, or by an earlier run whose store failed, converges to the plan).
 *  3. Store: the planner's next state, on condition of the version read, and only when it
 *     changed, the group took the plan, and nothing withholds it. A refused, busy or failed apply
 *     stores nothing: the next run decides again from the state before (a change that was due is
 *     due again, and applied then). Under the kill switch nothing is stored either (nothing
 *     changes). Shadow mode stores the dry run and writes no group: the shadow evaluator reads
 *     it, and the first active run applies the plan in force.
 *  4. Record: one decision record with the planner's reason codes and sentence, the outcome and
 *     the plan in force (the one stored, or the one before when nothing was).
 * SageMaker targets (no spot there) are planned and stored (the evaluator's floor and budget),
 * and no AWS resource is written for the plan.
 *  5. Variant fallback (sagemaker-variant with capacityMix.variantFallback, ./fallback.ts): after
 *     the plan, its own read, decision, write and FALLBACK item, in the same record; a failed
 *     read, write or store fails the record.
 */

import type { MixStorePort, StoredMix } from '../../shared/aws/mix-store.ts';
import type { MixApplyResult } from '../../shared/aws/mixed-instances.ts';
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
  stored: StoredMix | null;
  floor: ForecastFloor | undefined;
  spot: SpotState | null;
  /** Requests over the last hour (null: unknown). */
  requests: number | null;
  /** The evaluator's pending capacity change (part of the variant fallback's need). */
  pending: Pending | undefined;
}

/** What happened to the group this run. */
export type GroupStatus = MixApplyResult['status'] | 'failed' | 'withheld' | 'none';
export interface GroupResult {
  status: GroupStatus;
  detail: string;
}

/** Step 2: the plan in force to the group, or why the group is not written. */
async function applyToGroup(ctx: MixRunContext, t: TargetPolicy, plan: MixPlan | null): Promise<GroupResult> {
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
    const out = await ctx.ports.groups.apply(t.region, t.autoScalingGroupName, plan);
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

/** Step 3's rule: may the planner's next state be stored after this group result? */
const mayStore = (ctx: MixRunContext, g: GroupResult): boolean =>
  ctx.withheld !== 'kill-switch' && ['none', 'applied', 'unchanged', 'withheld'].includes(g.status);

const sameState = (a: MixState, b: MixState) => JSON.stringify(a) === JSON.stringify(b);

type Stored = 'written' | 'unchanged' | 'conflict' | 'not-written';

/** Step 3: the next state, on condition of the version read (0: none yet). */
async function store(
  plans: MixStorePort,
  t: TargetPolicy,
  reads: TargetReads,
  next: MixState,
): Promise<Stored> {
  // Nothing new (a plan held, or no forecast yet and no item): no write.
  if (sameState(reads.stored?.state ?? initialMixState(), next)) return 'unchanged';
  return plans.put(t.id, next, reads.stored?.version ?? 0);
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
  const group = await applyToGroup(ctx, t, step.plan);
  let stored: Stored = 'not-written';
  let storeError: string | null = null;
  if (mayStore(ctx, group)) {
    try {
      stored = await store(ctx.ports.plans, t, reads, step.state);
    } catch (error) {
      storeError = `the PLAN item was not written (${errorText(error)}): the next run plans again from the state before and applies its plan`;
    }
  }
  const inForce = stored === 'written' || stored === 'unchanged' ? step.plan : before.plan;
  const fallback: FallbackRecord | null =
    t.kind === 'sagemaker-variant' && t.capacityMix?.variantFallback
      ? await fallbackTarget(ctx, t, fallbackNeed(t, reads.pending, forecast?.points[0]?.p90, ctx.now))
      : null;
  const detail = storeError
    ? `${group.detail}; ${storeError}`
    : detailOf(group, stored, step.decision.changed);
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
