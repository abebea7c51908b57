/**
 * Room that follows the forecast's measured accuracy: the written targets keep room for traffic
 * nobody can predict (the example: 75 requests a minute per instance that serves 120 at the SLO,
 * 1.6x), and where the forecast has lately been accurate that room is more than the objective
 * needs. While the error budget is healthy (the budget control's factor at 1 or more) the load
 * targets may stand at
 *
 *   m = min(maxFactor, writtenRoom / (1 + bandWeight x (p90 / p50 - 1)))
 *
 * of the policy's, and the forecast floor at 1 / m of it, where writtenRoom is
 * instanceCapacity.requestsPerMinuteAtSlo over the planned requests per instance and p90 / p50
 * the forecast band of the minute (the forecaster's own out-of-sample errors, as the floor
 * schedule stores them), while both burn-rate windows run below 1 (at 99.5 %: no bad minute in
 * the last hour, at most one in the last six) and scale-outs arrive within the planned lead. So a
 * target never stands above the SLO capacity over (1 + bandWeight bands): at a band of 4 % and
 * bandWeight 4, 120 / 1.16 = 103 requests a minute, m = 1.38, capped at 1.3 (97.5). Below 1 the
 * room is closed: it only ever takes room away where the forecast has earned it, never adds any
 * (the budget control does that).
 *
 * It opens on no bundled trace at bandWeight 4 (their bands are too wide, or their budget is
 * being spent) and on a smooth synthetic year, which it turns from a loss against target
 * tracking's best target into a win (docs/slo.md has the tables). The room closes the minute the
 * budget control tightens (a factor under 1) or a bad minute comes, and stays closed until both
 * windows are calm again: on traffic that turns bursty after two smooth weeks
 * (scripts/smooth-shifts.ts) a room that reopened after a calm hour spent the budget the bursts
 * then needed, and cost up to 2.3 % more than no room (docs/slo.md). It also stays closed while
 * scale-outs are measured to take longer than the policy's leadTimeMinutes: the written room was
 * planned for that lead, and with a 15-minute cold start against a planned 10 the room cost 3-6 %
 * more than none on the same traces. Pure: the band, factor, burn rates, lead and policy in, a
 * number out.
 */

import { plannedRequestsPerInstance, type TargetPolicy } from '../policy/schema.ts';
import type { ForecastRoom } from '../policy/slo-schema.ts';

/**
 * The room the policy is written with: the SLO capacity over the requests an instance is planned
 * at (120 / 75 = 1.6). Null when either is unknown, or there is no forecast to earn room from.
 */
export function writtenRoomOf(t: TargetPolicy): number | null {
  const atSlo = t.instanceCapacity?.requestsPerMinuteAtSlo;
  const planned = plannedRequestsPerInstance(t);
  if (!t.forecast?.enabled || atSlo === undefined || planned === null || planned <= 0) return null;
  return atSlo / planned;
}

/** What the room decided: the factor the targets stand at, and, when the room set it, why. */
export interface RoomDecision {
  /** The factor the load targets are multiplied by (and the floor divided by). */
  factor: number;
  /** Present when the room set the factor (above the budget control's). */
  opened?: { bandRatio: number; writtenRoom: number; bandWeight: number; budgetFactor: number };
}

export interface RoomInput {
  /** The budget control's factor this minute. */
  factor: number;
  /** The forecast band at this minute, p90 / p50; null without a forecast (or a median of 0). */
  bandRatio: number | null;
  room: ForecastRoom;
  /** writtenRoomOf(target). */
  writtenRoom: number | null;
  /** The budget's burn rates now (BudgetStatus): the room opens only while both are below 1. */
  burn: { fastBurn: number | null; slowBurn: number | null };
  /**
   * The lead the floor was planned over and the policy's leadTimeMinutes: the room opens only
   * while scale-outs arrive as planned (minutes no longer than configuredMinutes).
   */
  lead: { minutes: number; configuredMinutes: number };
}

/** Both windows burn slower than the objective allows (null: no reading, not calm). */
const calm = (b: RoomInput['burn']): boolean =>
  b.fastBurn !== null && b.fastBurn < 1 && b.slowBurn !== null && b.slowBurn < 1;

/** The room's factor for a band: 1 when closed (the formula above, at most maxFactor). */
export function roomFactor(bandRatio: number, writtenRoom: number, room: ForecastRoom): number {
  if (!Number.isFinite(bandRatio) || bandRatio < 1) return 1;
  const m = Math.min(room.maxFactor, writtenRoom / (1 + room.bandWeight * (bandRatio - 1)));
  // Float noise at the edge (1.6 / (1 + 4 x 0.15)) is closed, not open by 2e-16.
  return m > 1 + 1e-9 ? m : 1;
}

export function forecastRoom(input: RoomInput): RoomDecision {
  const { factor, bandRatio, room, writtenRoom } = input;
  if (!room.enabled || factor < 1 || bandRatio === null || writtenRoom === null) return { factor };
  if (!calm(input.burn) || input.lead.minutes > input.lead.configuredMinutes) return { factor };
  const m = roomFactor(bandRatio, writtenRoom, room);
  if (m <= factor) return { factor };
  return {
    factor: m,
    opened: { bandRatio, writtenRoom, bandWeight: room.bandWeight, budgetFactor: factor },
  };
}
