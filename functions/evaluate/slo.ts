/**
 * The error-budget control in the evaluator, as the backtest's governor policy runs it
 * (shared/backtest/policies/governor.ts, budgetControl), once per evaluation:
 *
 * 1. the SLI minute from the latency reading already read (shared/state/slo.ts);
 * 2. stepSlo over the ledger and headroom stored in the target's state item (`slo`): record the
 *    minute, read the budget, move the factor (shared/slo/step.ts);
 * 3. the forecast room (shared/slo/forecast-room.ts): where the floor's step stores a narrow band,
 *    the budget's factor is 1 or more, both burn windows are calm and the floor's lead is the
 *    configured one, the factor may stand higher (at most maxFactor);
 * 4. the burst floor (shared/slo/burst-floor.ts): once the factor is at minTargetFactor and the
 *    window's pace is above 1, the forecast function's stored burst demand over the SLO capacity
 *    of one instance stands for burstFloor.windowMinutes; while it holds what the lowered targets
 *    would at the fast window's level, the targets stand as written (factor 1);
 * 5. the engine decides with withHeadroom(target, factor) and the forecast floor divided by the
 *    factor (0.85: a floor of 10 becomes 12), and the decision is annotated with the headroom.
 *
 * Only for targets whose sloOf(target).control is not null (a latency signal, control enabled);
 * for the others every function here is the identity. The ledger, headroom and burst floor's
 * state go back with the claim, so a lost claim re-reads them and steps again from the winner's
 * (a minute is recorded once: the ledger ignores a minute it already has).
 */

import type { DecisionResult } from '../../shared/engine/types.ts';
import { plannedRequestsPerInstance, type TargetPolicy } from '../../shared/policy/schema.ts';
import type { SloControl } from '../../shared/policy/slo-schema.ts';
import type { TargetReadings } from '../../shared/signals/readings.ts';
import { type BurstFloorDecision, burstFloor } from '../../shared/slo/burst-floor.ts';
import {
  forecastRoom,
  type RoomDecision,
  type RoomInput,
  writtenRoomOf,
} from '../../shared/slo/forecast-room.ts';
import { annotateDecision, floorWithHeadroom, withHeadroom } from '../../shared/slo/headroom.ts';
import { SliLedger } from '../../shared/slo/ledger.ts';
import { describeObjective, sloOf } from '../../shared/slo/objective.ts';
import { type SloStep, stepSlo } from '../../shared/slo/step.ts';
import type { StoredState } from '../../shared/state/item.ts';
import { budgetAtRisk, type SloInput, type StoredSlo, sliSampleOf } from '../../shared/state/slo.ts';

export interface TargetSlo {
  /**
   * The policy the engine decides with: load targets times the factor (latency guards as
   * written), or the policy as written while the burst floor holds the factor's headroom.
   */
  policy: TargetPolicy;
  /** The factor the targets stand at: the budget control's, the forecast room's above it, or 1 (burst.asWritten). */
  factor: number;
  step: SloStep;
  /** The forecast room's decision (opened: it set the factor). */
  room: RoomDecision;
  /** The burst floor's decision: the floor for the snapshot (null: not standing) and its next state. */
  burst: BurstFloorDecision;
  /** What the claim writes back under `slo`. */
  write: StoredSlo;
  /** The step changed what is stored (a new minute, or a new headroom state). */
  changed: boolean;
  /** The budget for the decision record (inputs.slo) and the metrics. */
  input: SloInput;
}

const sameHeadroom = (a: StoredSlo['headroom'] | undefined, b: StoredSlo['headroom']) =>
  a !== undefined && a.factor === b.factor && a.lastLoosenAt === b.lastLoosenAt;

/** Not standing is stored as no `burst` at all, so an item from before the floor reads the same. */
const standUntilOf = (s: StoredSlo | undefined): number | null => s?.burst?.standUntil ?? null;

/**
 * The burst floor this minute, as the backtest steps it (shared/backtest/policies/governor.ts,
 * budgetControl's `burst`): the trigger reads the budget's factor and the window's pace, the
 * floor the forecast function's hourly measurement (`burstDemand`, null before its first), the
 * level the fast window's median requests a minute, with this minute already in the ledger
 * (requests as CloudWatch counts them: the policy's units, as the demand history's).
 */
function stepBurst(
  t: TargetPolicy,
  control: SloControl,
  stored: Pick<StoredState, 'slo' | 'burstDemand'>,
  ledger: SliLedger,
  step: SloStep,
  room: RoomDecision,
  now: number,
): BurstFloorDecision {
  return burstFloor(stored.slo?.burst, {
    now,
    pace: step.status.pace,
    budgetFactor: step.headroom.factor,
    appliedFactor: room.factor,
    control,
    measured: stored.burstDemand ?? null,
    level: ledger.fastLevel(),
    requestsPerMinuteAtSlo: t.instanceCapacity?.requestsPerMinuteAtSlo,
    plannedRequestsPerInstance: plannedRequestsPerInstance(t),
  });
}

/**
 * One step of the control for target `t`, from its state item's `slo` (undefined: an item written
 * before the control, or set aside: the ledger starts empty, the factor at 1) and `burstDemand`
 * (undefined: none measured yet, no burst floor), its readings and ready instances (the requests
 * of the minute, when the invocations reading has no basis). Null for a target without control.
 */
export function stepTargetSlo(
  t: TargetPolicy,
  item: Pick<StoredState, 'slo' | 'burstDemand'>,
  readings: TargetReadings['readings'],
  ready: number,
  now: number,
  /** The floor's step now (pickFloor): its band and lead open the forecast room; null without one. */
  floor: { bandRatio: number | null; lead: RoomInput['lead'] } | null = null,
): TargetSlo | null {
  const slo = sloOf(t);
  const { control, sli } = slo;
  if (!control || !sli) return null;
  const stored = item.slo;
  const ledger = stored
    ? SliLedger.fromJSON(stored.ledger, control.fastWindowMinutes, slo.windowMinutes)
    : new SliLedger(control.fastWindowMinutes, slo.windowMinutes);
  const sample = sliSampleOf(sli, readings, ready);
  const step = stepSlo(ledger, stored?.headroom, sample ? [sample] : [], { ...slo, control }, now);
  const { status } = step;
  const room = floor
    ? forecastRoom({
        factor: step.headroom.factor,
        bandRatio: floor.bandRatio,
        room: control.forecastRoom,
        writtenRoom: writtenRoomOf(t),
        burn: step.status,
        lead: floor.lead,
      })
    : { factor: step.headroom.factor };
  const burst = stepBurst(t, control, item, ledger, step, room, now);
  const write: StoredSlo = {
    ledger: ledger.toJSON(),
    headroom: step.headroom.state,
    ...(burst.state.standUntil !== null ? { burst: burst.state } : {}),
  };
  return {
    policy: burst.asWritten ? t : withHeadroom(t, room.factor),
    factor: burst.asWritten ? 1 : room.factor,
    step,
    room,
    burst,
    write,
    changed:
      step.recorded > 0 ||
      !sameHeadroom(stored?.headroom, write.headroom) ||
      standUntilOf(stored) !== standUntilOf(write),
    input: {
      objective: describeObjective(slo),
      metric: sli.metric,
      sloMs: sli.sloMs,
      sample,
      recorded: step.recorded,
      observedMinutes: status.window.observed,
      badMinutes: status.window.bad,
      attainment: status.attainment,
      ...(status.requestAttainment !== undefined ? { requestAttainment: status.requestAttainment } : {}),
      exhaustsInMinutes: status.exhaustsInMinutes,
      atRisk: budgetAtRisk(status, slo.windowMinutes, control.slowWindowMinutes),
    },
  };
}

/** A forecast or level floor under the factor (the identity without control). */
export const floorUnder = (capacity: number, s: TargetSlo | null): number =>
  s ? floorWithHeadroom(capacity, s.factor) : capacity;

/** The engine's result with the headroom it was decided under (the identity without control). */
export const annotated = (result: DecisionResult, s: TargetSlo | null): DecisionResult =>
  s ? annotateDecision(result, s.step.headroom, s.step.status, s.policy, true, s.room) : result;
