/**
 * Where a failover move stands, for the phase handlers (./plan.ts) and the sentence
 * (./message.ts): the context of one period, the weights at a step of the move, the regions
 * gaining and losing traffic, what a step needs ready, and the step to take next. Pure.
 */
import type { ResolvedGroup } from './group.ts';
import { servesNothing } from './health.ts';
import type {
  FailoverAction,
  FailoverObservation,
  FailoverReasonCode,
  FailoverState,
  RegionHealth,
  Weights,
} from './types.ts';
import { shiftedWeights } from './weights.ts';

/** What one phase handler decides: the next state, reasons and any non-routing actions. */
export interface Move {
  state: FailoverState;
  reasons: FailoverReasonCode[];
  actions: FailoverAction[];
}

export interface Ctx {
  group: ResolvedGroup;
  obs: FailoverObservation;
  now: number;
  health: Record<string, RegionHealth>;
  base: Weights;
}

/** Traffic may move onto a region that is healthy, or idle (no traffic, nothing wrong seen). */
export const eligible = (h: RegionHealth | undefined): boolean =>
  h?.status === 'healthy' || h?.status === 'idle';
export const noEligibleRegion = (c: Ctx) => Object.values(c.health).every((h) => !eligible(h));

/** Weights with step `step` of the current move applied (-1: the move not begun). */
export function weightsAtStep(c: Ctx, s: FailoverState, step: number): Weights {
  if (s.source === null || s.shares === null) return c.base;
  const steps = c.group.shift.stepsPercent;
  const at = step < 0 ? 0 : (steps[step] ?? 100);
  const moved = s.direction === 'failback' ? 100 - at : at;
  return shiftedWeights(c.base, s.source, s.shares, moved);
}

/** Regions traffic is moving onto in the current move. */
export function gainingRegions(s: FailoverState): string[] {
  if (s.source === null) return [];
  return s.direction === 'failback' ? [s.source] : Object.keys(s.shares ?? {});
}

/** Regions traffic is moving off in the current move. */
const losingRegions = (s: FailoverState): string[] =>
  s.source === null ? [] : s.direction === 'failback' ? Object.keys(s.shares ?? {}) : [s.source];

/** Every region traffic leaves serves nothing: steps and checks would only delay the move. */
export const sourceDark = (c: Ctx, s: FailoverState): boolean => {
  const losing = losingRegions(s);
  return losing.length > 0 && losing.every((r) => servesNothing(c.obs.regions[r], c.group.health, c.now));
};

/**
 * Instances a gaining target needs ready to serve step `step`: its prescale need scaled by its
 * weight at that step over its final weight, rounded up. Need 54 (0 -> 100 %): 10 % needs 6,
 * 50 % needs 27. tests/failover/phases.test.ts ("a warm floor that serves the first step").
 */
export function stepNeed(c: Ctx, s: FailoverState, targetId: string, region: string, step: number): number {
  const need = s.needed?.[targetId] ?? 0;
  const final = weightsAtStep(c, s, c.group.shift.stepsPercent.length - 1)[region] ?? 0;
  const at = weightsAtStep(c, s, step)[region] ?? 0;
  // 1e-9: 54 x 50 / 100 must stay 27, not round up on float noise.
  return final > 0 ? Math.ceil((need * at) / final - 1e-9) : 0;
}

/** Every gaining region is healthy or idle and has the instances ready that step `step` needs. */
function stepServed(c: Ctx, s: FailoverState, step: number): boolean {
  return c.group.members
    .filter((m) => gainingRegions(s).includes(m.region))
    .every((m) => {
      const ready = c.obs.regions[m.region]?.capacity?.ready;
      return (
        ready !== undefined &&
        ready >= stepNeed(c, s, m.targetId, m.region, step) &&
        eligible(c.health[m.region])
      );
    });
}

/**
 * The step to take now, or null: the next one when its capacity is ready; when the regions traffic
 * leaves serve nothing, the largest one the ready capacity serves (all of it when it can).
 */
export function nextStep(c: Ctx, s: FailoverState, dark: boolean): number | null {
  const last = c.group.shift.stepsPercent.length - 1;
  if (!dark) return s.step < last && stepServed(c, s, s.step + 1) ? s.step + 1 : null;
  for (let k = last; k > s.step; k--) if (stepServed(c, s, k)) return k;
  return null;
}

/** Why a step was taken beyond ShiftStep: a dark source, an idle receiver, capacity back after a halt. */
export function stepReasons(c: Ctx, s: FailoverState, dark: boolean): FailoverReasonCode[] {
  const out: FailoverReasonCode[] = [];
  if (dark) out.push('SourceServesNothing');
  if (gainingRegions(s).some((r) => c.health[r]?.status === 'idle')) out.push('ReceiverIdle');
  if (s.phase === 'halted') out.push('StandbyCapacityRecovered');
  return out;
}
