/**
 * What to do with a decision, before any action: a pure function of the decision and what the
 * evaluation learned (mode, kill switch, other scalers, target status). Precedence, first match
 * wins: shadow mode > kill switch > target in another region > conflicting scaler with
 * onConflictingScaler "refuse", or one suspending cannot stop (predictive scaling on a group;
 * conflicts.ts) > hold > a change already made this period (deferred) > target busy (deferred)
 * > act.
 *
 * One change per period: step limits are per period, but an extra evaluation within a period
 * (an alarm right after the tick, or a concurrent duplicate) could otherwise take a second step,
 * e.g. 2 -> 6 (step limit +4), then 6 -> 8 twenty seconds later. The change waits for the next
 * period instead; pinned by tests/functions/concurrency.test.ts.
 *
 * `persist` says whether the engine's next state is written. It is not when a capacity change
 * was decided but not carried out (killed, refused, deferred): the state then keeps saying what
 * really happened, so cooldowns and stabilization windows are not started by actions that
 * never ran. Shadow mode persists, so its records show what Governor would do.
 */
import type { Decision } from '../engine/types.ts';
import type { Mode } from '../invocation/config.ts';
import type { TargetPolicy } from '../policy/schema.ts';
import { type Conflict, conflictMessage, refusal } from './conflicts.ts';

/** `held`: the decision was a hold (nothing to change); `applied`: a change was made. */
export type Outcome =
  | 'shadow'
  | 'killed'
  | 'held'
  | 'applied'
  | 'deferred'
  | 'started'
  | 'failed'
  | 'refused';

export interface PlanContext {
  mode: Mode;
  killSwitch: boolean;
  /** Why the switch counts as on, when not simply set to "on" (missing, unreadable, another value). */
  killSwitchWhy?: string;
  conflict: Conflict | null;
  /** EndpointStatus, InferenceComponentStatus or 'InService' for a group with no activity. */
  status: string;
  /** The region the function (and the state machine) runs in. */
  homeRegion: string;
  /** When capacity last changed (epoch ms, from the engine state), or null. */
  lastChangeAt: number | null;
  now: number;
}

/** Same fraction of a period as the engine's "extra look within the same period" (decide.ts). */
const SAME_PERIOD_FRACTION = 0.75;

export type Plan =
  | { kind: 'record'; outcome: Outcome; persist: boolean; suspend: boolean; detail: string }
  | { kind: 'act'; via: 'state-machine' | 'set-desired-capacity'; suspend: boolean; detail: string };

const usesStateMachine = (t: TargetPolicy) => t.kind !== 'ec2-asg';

export function planFor(decision: Decision, target: TargetPolicy, ctx: PlanContext): Plan {
  const change = decision.action !== 'hold';
  const record = (outcome: Outcome, detail: string, persist = !change, suspend = false): Plan => ({
    kind: 'record',
    outcome,
    persist,
    suspend,
    detail,
  });
  if (ctx.mode === 'shadow') {
    const note = ctx.conflict ? `; note: ${conflictMessage(ctx.conflict)}` : '';
    return record('shadow', `shadow mode: nothing is changed${note}`, true);
  }
  if (ctx.killSwitch)
    return record('killed', ctx.killSwitchWhy ?? 'the kill switch is on: no action is taken');
  if (usesStateMachine(target) && target.region !== ctx.homeRegion) {
    return record(
      'refused',
      `target is in ${target.region} but the scale-target state machine runs in ${ctx.homeRegion}: deploy Governor in ${target.region} for it`,
    );
  }
  const refused = ctx.conflict ? refusal(ctx.conflict, target.onConflictingScaler) : null;
  if (refused) return record('refused', refused);
  // Past the refusal, a conflict means onConflictingScaler: suspend and a scaler it stops.
  const suspend = ctx.conflict !== null;
  if (!change) return record('held', 'hold: nothing to change', true, suspend);
  const periodMs = target.damping.periodSeconds * 1000;
  if (ctx.lastChangeAt !== null && ctx.now - ctx.lastChangeAt < periodMs * SAME_PERIOD_FRACTION) {
    const ago = Math.round((ctx.now - ctx.lastChangeAt) / 1000);
    return record(
      'deferred',
      `capacity already changed ${ago} s ago, within this ${target.damping.periodSeconds} s period: one change per period, the next evaluation decides`,
    );
  }
  if (ctx.status !== 'InService') {
    return record('deferred', `target status is ${ctx.status}; the change waits for the next evaluation`);
  }
  const to = `${decision.currentCapacity} -> ${decision.desiredCapacity}`;
  return usesStateMachine(target)
    ? { kind: 'act', via: 'state-machine', suspend, detail: `scale-target state machine started for ${to}` }
    : { kind: 'act', via: 'set-desired-capacity', suspend, detail: `SetDesiredCapacity ${to}` };
}
