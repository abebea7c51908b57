/**
 * The interruption handler's decisions and their one sentence each (logged as decision records).
 * Reason codes are a closed union, like the mix planner's (shared/mix/types.ts).
 */
import { describePlan } from '../mix/message.ts';
import type { MixPlan, MixPolicy } from '../mix/types.ts';
import type { SpotEvent } from './events.ts';
import type { SurgePlan } from './retire.ts';

export const SPOT_REASON_CODES = [
  /** Interruption warnings and scheduled retirements: replacement asked for. */
  'InstanceReplaced',
  /** An instance already handled, or a shortage already marked as long: nothing done. */
  'DuplicateIgnored',
  /** Rebalance recommendations: recorded, no replacement. */
  'RebalanceRecorded',
  /** A failed launch that is not a spot capacity shortage: recorded, nothing to shift. */
  'LaunchFailedOther',
  'PoolUnavailable',
  'SpotUnavailable',
  'BreakerOpened',
  'MixShifted',
  /** The shifted plan's MixedInstancesPolicy is the plan in force's: nothing to write. */
  'ShiftUnneeded',
  /** No plan in force yet: the mix function plans around the new availability at its next run. */
  'NoPlanInForce',
  /** Retirements beyond the Health disruption budget: held, their message redelivered (./retire.ts). */
  'HealthBudgetHeld',
  /** Scheduled retirements: the group raised by one each, terminated once replaced (./retire.ts). */
  'RetirementStarted',
  /** Retirements beyond the group's MaxSize: terminated at once, replaced after. */
  'RetiredAtMaxSize',
] as const;
export type SpotReasonCode = (typeof SPOT_REASON_CODES)[number];

/** An instance (or pool) id and the event that named it. */
export interface Counted {
  id: string;
  event: SpotEvent;
}

export interface SpotDecision {
  targetId: string;
  at: number;
  kind: 'replace' | 'retire' | 'duplicate' | 'rebalance' | 'launch-failed' | 'pool' | 'breaker' | 'shift';
  reasons: SpotReasonCode[];
  message: string;
  items: Counted[];
  until?: number;
  warned?: number;
  plan?: MixPlan;
  /** retire: the surge on the group as read (absent in shadow mode), and its desired capacity before. */
  surge?: SurgePlan;
  from?: number;
}

/** At most five ids in a sentence: "i-1, i-2, i-3, i-4, i-5 and 495 more". */
export function listIds(ids: readonly string[], shown = 5): string {
  const head = ids.slice(0, shown).join(', ');
  return ids.length > shown ? `${head} and ${ids.length - shown} more` : head;
}

const hhmm = (ms: number) => `${new Date(ms).toISOString().slice(11, 16)} UTC`;

function replaced(items: readonly Counted[]): string {
  const warned = items.filter((x) => x.event.kind === 'interruption').length;
  const retired = items.length - warned;
  const why = [
    warned > 0 ? `${warned} interruption warnings` : '',
    retired > 0 ? `${retired} scheduled retirements` : '',
  ]
    .filter(Boolean)
    .join(', ');
  return `Asked Auto Scaling to replace ${items.length} instances at once, detaching them without lowering desired capacity (${why}): ${listIds(items.map((x) => x.id))}`;
}

type Described = Omit<SpotDecision, 'targetId' | 'at' | 'message'>;

/** The sentence of a batch's retirements: the surge, or in shadow mode what it would be. */
function retired(d: Described): string {
  const ids = d.items.map((x) => x.id);
  const s = d.surge;
  if (!s)
    return `Would raise the group's desired capacity by ${ids.length} for scheduled retirements, keeping each instance until its replacement serves, then terminate it decrementing (${listIds(ids)})`;
  const parts: string[] = [];
  if (s.surged.length > 0)
    parts.push(
      `Raised the group's desired capacity from ${d.from} to ${s.desired} for ${s.surged.length} scheduled retirements: each instance serves until its replacement does, then the mix function terminates it, decrementing (${listIds(s.surged)})`,
    );
  if (s.terminateNow.length > 0)
    parts.push(
      `terminated ${s.terminateNow.length} retiring instances at once, without decrementing, since the group is at its MaxSize: Auto Scaling replaces them after (${listIds(s.terminateNow)})`,
    );
  return parts.join('; ');
}

export function describeSpot(d: Described, policy: MixPolicy, plan: MixPlan | null): string {
  const m = policy.mix.interruptions;
  const first = d.items[0];
  switch (d.kind) {
    case 'replace':
      return replaced(d.items);
    case 'retire':
      return retired(d);
    case 'duplicate':
      return `Ignored ${d.items.length} duplicate events: ${listIds(d.items.map((x) => x.id))} already handled, so nothing is asked twice`;
    case 'rebalance':
      return `Recorded rebalance recommendations for ${listIds(d.items.map((x) => x.id))}: no replacement asked for (a recommendation is a risk, not a notice, and replacing on each would churn the fleet); an interruption warning, if one follows, replaces the instance`;
    case 'launch-failed': {
      const e = first?.event;
      const text = e?.kind === 'launch-failed' ? `${e.statusCode}: ${e.message}` : '';
      return `Recorded a failed launch (${text}): not a spot capacity shortage, so no pool is left out`;
    }
    case 'pool': {
      const e = first?.event;
      const s = e?.kind === 'launch-failed' ? e.shortage : null;
      // The zone and code the event itself gave (shared/interruptions/shortage.ts). With
      // capacityMix.zones a pool is a type in one zone, and only that zone's pools are left out;
      // without, a pool is a type across the group's zones, left out everywhere.
      const zoned = s?.availabilityZone && policy.mix.zones?.includes(s.availabilityZone);
      const what =
        first?.id === 'spot'
          ? zoned
            ? `every spot pool in ${s?.availabilityZone}`
            : 'every spot pool'
          : `spot pool ${first?.id}${zoned ? ` in ${s?.availabilityZone} (only there)` : ''}`;
      const where = s?.availabilityZone && !zoned ? ` in ${s.availabilityZone}` : '';
      const code = s?.code ? ` (${s.code})` : '';
      return `Left ${what} out of the plan until ${hhmm(d.until ?? 0)}: a spot launch failed for lack of capacity${where}${code} (poolUnavailableMinutes ${m.poolUnavailableMinutes})`;
    }
    case 'breaker':
      return `Opened the spot breaker until ${hhmm(d.until ?? 0)}: ${d.warned} of the plan's ${plan?.spot ?? 0} spot instances were warned within ${m.breaker.windowMinutes} min (more than ${m.breaker.reclaimedPercent} %); on-demand only for ${m.breaker.openMinutes} min`;
    case 'shift':
      if (d.reasons.includes('NoPlanInForce'))
        return `No plan in force for ${policy.targetId}: nothing to shift now; the mix function plans around the lost spot at its next run`;
      if (d.reasons.includes('ShiftUnneeded'))
        return `Kept the group's mix: the plan in force already runs no spot where it cannot be had (${d.plan ? describePlan(d.plan) : ''})`;
      return `Shifted the group to ${d.plan ? describePlan(d.plan) : ''}, for spot that cannot be had now`;
  }
}
