/**
 * One batch of spot events for one target (an ec2-asg group with capacityMix.spot), pure:
 * (SPOT state, events, the target's mix policy, the plan in force, now) -> (next state, actions,
 * decisions). docs/interruptions.md is the prose; tests/interruptions/ pin each rule.
 *
 *  - An interruption warning or a scheduled retirement asks for the instance's replacement once:
 *    an instance already handled (warned twice, warned then retired, redelivered) is a
 *    duplicate and gives no action. All of a batch's replacements are one action.
 *  - A scheduled retirement, given the group as read back (active mode), is not detached: the
 *    group is raised by one for it, up to its MaxSize, and it is recorded as retiring (its
 *    termination waits for the replacement, ./retirements.ts); beyond MaxSize it is terminated at
 *    once (planSurge, ./retire.ts). An instance already retiring is a duplicate.
 *  - A rebalance recommendation is recorded and replaces nothing (it is a risk, not a notice;
 *    acting on each would churn the fleet).
 *  - A spot launch that failed for lack of capacity leaves its pool (or, naming no type, every
 *    pool) out of spot for poolUnavailableMinutes from the event's time.
 *  - The breaker opens when more than reclaimedPercent of the plan's spot instances were warned
 *    within windowMinutes, and holds openMinutes: no spot meanwhile.
 *  - When a pool runs dry or the breaker opens, the plan in force is re-made for the new
 *    availability (replanFor) and, if its MixedInstancesPolicy differs, the group is shifted.
 */
import { poolKey } from '../mix/pools.ts';
import { replanFor } from '../mix/shift.ts';
import type { MixPlan, MixPolicy, SpotAvailability } from '../mix/types.ts';
import type { SpotEvent } from './events.ts';
import { type Counted, describeSpot, type SpotDecision } from './message.ts';
import { type GroupHealth, planSurge, type SurgePlan } from './retire.ts';
import { availabilityAt, boundSpotState, initialSpotState, pruneSpotState, type SpotState } from './state.ts';

export type SpotAction =
  | { kind: 'replace'; instanceIds: string[] }
  | ({ kind: 'retire'; groupName: string } & SurgePlan)
  | { kind: 'shift'; plan: MixPlan; availability: SpotAvailability }
  | { kind: 'breaker-opened'; until: number };

export interface SpotBatchInput {
  state: SpotState | null;
  /** This target's events of the batch (any order). */
  events: readonly SpotEvent[];
  policy: MixPolicy;
  plan: MixPlan | null;
  now: number;
  /**
   * The target's group as read back before the batch (active mode, ./retire.ts): retirements are
   * then carried out by a surge. Absent (shadow mode): they are decided and described, nothing
   * is recorded as retiring, since nothing is raised.
   */
  group?: { name: string; health: GroupHealth } | null;
}

export interface SpotBatchResult {
  state: SpotState;
  /**
   * The state to store if the shift cannot be applied: the replacements and warnings kept, the
   * pools, spot window and breaker as they were, so the redelivered event marks and shifts again.
   */
  stateIfShiftFails: SpotState;
  actions: SpotAction[];
  decisions: SpotDecision[];
  /** The events that were duplicates (their ids), for the DuplicatesIgnored metric. */
  duplicates: string[];
  poolsMarked: string[];
}

const MINUTE = 60_000;

/** The events in time order, then by id: the same batch always gives the same result. */
const ordered = (events: readonly SpotEvent[]) =>
  [...events].sort((a, b) => a.at - b.at || a.eventId.localeCompare(b.eventId));

interface Seen {
  replaced: Counted[];
  retired: Counted[];
  duplicates: Counted[];
  rebalances: Counted[];
  pools: { type: string | null; until: number; event: SpotEvent }[];
  other: SpotEvent[];
}

function absorb(s: SpotState, e: SpotEvent, policy: MixPolicy, now: number, seen: Seen): void {
  const at = Math.min(e.at, now);
  if (e.kind === 'interruption' || e.kind === 'retirement') {
    if (e.kind === 'interruption' && s.warnings[e.instanceId] === undefined) s.warnings[e.instanceId] = at;
    if (s.handled[e.instanceId] !== undefined || Object.hasOwn(s.retiring, e.instanceId))
      seen.duplicates.push({ id: e.instanceId, event: e });
    else {
      s.handled[e.instanceId] = now;
      (e.kind === 'retirement' ? seen.retired : seen.replaced).push({ id: e.instanceId, event: e });
    }
    return;
  }
  if (e.kind === 'rebalance') {
    seen.rebalances.push({ id: e.instanceId, event: e });
    return;
  }
  if (!e.shortage) {
    seen.other.push(e);
    return;
  }
  const until = at + policy.mix.interruptions.poolUnavailableMinutes * MINUTE;
  const type = e.shortage.instanceType;
  // With capacityMix.zones, a pool is a type in one zone (shared/mix/pools.ts): a shortage in one
  // of the group's zones leaves out that pool only (key type@zone); else the type in every zone.
  const az = e.shortage.availabilityZone;
  const zone = az && policy.mix.zones?.includes(az) ? az : null;
  // A shortage naming no type is written into every pool (of its zone): the planner knows pools.
  const keys = (type === null ? policy.mix.pools.map((p) => p.instanceType) : [type]).map((t) =>
    poolKey(t, zone),
  );
  const whole = type === null && zone === null;
  const longer = whole
    ? until > (s.spotUnavailableUntil ?? 0)
    : keys.some((k) => until > (s.poolsUnavailableUntil[k] ?? 0));
  if (until <= now || !longer) {
    seen.duplicates.push({ id: type ?? 'spot', event: e });
    return;
  }
  if (whole) s.spotUnavailableUntil = until;
  for (const k of keys) s.poolsUnavailableUntil[k] = Math.max(s.poolsUnavailableUntil[k] ?? 0, until);
  seen.pools.push({ type, until, event: e });
}

/** Opens the breaker when more than reclaimedPercent of the plan's spot was warned in the window. */
function judgeBreaker(s: SpotState, plan: MixPlan | null, policy: MixPolicy, now: number): number | null {
  const b = policy.mix.interruptions.breaker;
  if (!plan || plan.spot === 0 || (s.breakerOpenUntil !== null && now < s.breakerOpenUntil)) return null;
  const warned = Object.keys(s.warnings).length;
  // Whole numbers: 41 warned of 200 at 20 % opens (4,100 > 4,000); 40 does not.
  if (warned * 100 <= b.reclaimedPercent * plan.spot) return null;
  return warned;
}

const sameAvailability = (a: SpotAvailability, b: SpotAvailability) =>
  a.breakerOpen === b.breakerOpen && a.unavailablePools.join() === b.unavailablePools.join();

/**
 * The batch's new retirements on the group as read: the surge, and the surged ones recorded as
 * retiring in `s`. Without a group (shadow mode) nothing is recorded: null.
 */
function retire(
  s: SpotState,
  retired: readonly Counted[],
  group: SpotBatchInput['group'] | null,
  now: number,
): SurgePlan | null {
  if (!group || retired.length === 0) return null;
  const surge = planSurge(
    retired.map((x) => x.id),
    group.health,
  );
  for (const id of surge.surged) s.retiring[id] = { at: now, group: group.name };
  return surge;
}

export function handleSpotBatch(input: SpotBatchInput): SpotBatchResult {
  const { policy, plan, now } = input;
  const b = policy.mix.interruptions.breaker;
  const before = pruneSpotState(input.state ?? initialSpotState(), now, b.windowMinutes * MINUTE);
  const s: SpotState = structuredClone(before);
  const seen: Seen = { replaced: [], retired: [], duplicates: [], rebalances: [], pools: [], other: [] };
  for (const e of ordered(input.events)) absorb(s, e, policy, now, seen);
  const surge = retire(s, seen.retired, input.group ?? null, now);
  const stateIfShiftFails: SpotState = {
    ...before,
    handled: { ...s.handled },
    warnings: { ...s.warnings },
    retiring: { ...s.retiring },
  };

  const actions: SpotAction[] = [];
  const decisions: SpotDecision[] = [];
  const say = (d: Omit<SpotDecision, 'targetId' | 'at' | 'message'>) =>
    decisions.push({ ...d, targetId: policy.targetId, at: now, message: describeSpot(d, policy, plan) });

  if (seen.replaced.length > 0) {
    actions.push({ kind: 'replace', instanceIds: seen.replaced.map((x) => x.id) });
    say({ kind: 'replace', reasons: ['InstanceReplaced'], items: seen.replaced });
  }
  if (seen.retired.length > 0) {
    if (surge && input.group) actions.push({ kind: 'retire', groupName: input.group.name, ...surge });
    const reasons = surge?.terminateNow.length
      ? (['RetirementStarted', 'RetiredAtMaxSize'] as const)
      : (['RetirementStarted'] as const);
    say({
      kind: 'retire',
      reasons: [...reasons],
      items: seen.retired,
      ...(surge ? { surge, from: input.group!.health.desired } : {}),
    });
  }
  if (seen.duplicates.length > 0)
    say({ kind: 'duplicate', reasons: ['DuplicateIgnored'], items: seen.duplicates });
  if (seen.rebalances.length > 0)
    say({ kind: 'rebalance', reasons: ['RebalanceRecorded'], items: seen.rebalances });
  for (const o of seen.other)
    say({ kind: 'launch-failed', reasons: ['LaunchFailedOther'], items: [{ id: '', event: o }] });
  for (const p of seen.pools)
    say({
      kind: 'pool',
      reasons: [p.type === null ? 'SpotUnavailable' : 'PoolUnavailable'],
      items: [{ id: p.type ?? 'spot', event: p.event }],
      until: p.until,
    });

  const warned = judgeBreaker(s, plan, policy, now);
  if (warned !== null) {
    s.breakerOpenUntil = now + b.openMinutes * MINUTE;
    s.breakerOpenedAt = now;
    // The warnings that opened it are spent: once it closes, only new ones count.
    s.warnings = {};
    actions.push({ kind: 'breaker-opened', until: s.breakerOpenUntil });
    say({ kind: 'breaker', reasons: ['BreakerOpened'], items: [], until: s.breakerOpenUntil, warned });
  }

  const was = availabilityAt(before, now);
  const is = availabilityAt(s, now);
  if (!sameAvailability(was, is) && (is.breakerOpen || is.unavailablePools.length > 0)) {
    const shifted = plan ? replanFor(policy, plan, is) : null;
    if (!plan || !shifted) say({ kind: 'shift', reasons: ['NoPlanInForce'], items: [] });
    else if (JSON.stringify(shifted.mixedInstancesPolicy) === JSON.stringify(plan.mixedInstancesPolicy))
      say({ kind: 'shift', reasons: ['ShiftUnneeded'], items: [], plan: shifted });
    else {
      actions.push({ kind: 'shift', plan: shifted, availability: is });
      say({ kind: 'shift', reasons: ['MixShifted'], items: [], plan: shifted });
    }
  }
  // Held to its bounds only now: the breaker above counted every warning of the batch.
  return {
    state: boundSpotState(s),
    stateIfShiftFails: boundSpotState(stateIfShiftFails),
    actions,
    decisions,
    duplicates: seen.duplicates.map((x) => x.event.eventId),
    poolsMarked: seen.pools.map((p) => p.type ?? 'spot'),
  };
}
