/**
 * Application Auto Scaling scheduled actions from the floor schedule: a backstop that raises a
 * SageMaker target's MinCapacity ahead of each predicted ramp and lowers it after, so
 * pre-warming still happens when the control plane is impaired. Pure: the plan, the names, and
 * what to put and remove given what exists (shared/aws/scheduled-actions.ts makes the calls).
 *
 * The plan is a staircase over the next 24 h of the floor (which already leads demand by the
 * lead time, so an action at a step's start is the ramp start minus the lead time):
 * - outside ramps the level is the policy's scaling.minCapacity (the baseline);
 * - it goes up to the floor when the floor is at least N instances above the level;
 * - it comes down when the floor has stayed at least N below the level for 30 minutes, to the
 *   highest floor of those 30 minutes, or to the baseline when that is within N of it;
 * - N = max(1, ceil(5 % of maxCapacity)): max 80 -> 4, max 20 -> 1. Smaller moves are the
 *   evaluator's job. When the plan has more than MAX_ACTIONS actions, N doubles until it fits.
 * Example (baseline 1, N 1, a step is 5 minutes): floor 1 1 4 6 6 6 2 2 2 2 2 2 1 1 1 1 1 1
 * -> up to 4 at step 2, to 6 at step 3, down to 2 at step 6 (the next 30 minutes stay at 2),
 * to 1 at step 12 (tests/forecast-aws/scheduled-actions.test.ts).
 */
import { maxOf } from '../arrays/extent.ts';
import type { ForecastFloor } from './stored.ts';

const STEP_MS = 5 * 60_000;
/** Actions are planned this far ahead; the hourly run replans, so beyond is never needed. */
export const PLAN_HORIZON_MS = 24 * 3_600_000;
/** A drop must last this many steps (30 minutes) before MinCapacity comes down. */
export const DOWN_HOLD_STEPS = 6;
/** At most this many actions per target (Application Auto Scaling allows 200 per target). */
export const MAX_ACTIONS = 48;
export const RAMP_FRACTION = 0.05;

export interface PlannedAction {
  /** governor-<targetId>-<yyyymmddThhmm> (UTC): one action per target and minute. */
  name: string;
  /** Epoch ms, a whole minute. */
  at: number;
  minCapacity: number;
}

export interface ExistingAction {
  name: string;
  schedule: string;
  minCapacity: number | undefined;
}

export const ACTION_PREFIX = 'governor-';

const stamp = (at: number) => new Date(at).toISOString().slice(0, 16).replace(/[-:]/g, '');
export const actionName = (targetId: string, at: number) => `${ACTION_PREFIX}${targetId}-${stamp(at)}`;
/** The one-time schedule expression, UTC: at(2025-06-02T13:05:00). */
export const atExpression = (at: number) => `at(${new Date(at).toISOString().slice(0, 19)})`;

/** Whether a scheduled action is one Governor wrote for this target (never touch others). */
export function isGovernorAction(name: string, targetId: string): boolean {
  const prefix = `${ACTION_PREFIX}${targetId}-`;
  return name.startsWith(prefix) && /^\d{8}T\d{4}$/.test(name.slice(prefix.length));
}

export const rampThreshold = (maxCapacity: number): number =>
  Math.max(1, Math.ceil(RAMP_FRACTION * maxCapacity));

export interface PlanInput {
  targetId: string;
  floor: ForecastFloor;
  baseline: number;
  maxCapacity: number;
  /** MinCapacity registered now (Describe), null when unknown. */
  liveMinCapacity: number | null;
  now: number;
}

/** The level after one step: up at once, down only after a sustained drop. */
function nextLevel(level: number, floors: readonly number[], i: number, baseline: number, n: number): number {
  const f = floors[i]!;
  if (f >= level + n) return f;
  if (level === baseline) return level;
  const hold = floors.slice(i, i + DOWN_HOLD_STEPS);
  const high = maxOf(hold);
  if (hold.length < DOWN_HOLD_STEPS || high > level - n) return level;
  return high - baseline < n ? baseline : high;
}

/** [step index, level] at every change of level within the horizon, the first at `now`'s step. */
function staircase(inp: PlanInput, n: number): [number, number][] {
  const first = Math.max(0, Math.floor((inp.now - inp.floor.startsAt) / STEP_MS));
  const last = Math.min(inp.floor.capacities.length, first + PLAN_HORIZON_MS / STEP_MS);
  const floors = inp.floor.capacities.map((c) => Math.min(inp.maxCapacity, Math.max(inp.baseline, c)));
  const steps: [number, number][] = [];
  let level = inp.baseline;
  for (let i = first; i < last; i++) {
    const next = nextLevel(level, floors, i, inp.baseline, n);
    if (i === first || next !== level) steps.push([i, next]);
    level = next;
  }
  return steps;
}

/**
 * Actions for one staircase. The level at now's step is asserted only when the registered
 * MinCapacity differs from it, at the next whole minute + 1 (Application Auto Scaling takes
 * `at` times in the future); a change falling before that minute is folded into it.
 */
function actionsOf(inp: PlanInput, n: number): PlannedAction[] {
  const soon = Math.ceil(inp.now / 60_000) * 60_000 + 60_000;
  const actions: PlannedAction[] = [];
  for (const [i, level] of staircase(inp, n)) {
    const at = Math.max(soon, inp.floor.startsAt + i * STEP_MS);
    const previous = actions.at(-1);
    if (previous && previous.at === at) previous.minCapacity = level;
    else actions.push({ name: actionName(inp.targetId, at), at, minCapacity: level });
  }
  const [head] = actions;
  if (head && head.at === soon && head.minCapacity === inp.liveMinCapacity) actions.shift();
  return actions;
}

/** The planned actions and the threshold N they were planned with (bounded by MAX_ACTIONS). */
export function planActions(inp: PlanInput): { actions: PlannedAction[]; threshold: number } {
  let n = rampThreshold(inp.maxCapacity);
  let actions = actionsOf(inp, n);
  while (actions.length > MAX_ACTIONS) {
    n *= 2;
    actions = actionsOf(inp, n);
  }
  return { actions, threshold: n };
}

export interface Reconciled {
  put: PlannedAction[];
  /** Names of Governor's actions for this target that the plan no longer has. */
  remove: string[];
}

/** What to put (new or changed) and remove (Governor's, stale), leaving every other action alone. */
export function reconcile(
  targetId: string,
  planned: readonly PlannedAction[],
  existing: readonly ExistingAction[],
): Reconciled {
  const ours = existing.filter((e) => isGovernorAction(e.name, targetId));
  const byName = new Map(ours.map((e) => [e.name, e]));
  const wanted = new Set(planned.map((p) => p.name));
  return {
    put: planned.filter((p) => {
      const e = byName.get(p.name);
      return !e || e.schedule !== atExpression(p.at) || e.minCapacity !== p.minCapacity;
    }),
    remove: ours.filter((e) => !wanted.has(e.name)).map((e) => e.name),
  };
}
