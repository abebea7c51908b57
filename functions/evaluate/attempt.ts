/**
 * One attempt at a target's decision, before its claim: the snapshot from the capacity, the
 * readings and the state item (forecast or level floor, measured lead and noise, the burst floor,
 * failover and mix floors, the budget's ceiling), the engine's decision under the error budget's
 * headroom (./slo.ts), and the plan for it (shared/apply/plan.ts). Pure but for the id it draws;
 * a lost claim makes a new attempt from freshly read state.
 */

import { conflictMessage } from '../../shared/apply/conflicts.ts';
import { planFor } from '../../shared/apply/plan.ts';
import { noiseInput } from '../../shared/apply/records.ts';
import type { Capacity } from '../../shared/aws/capacity.ts';
import { decide } from '../../shared/engine/decide.ts';
import type { SignalSnapshot } from '../../shared/engine/types.ts';
import { pickFloor } from '../../shared/floors/forecast.ts';
import { pickNoise } from '../../shared/floors/noise.ts';
import type { TargetPolicy } from '../../shared/policy/schema.ts';
import type { StoredState } from '../../shared/state/item.ts';
import { servedScaleOut } from '../../shared/state/lead-samples.ts';
import { effectiveDesired, pendingWindowMs } from '../../shared/state/pending.ts';
import type { Attempt, EvaluatedInputs, TargetContext, TargetInputs } from './context.ts';
import { type MixPlanInput, mixLimitsAt } from './mix-plan.ts';
import { annotated, floorUnder, stepTargetSlo } from './slo.ts';

/**
 * The snapshot with the lead time its floor was planned over. SignalSnapshot.leadTime is the
 * engine's (shared/engine/types.ts); the intersection keeps this file compiling on a tree where
 * the engine's field is not there yet.
 */
type Snapshot = SignalSnapshot & {
  leadTime?: { minutes: number; configuredMinutes: number; samples: number };
};

/** The engine's mix and committed floors, spot headroom and budget ceiling from the target's plan (none without one). */
function mixLimits(
  m: MixPlanInput | undefined,
): Pick<SignalSnapshot, 'mixFloor' | 'committedFloor' | 'budgetCeiling' | 'spotHeadroom'> {
  if (!m) return {};
  return {
    ...(m.capacity !== null ? { mixFloor: { capacity: m.capacity } } : {}),
    ...(m.committed !== null ? { committedFloor: { capacity: m.committed } } : {}),
    ...(m.spotHeadroom ? { spotHeadroom: { instances: m.spotHeadroom } } : {}),
    ...(m.ceiling !== null && m.maxUsdPerHour !== null
      ? { budgetCeiling: { capacity: m.ceiling, maxUsdPerHour: m.maxUsdPerHour } }
      : {}),
  };
}

const lastChange = (s: StoredState): number | null => {
  const times = [s.engine?.lastScaleOutAt, s.engine?.lastScaleInAt].filter(
    (t): t is number => typeof t === 'number',
  );
  return times.length === 0 ? null : Math.max(...times);
};

export function attempt(
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
  // The floor schedule's step for now; none when stale, not started or forecasting is off.
  const floor = pickFloor(t, stored.forecastFloor, ctx.now);
  // The error budget's step (and the forecast room, from the floor step's band): its factor
  // scales the load targets and the floor below.
  const room = floor.kind === 'floor' ? { bandRatio: floor.bandRatio, lead: floor.lead } : null;
  const slo = stepTargetSlo(t, stored, readings.readings, capacity.ready, ctx.now, room);
  // A level floor is the last level plus its noise, planned over no lead: none to report.
  const lead = floor.kind === 'floor' && floor.floorKind === 'forecast' ? floor.lead : null;
  // The capacity mix: the loss cover of the forecast under the plan in force, and the budget's ceiling.
  const mix = inp.mixPlan ? mixLimitsAt(t, inp.mixPlan, stored.forecastFloor, ctx.now) : undefined;
  // The forecast function's measured noise, unless stale: it widens invocationsPerInstance's band.
  const noise = pickNoise(t, stored.noise, ctx.now);
  const snapshot: Snapshot = {
    capacity: { desired, ready: capacity.ready },
    readings: readings.readings,
    ...(readings.activation ? { activation: readings.activation } : {}),
    // The factor the targets decide() gets were scaled by: a young panic is sized without it.
    ...(slo && slo.factor !== 1 ? { headroomFactor: slo.factor } : {}),
    ...(floor.kind === 'floor'
      ? {
          forecastFloor: {
            capacity: floorUnder(floor.capacity, slo),
            quantile: floor.quantile,
            kind: floor.floorKind,
            ...(floor.fallback ? { fallback: floor.fallback } : {}),
          },
        }
      : {}),
    ...(lead
      ? {
          leadTime: {
            minutes: lead.minutes,
            configuredMinutes: lead.configuredMinutes,
            samples: lead.samples,
          },
        }
      : {}),
    ...(noise.kind === 'noise' ? { noise: noise.model } : {}),
    // The error budget's burst floor, while it stands: not scaled by the factor (it is already
    // the demand at the SLO capacity), capped by the budget's ceiling like the forecast floor.
    ...(slo?.burst.floor ? { burstFloor: slo.burst.floor } : {}),
    ...(inp.failoverFloor && inp.failoverFloor.capacity !== null && inp.failoverFloor.phase !== null
      ? {
          failoverFloor: {
            capacity: inp.failoverFloor.capacity,
            groupId: inp.failoverFloor.groupId,
            phase: inp.failoverFloor.phase,
          },
        }
      : {}),
    ...mixLimits(mix),
  };
  const { decision, state: next } = annotated(
    decide(stored.engine, snapshot, slo?.policy ?? t, ctx.now),
    slo,
  );
  const plan = planFor(decision, t, {
    mode: ctx.mode,
    killSwitch: ctx.killSwitch,
    ...(ctx.killSwitchWhy ? { killSwitchWhy: ctx.killSwitchWhy } : {}),
    conflict,
    status: capacity.status,
    homeRegion: ctx.config.AWS_REGION,
    lastChangeAt: lastChange(stored),
    now: ctx.now,
  });
  const inputs: EvaluatedInputs = {
    capacity: { desired, ready: capacity.ready, liveDesired: capacity.desired, status: capacity.status },
    readings: { ...readings.readings },
    activation: { ...(readings.activation ?? {}) },
    forecastFloor:
      floor.kind === 'floor'
        ? {
            capacity: floor.capacity,
            quantile: floor.quantile,
            computedAt: floor.computedAt,
            kind: floor.floorKind,
            ...(floor.fallback ? { fallback: floor.fallback } : {}),
            ...(floor.bandRatio !== null ? { bandRatio: floor.bandRatio } : {}),
          }
        : null,
    leadTime: lead,
    noise: noiseInput(t, noise, decision),
    killSwitch: ctx.killSwitch,
    conflict: conflict ? conflictMessage(conflict) : null,
    ...(inp.failoverFloor ? { failoverFloor: inp.failoverFloor } : {}),
    ...(mix ? { mixPlan: mix } : {}),
    ...(slo ? { slo: slo.input } : {}),
  };
  // Shadow mode started nothing, so nothing it decided can be measured serving.
  const served =
    ctx.mode === 'active'
      ? servedScaleOut({
          engine: stored.engine,
          pending: stored.pending,
          recorded: stored.lead.own,
          ready: capacity.ready,
          now: ctx.now,
        }).sample
      : null;
  return {
    stored,
    capacity,
    decision,
    next,
    plan,
    decisionId: ctx.newId(ctx.now),
    inputs,
    leadSample: served,
    slo: slo ? { write: slo.write, changed: slo.changed } : null,
  };
}
