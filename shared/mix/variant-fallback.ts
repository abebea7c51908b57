/**
 * SageMaker variant fallback: when the target's production variant (the primary) cannot get
 * instances of its type, the shortfall goes to another production variant of the same endpoint,
 * of another type, and traffic follows the instances; after holdMinutes the capacity goes back.
 * Pure: the shell reads the endpoint (shared/aws/variant-weights.ts), passes the stored state
 * and `now`, writes what is decided and stores the next state once the write succeeded.
 * docs/variant-fallback.md is the prose.
 *
 * Why the primary's DesiredInstanceCount is set to what it serves on a shift: one
 * UpdateEndpointWeightsAndCapacities is one update, and SageMaker rolls back the whole update when
 * any part cannot be provisioned; asking again for the type that just failed would take the
 * fallback's instances down with it.
 *
 * Why a fallback is never sent to 0 instances: a real-time variant without inference components
 * cannot scale to zero (SageMaker's "Scale an endpoint to zero instances": only endpoints that
 * host inference components); it is kept at FALLBACK_MINIMUM with weight 0.
 */
import {
  type EndpointView,
  FALLBACK_MINIMUM,
  type FallbackDecision,
  type FallbackPolicy,
  type FallbackReasonCode,
  type FallbackState,
  type VariantView,
  type VariantWrite,
} from './fallback-types.ts';

/** Weights proportional to instances: every serving instance gets the same traffic. */
function weighted(counts: Map<string, { instances: number; serves: boolean }>): VariantWrite[] {
  return [...counts].map(([variantName, c]) => ({
    variantName,
    desiredInstances: c.instances,
    desiredWeight: c.serves ? c.instances : 0,
  }));
}

interface Ctx {
  endpoint: EndpointView;
  primary: VariantView;
  listed: VariantView[];
  policy: FallbackPolicy;
  now: number;
  holdMs: number;
}

/** The listed variants as they are (serving when weighted), with `changes` applied. */
function writesWith(ctx: Ctx, changes: Record<string, { instances: number; serves: boolean }>) {
  const counts = new Map(
    ctx.listed.map((v) => [
      v.variantName,
      changes[v.variantName] ?? { instances: v.desiredInstances, serves: v.currentWeight > 0 },
    ]),
  );
  return weighted(counts);
}

/** The first listed fallback, after `after`, present in the endpoint, of a type not failed lately. */
function nextFallback(ctx: Ctx, state: FallbackState, after: string | null) {
  const order = ctx.policy.variants;
  const start = after === null ? 0 : order.findIndex((v) => v.variantName === after) + 1;
  return order.slice(start).find((v) => {
    const failedAt = state.failedTypes[v.instanceType];
    const present = ctx.listed.some((x) => x.variantName === v.variantName);
    return (
      present &&
      v.instanceType !== ctx.primary.instanceType &&
      (failedAt === undefined || ctx.now - failedAt >= ctx.holdMs)
    );
  });
}

const hold = (reason: FallbackReasonCode, message: string, state: FallbackState): FallbackDecision => ({
  action: 'hold',
  reasons: [reason],
  message,
  writes: null,
  state,
});

/** A fresh capacity failure recorded against the type it concerns. */
function noteFailure(ctx: Ctx, state: FallbackState): { state: FallbackState; failedType: string | null } {
  const f = ctx.endpoint.capacityFailure;
  const failedTypes = Object.fromEntries(
    Object.entries(state.failedTypes).filter(([, at]) => ctx.now - at < ctx.holdMs),
  );
  if (!f || f.key === state.seenFailure) return { state: { ...state, failedTypes }, failedType: null };
  const a = state.active;
  const fallback = a && ctx.listed.find((v) => v.variantName === a.variantName);
  const rolledBack =
    a !== null && a.returningSince === null && (fallback?.desiredInstances ?? 0) < a.instances;
  const type =
    f.instanceType ??
    (rolledBack ? a.instanceType : (ctx.primary.instanceType ?? `variant/${ctx.policy.primary}`));
  return {
    state: { ...state, failedTypes: { ...failedTypes, [type]: ctx.now }, seenFailure: f.key },
    failedType: type,
  };
}

function shiftTo(
  ctx: Ctx,
  state: FallbackState,
  needed: number,
  after: string | null,
  reason: FallbackReasonCode,
) {
  const serving = ctx.primary.currentInstances;
  const to = nextFallback(ctx, state, after);
  if (!to)
    return hold(
      'NoFallbackAvailable',
      `${ctx.policy.primary} is short of ${needed - serving} instances and no listed fallback variant is present with a type that has not failed in the last ${ctx.policy.holdMinutes} minutes: nothing to shift to`,
      { ...state, active: null },
    );
  const current = ctx.listed.find((v) => v.variantName === to.variantName)!;
  const instances = Math.max(needed - serving, current.desiredInstances, FALLBACK_MINIMUM);
  const writes = writesWith(ctx, {
    [ctx.policy.primary]: { instances: serving, serves: serving > 0 },
    [to.variantName]: { instances, serves: true },
  });
  const next: FallbackState = {
    ...state,
    lastShiftAt: ctx.now,
    active: {
      variantName: to.variantName,
      instanceType: to.instanceType,
      since: ctx.now,
      instances,
      returningSince: null,
      returnTo: null,
    },
  };
  const message = `${ctx.policy.primary} serves ${serving} of ${needed} instances: ${instances} asked of ${to.variantName} (${to.instanceType}) and traffic weighted by instances, for ${ctx.policy.holdMinutes} minutes`;
  return { action: 'shift' as const, reasons: [reason], message, writes, state: next };
}

function whileActive(
  ctx: Ctx,
  state: FallbackState,
  needed: number,
  failedType: string | null,
): FallbackDecision {
  const a = state.active!;
  const fallback = ctx.listed.find((v) => v.variantName === a.variantName);
  if (a.returningSince === null && failedType === a.instanceType)
    return shiftTo(ctx, state, needed, a.variantName, 'FallbackCapacityShortage');
  if (a.returningSince !== null) {
    if (failedType !== null && failedType === (ctx.primary.instanceType ?? `variant/${ctx.policy.primary}`))
      return hold(
        'ReturnFailed',
        `${ctx.policy.primary} still cannot get capacity: ${a.variantName} keeps it for another ${ctx.policy.holdMinutes} minutes`,
        { ...state, active: { ...a, since: ctx.now, returningSince: null, returnTo: null } },
      );
    if (ctx.primary.currentInstances < (a.returnTo ?? 0))
      return hold(
        'ReturnInProgress',
        `${ctx.policy.primary} serves ${ctx.primary.currentInstances} of the ${a.returnTo} instances asked back: ${a.variantName} keeps serving until they are in`,
        state,
      );
    const writes = writesWith(ctx, {
      [ctx.policy.primary]: {
        instances: Math.max(ctx.primary.desiredInstances, ctx.primary.currentInstances),
        serves: true,
      },
      [a.variantName]: { instances: FALLBACK_MINIMUM, serves: false },
    });
    return {
      action: 'return',
      reasons: ['ReturnCompleted'],
      message: `${ctx.policy.primary} serves ${ctx.primary.currentInstances} instances again: ${a.variantName} down to ${FALLBACK_MINIMUM} instance with weight 0`,
      writes,
      state: { ...state, active: null },
    };
  }
  if (ctx.now - a.since < ctx.holdMs)
    return hold(
      'FallbackHeld',
      `${a.variantName} holds ${fallback?.currentInstances ?? 0} instances until ${new Date(a.since + ctx.holdMs).toISOString()}`,
      state,
    );
  const back = ctx.primary.currentInstances + (fallback?.currentInstances ?? 0);
  const returnTo = Math.max(ctx.primary.desiredInstances, back);
  const writes = writesWith(ctx, {
    [ctx.policy.primary]: { instances: returnTo, serves: ctx.primary.currentInstances > 0 },
    ...(fallback ? { [a.variantName]: { instances: fallback.desiredInstances, serves: true } } : {}),
  });
  // Weights stay on the instances that exist until the primary's are in (ReturnCompleted).
  for (const w of writes)
    if (w.variantName === ctx.policy.primary) w.desiredWeight = ctx.primary.currentInstances;
  return {
    action: 'return',
    reasons: ['HoldElapsed'],
    message: `${ctx.policy.holdMinutes} minutes on ${a.variantName} are up: ${returnTo} instances asked back on ${ctx.policy.primary}; ${a.variantName} serves until they are in`,
    writes,
    state: { ...state, active: { ...a, returningSince: ctx.now, returnTo } },
  };
}

/**
 * hold, shift or return, with the next state. `needed`: the instances the target needs (the
 * evaluator's wanted capacity; at least the primary's DesiredInstanceCount). A write whose
 * weights would all be 0 (no variant has an instance to serve) is not made: SageMaker would
 * refuse it, and there would be nothing to route to.
 */
export function decideFallback(
  endpoint: EndpointView,
  needed: number,
  stored: FallbackState,
  policy: FallbackPolicy,
  now: number,
): FallbackDecision {
  const d = decide(endpoint, needed, stored, policy, now);
  if (d.writes && !d.writes.some((w) => w.desiredWeight > 0))
    return hold(
      'NothingServing',
      'no listed variant has an instance to serve: no weights to set, nothing written',
      stored,
    );
  return d;
}

function decide(
  endpoint: EndpointView,
  needed: number,
  stored: FallbackState,
  policy: FallbackPolicy,
  now: number,
): FallbackDecision {
  if (endpoint.status !== 'InService')
    return hold(
      'EndpointNotInService',
      `endpoint is ${endpoint.status}: no write until it is InService`,
      stored,
    );
  const primary = endpoint.variants.find((v) => v.variantName === policy.primary);
  if (!primary)
    return hold('PrimaryMissing', `the endpoint has no variant ${policy.primary}: cannot decide`, stored);
  const names = new Set([policy.primary, ...policy.variants.map((v) => v.variantName)]);
  const unlisted = endpoint.variants.find((v) => !names.has(v.variantName) && v.currentWeight > 0);
  if (unlisted)
    return hold(
      'UnlistedVariantServing',
      `variant ${unlisted.variantName} takes traffic and is not in variantFallback: weights cannot be set without it; list it or set its weight to 0`,
      stored,
    );
  const ctx: Ctx = {
    endpoint,
    primary,
    listed: endpoint.variants.filter((v) => names.has(v.variantName)),
    policy,
    now,
    holdMs: policy.holdMinutes * 60_000,
  };
  const want = Math.max(needed, primary.desiredInstances);
  const { state, failedType } = noteFailure(ctx, stored);
  if (state.active) return whileActive(ctx, state, want, failedType);
  if (failedType === null)
    return hold(
      'PrimaryServing',
      `${policy.primary} has had no new capacity failure: nothing to shift`,
      state,
    );
  if (want <= primary.currentInstances)
    return hold(
      'NoShortfall',
      `${failedType} could not be had, but ${policy.primary} serves the ${want} instances needed`,
      state,
    );
  if (state.lastShiftAt !== null && now - state.lastShiftAt < ctx.holdMs)
    return hold(
      'ShiftRateHold',
      `a shift was made less than ${policy.holdMinutes} minutes ago: at most one per holdMinutes`,
      state,
    );
  return shiftTo(ctx, state, want, null, 'PrimaryCapacityShortage');
}
