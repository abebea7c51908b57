/**
 * What the target factor does to a target: its load signals' targets times the factor (0.8: a
 * target of 75 requests per instance becomes 60, more instances for the same load), and a
 * forecast or level floor divided by it (0.8: a floor of 10 becomes 13). Latency signals are the
 * SLO itself and stay as written. Percent targets (GPU utilization) never rise past 95.
 */
import { describeDecision } from '../engine/message.ts';
import { ceilCapacity } from '../engine/signals.ts';
import type { Decision, DecisionResult, ReasonCode } from '../engine/types.ts';
import { isLatencySignal, type TargetPolicy } from '../policy/schema.ts';
import type { BudgetStatus } from './budget.ts';
import type { HeadroomDecision } from './control.ts';
import type { RoomDecision } from './forecast-room.ts';

const PERCENT_METRICS = new Set(['gpuUtilization', 'gpuMemoryUtilization']);
const MAX_PERCENT_TARGET = 95;

export function withHeadroom(t: TargetPolicy, factor: number): TargetPolicy {
  if (factor === 1) return t;
  return {
    ...t,
    signals: t.signals.map((s) => {
      if (isLatencySignal(s)) return s;
      const scaled = s.target * factor;
      const target = PERCENT_METRICS.has(s.metric)
        ? Math.min(scaled, Math.max(s.target, MAX_PERCENT_TARGET))
        : scaled;
      return { ...s, target };
    }),
  };
}

/** A capacity floor under the factor: ceil(floor / factor), float noise ignored. */
export const floorWithHeadroom = (capacity: number, factor: number): number =>
  factor === 1 ? capacity : ceilCapacity(capacity / factor);

const NO_REASONS: readonly ReasonCode[] = Object.freeze([]);

/**
 * The reason codes annotateDecision adds to a decision: the control's (when it moved the factor
 * or the budget is spent), then ForecastConfident when the forecast room set the factor. The
 * backtest counts them on minutes it keeps no decision of, without building one.
 */
export function headroomReasons(h: HeadroomDecision, room?: RoomDecision): readonly ReasonCode[] {
  const r = h.reason;
  const moved =
    r === 'BudgetBurning' || r === 'BudgetSpare' || r === 'BudgetExhausted' || r === 'SpareRoomClosed'
      ? r
      : null;
  if (!moved && !room?.opened) return NO_REASONS;
  const reasons: ReasonCode[] = [];
  if (moved) reasons.push(moved);
  if (room?.opened) reasons.push('ForecastConfident');
  return reasons;
}

/**
 * The decision with the headroom it was made under: the factor and burn rates on the record, and
 * the control's reason code (when it moved the factor or the budget is spent) among the reasons,
 * so the sentence says why the targets it was held to differ from the policy's.
 */
export function annotateDecision(
  result: DecisionResult,
  h: HeadroomDecision,
  status: BudgetStatus,
  policy: TargetPolicy,
  /** false: the message stays as decide() left it (built later, as decide's `sentence: false`). */
  sentence = true,
  /** The forecast room's decision (./forecast-room.ts), when the target has one. */
  room?: RoomDecision,
): DecisionResult {
  const opened = room?.opened;
  const decision: Decision = {
    ...result.decision,
    headroom: {
      factor: opened ? room.factor : h.factor,
      reason: h.reason,
      fastBurn: status.fastBurn,
      slowBurn: status.slowBurn,
      remaining: status.remaining,
      ...(opened ? { forecastRoom: opened } : {}),
    },
  };
  const reasons = headroomReasons(h, room);
  if (reasons.length > 0) {
    decision.reasons = [...decision.reasons, ...reasons];
    if (sentence) decision.message = describeDecision(decision, policy);
  }
  return { ...result, decision };
}
