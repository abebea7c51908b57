/**
 * The level floor: before a forecast exists (under a day of history), the floor is the last
 * level of demand plus its measured noise (shared/sizing/floor-needs.ts levelFloor), held for
 * the next hour, as the backtest holds it (shared/backtest/policies/lookahead.ts). So a new
 * endpoint has noise headroom from its first hour. Pure.
 */
import type { QuantileName } from '../forecast/types.ts';
import type { Scaling } from '../policy/schema.ts';
import { clampNeed, FLOOR_STEP_MINUTES, type FloorNoise, noiseUsed } from './forecast.ts';
import type { ForecastFloor } from './stored.ts';

const STEP_MS = FLOOR_STEP_MINUTES * 60_000;

export interface LevelFloorInputs {
  /** levelFloor(...): the last level plus its noise, in fractional instances at the SLO capacity. */
  need: number;
  /** That level: the median of the last noise.levelMinutes minutes, requests a minute. */
  level: number;
  noise: FloorNoise;
  quantile: QuantileName;
  leadTimeMinutes: number;
  lead: { source: 'configured' | 'measured'; configuredMinutes: number; samples: number };
  /** Epoch ms of step 0: the end of the history read (a five-minute boundary). */
  startsAt: number;
  /** Minutes after computedAt the floor holds: min(refreshMinutes, 60). */
  holdMinutes: number;
  scaling: Scaling;
  computedAt: number;
}

/**
 * Before a forecast exists (under a day of history): every step at ceil(need) from startsAt until
 * holdMinutes after the run, so it reaches the next hourly run. Example: a run at 12:00:10 reads
 * to 11:55; 60 minutes -> 14 steps, 11:55 to 13:05; the 13:00 run replaces it.
 */
export function levelFloorSchedule(inp: LevelFloorInputs): ForecastFloor {
  const steps = Math.max(1, Math.ceil((inp.computedAt + inp.holdMinutes * 60_000 - inp.startsAt) / STEP_MS));
  return {
    kind: 'level',
    quantile: inp.quantile,
    computedAt: inp.computedAt,
    startsAt: inp.startsAt,
    stepMinutes: FLOOR_STEP_MINUTES,
    leadTimeMinutes: inp.leadTimeMinutes,
    leadSource: inp.lead.source,
    configuredLeadTimeMinutes: inp.lead.configuredMinutes,
    leadSamples: inp.lead.samples,
    capacities: new Array<number>(steps).fill(clampNeed(inp.need, inp.scaling)),
    level: inp.level,
    ...noiseUsed(inp.noise),
  };
}
