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
 * 4. the engine decides with withHeadroom(target, factor) and the forecast floor divided by the
 *    factor (0.85: a floor of 10 becomes 12), and the decision is annotated with the headroom.
 *
 * Only for targets whose sloOf(target).control is not null (a latency signal, control enabled);
 * for the others every function here is the identity. The ledger and headroom go back with the
 * claim, so a lost claim re-reads them and steps again from the winner's (a minute is recorded
 * once: the ledger ignores a minute it already has).
 */

import type { DecisionResult } from '../../shared/engine/types.ts';
import type { TargetPolicy } from '../../shared/policy/schema.ts';
import type { TargetReadings } from '../../shared/signals/readings.ts';
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
import { budgetAtRisk, type SloInput, type StoredSlo, sliSampleOf } from '../../shared/state/slo.ts';

export interface TargetSlo {
  /** The policy the engine decides with: load targets times the factor (latency guards as written). */
  policy: TargetPolicy;
  /** The factor the targets stand at: the budget control's, or the forecast room's above it. */
  factor: number;
  step: SloStep;
  /** The forecast room's decision (opened: it set the factor). */
  room: RoomDecision;
  /** What the claim writes back under `slo`. */
  write: StoredSlo;
  /** The step changed what is stored (a new minute, or a new headroom state). */
  changed: boolean;
  /** The budget for the decision record (inputs.slo) and the metrics. */
  input: SloInput;
}

const sameHeadroom = (a: StoredSlo['headroom'] | undefined, b: StoredSlo['headroom']) =>
  a !== undefined && a.factor === b.factor && a.lastLoosenAt === b.lastLoosenAt;

/**
 * One step of the control for target `t`, from its stored `slo` (undefined: an item written before
 * the control, or set aside: the ledger starts empty, the factor at 1), its readings and ready
 * instances (the requests of the minute, when the invocations reading has no basis). Null for a
 * target without control.
 */
export function stepTargetSlo(
  t: TargetPolicy,
  stored: StoredSlo | undefined,
  readings: TargetReadings['readings'],
  ready: number,
  now: number,
  /** The floor's step now (pickFloor): its band and lead open the forecast room; null without one. */
  floor: { bandRatio: number | null; lead: RoomInput['lead'] } | null = null,
): TargetSlo | null {
  const slo = sloOf(t);
  const { control, sli } = slo;
  if (!control || !sli) return null;
  const ledger = stored
    ? SliLedger.fromJSON(stored.ledger, control.fastWindowMinutes, slo.windowMinutes)
    : new SliLedger(control.fastWindowMinutes, slo.windowMinutes);
  const sample = sliSampleOf(sli, readings, ready);
  const step = stepSlo(ledger, stored?.headroom, sample ? [sample] : [], { ...slo, control }, now);
  const write: StoredSlo = { ledger: ledger.toJSON(), headroom: step.headroom.state };
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
  return {
    policy: withHeadroom(t, room.factor),
    factor: room.factor,
    step,
    room,
    write,
    changed: step.recorded > 0 || !sameHeadroom(stored?.headroom, write.headroom),
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
