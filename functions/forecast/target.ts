/**
 * One target's forecast: one-minute demand -> its noise (when noise is on) and its burst demand
 * (when its burst floor can stand) -> five-minute demand -> forecast() -> warm capacity (when
 * warmPool is on) -> floor schedule (the quantile and the median plus its noise) -> one
 * UpdateItem of the state item's forecastFloor, noise and burstDemand -> band metrics ->
 * scheduled actions (SageMaker, when the policy asks) -> warm pool size (Auto Scaling groups).
 * Too little history is a result: the level floor when the noise was measured (./noise.ts), else
 * no floor, and a log line that says where the demand was looked for; failed I/O is a failed
 * outcome the run reports.
 */
import { maxOf } from '#shared/arrays/extent.ts';
import {
  bandPoints,
  FLOOR_STEP_MINUTES,
  type FloorNoise,
  floorSchedule,
  staleAfterMinutes,
  stepAt,
} from '../../shared/floors/forecast.ts';
import type { ForecastFloor } from '../../shared/floors/stored.ts';
import { forecast } from '../../shared/forecast/forecast.ts';
import type { Forecast } from '../../shared/forecast/types.ts';
import { plannedRequestsPerInstance, type TargetPolicy } from '../../shared/policy/schema.ts';
import { describeSources } from '../../shared/signals/demand.ts';
import type { WarmCapacityPlan } from '../../shared/sizing/warm-capacity.ts';
import { writeActions } from './actions.ts';
import { burstOf, type MeasuredBurst, measureBurst, storedBurst } from './burst.ts';
import type { RunContext } from './context.ts';
import type { TargetHistory } from './history.ts';
import { floorNoise, type MeasuredNoise, measureNoise, planLevelFloor } from './noise.ts';
import { HORIZON_MINUTES, type TargetLead, type TargetOutcome } from './outcomes.ts';
import { keepWarm, warmPlan, withStandby } from './warm.ts';

type Planned =
  | { ok: true; floor: ForecastFloor; result: Forecast; warm: WarmCapacityPlan | undefined }
  | { ok: false; reason: 'NoData' | 'InsufficientHistory' | 'Rejected'; message: string };

/** The forecast floor from the five-minute history, with the noise term when one was measured. */
function planForecastFloor(
  ctx: RunContext,
  t: TargetPolicy,
  h: NonNullable<TargetHistory['fiveMinute']>,
  lead: TargetLead,
  noise: MeasuredNoise | null,
): Planned {
  const f = t.forecast!;
  const where = `${describeSources(t)}, ${f.historyDays} days and today`;
  if (!h.demand.ok) return { ok: false, reason: h.demand.reason, message: `${h.demand.message} (${where})` };
  const result = forecast(h.demand.history, {
    stepMinutes: 5,
    origin: h.window.end / 60_000,
    horizonMinutes: HORIZON_MINUTES,
    dayStartMinute: f.dayStartMinute,
  });
  if (!result.ok) return { ok: false, reason: result.reason, message: `${result.message} (${where})` };
  const warm = warmPlan(t, result, h.demand.history, lead.minutes);
  const planned = floorSchedule({
    forecast: result,
    quantile: f.quantile,
    leadTimeMinutes: lead.minutes,
    lead: { source: lead.source, configuredMinutes: lead.configuredMinutes, samples: lead.samples },
    requestsPerInstance: plannedRequestsPerInstance(t)!,
    scaling: t.scaling,
    computedAt: ctx.now,
    // The band of the steps the evaluator can read before the floor is stale (the forecast room).
    bandSteps: staleAfterMinutes(f.refreshMinutes) / FLOOR_STEP_MINUTES,
    ...withNoise(floorNoise(t, noise)),
  });
  return { ok: true, floor: withStandby(planned, warm, t.scaling.maxCapacity), result, warm };
}

const withNoise = (n: FloorNoise | undefined) => (n ? { noise: n } : {});
const noiseOf = (m: MeasuredNoise | null) => (m ? { noise: m.outcome } : {});
const storedNoise = (m: MeasuredNoise | null) => (m?.stored ? { noise: m.stored } : {});

/** What a run measured from the target's one-minute demand (each null when off or not read). */
interface Measured {
  noise: MeasuredNoise | null;
  burst: MeasuredBurst | null;
}

/** The one-minute measurements of a run, as attributes of its one UpdateItem. */
const stored = ({ noise, burst }: Measured) => ({ ...storedNoise(noise), ...storedBurst(burst) });
/** And as its outcome's clauses. */
const outcomesOf = ({ noise, burst }: Measured) => ({ ...noiseOf(noise), ...burstOf(burst) });

/**
 * One target's run from its history (already read): the noise fitted from its one-minute demand
 * (noise.enabled) and the burst floor's demand measured from it, then the forecast floor with the
 * noise term, or, when the forecast is unavailable for lack of history, the level floor; floor,
 * noise and burst demand stored in one UpdateItem. A target without a forecast, or whose floor is
 * still fresh (`floorFrom`), gets its noise and burst demand stored alone (the evaluator's band
 * and burst floor read them): they are measured every hour, the floor every refreshMinutes.
 */
export async function forecastTarget(
  ctx: RunContext,
  t: TargetPolicy,
  h: TargetHistory,
  lead: TargetLead | null,
  floorFrom?: number,
): Promise<TargetOutcome> {
  const noise = measureNoise(t, h.oneMinute, ctx.now);
  if (noise?.outcome.status === 'measured' && noise.outcome.clamped)
    ctx.telemetry.warn(`forecast ${t.id}: ${noise.outcome.clamped}`, { targetId: t.id });
  const m: Measured = { noise, burst: measureBurst(t, h.burst, ctx.now) };
  if (!t.forecast?.enabled || !lead || !h.fiveMinute) {
    await ctx.ports.floors.write(t.id, stored(m));
    return {
      targetId: t.id,
      outcome: 'noise',
      ...outcomesOf(m),
      ...(floorFrom === undefined ? {} : { floorFrom }),
    };
  }
  const planned = planForecastFloor(ctx, t, h.fiveMinute, lead, noise);
  if (planned.ok) return writeForecastFloor(ctx, t, planned, lead, m);
  const level =
    planned.reason === 'Rejected' ? null : planLevelFloor(t, noise, lead, h.fiveMinute.window.end, ctx.now);
  if (level) return writeLevelFloor(ctx, t, level, lead, m, planned);
  await ctx.ports.floors.write(t.id, stored(m));
  return {
    targetId: t.id,
    outcome: 'no-floor',
    reason: planned.reason,
    message: planned.message,
    ...outcomesOf(m),
  };
}

async function writeForecastFloor(
  ctx: RunContext,
  t: TargetPolicy,
  p: Extract<Planned, { ok: true }>,
  lead: TargetLead,
  m: Measured,
): Promise<TargetOutcome> {
  const { floor, result, warm } = p;
  await ctx.ports.floors.write(t.id, { forecastFloor: floor, ...stored(m) });
  ctx.telemetry.band(t.id, bandPoints(result, floor, ctx.now));
  return {
    targetId: t.id,
    outcome: 'written',
    kind: 'forecast',
    model: result.model,
    historyDays: result.historyDays,
    floorNow: floor.capacities[stepAt(floor, ctx.now)] ?? null,
    floorPeak: maxOf(floor.capacities),
    notes: result.notes,
    lead,
    actions: await writeActions(ctx, t, floor),
    ...(warm ? { warm: await keepWarm(ctx, t, warm) } : {}),
    ...(floor.noise ? { floorSigmas: floor.noise.floorSigmas } : {}),
    ...(result.fallback ? { fallback: result.fallback.message } : {}),
    ...outcomesOf(m),
  };
}

/**
 * A level floor: no forecast, so no warm capacity and no scheduled actions (it holds for an hour,
 * and a raised MinCapacity would outlive it if the control plane stopped); the evaluator applies
 * it, and the dashboard's floor panel shows it.
 */
async function writeLevelFloor(
  ctx: RunContext,
  t: TargetPolicy,
  floor: ForecastFloor,
  lead: TargetLead,
  m: Measured,
  unavailable: Extract<Planned, { ok: false }>,
): Promise<TargetOutcome> {
  await ctx.ports.floors.write(t.id, { forecastFloor: floor, ...stored(m) });
  ctx.telemetry.band(t.id, bandPoints(null, floor, ctx.now));
  return {
    targetId: t.id,
    outcome: 'written',
    kind: 'level',
    model: null,
    historyDays: 0,
    floorNow: floor.capacities[stepAt(floor, ctx.now)] ?? null,
    floorPeak: maxOf(floor.capacities),
    notes: [],
    lead,
    actions: { status: 'skipped', reason: 'LevelFloor' },
    level: {
      level: floor.level ?? 0,
      until: floor.startsAt + floor.capacities.length * FLOOR_STEP_MINUTES * 60_000,
      unavailable: `${unavailable.reason}: ${unavailable.message}`,
    },
    floorSigmas: floor.noise?.floorSigmas ?? 0,
    ...outcomesOf(m),
  };
}
