/**
 * Which targets a forecast run visits, and what each reads: one GetItem a target for its stored
 * floor, measured lead times, noise and burst demand, then whether its floor, or its one-minute
 * measurements alone, are due (./run.ts reads their history and runs them). No I/O but that read.
 */
import type * as z from 'zod';
import type { StoredForecastInputs } from '../../shared/aws/forecast-store.ts';
import { isFresh } from '../../shared/floors/forecast.ts';
import { isNoiseFresh } from '../../shared/floors/noise.ts';
import { ForecastFloorSchema, type StoredNoise, StoredNoiseSchema } from '../../shared/floors/stored.ts';
import { errorText } from '../../shared/invocation/errors.ts';
import type { TargetPolicy } from '../../shared/policy/schema.ts';
import type { HistoryNeed } from '../../shared/signals/history-plan.ts';
import {
  burstMeasureOf,
  isBurstDemandFresh,
  type StoredBurstDemand,
  StoredBurstDemandSchema,
} from '../../shared/state/burst-demand.ts';
import { storedLead } from '../../shared/state/lead-samples.ts';
import type { TargetLead, TargetOutcome } from './outcomes.ts';
import type { ForecastPorts } from './ports.ts';
import type { ForecastTelemetry } from './telemetry.ts';

/** What the read needs of the run: the state table's port and the log. */
interface Deps {
  ports: Pick<ForecastPorts, 'floors'>;
  telemetry: ForecastTelemetry;
}

/** A target this run visits: whether its floor is due, and the lead it plans over. */
export interface DueTarget {
  t: TargetPolicy;
  /** null for a run of the one-minute measurements alone: a target without a forecast, or whose floor is fresh. */
  lead: TargetLead | null;
  /** When the measurements alone are due on a forecast target: when its fresh floor was made. */
  floorFrom?: number;
}

/** The lead a forecast target plans over, and the problems of its stored samples. */
function leadOf(deps: Deps, t: TargetPolicy, stored: StoredForecastInputs): TargetLead | null {
  if (!t.forecast?.enabled) return null;
  const { lead, problems } = storedLead(t.forecast.leadTimeMinutes, stored);
  for (const p of problems) deps.telemetry.warn(`state of ${t.id}: ${p}`, { targetId: t.id });
  const previous = ForecastFloorSchema.safeParse(stored.floor);
  return { ...lead, previousMinutes: previous.data?.leadTimeMinutes ?? null };
}

/**
 * A stored measurement, or undefined: a malformed one is set aside with a warning and measured
 * again this run (`redo`: "refitted" for the noise).
 */
function storedOf<T>(
  deps: Deps,
  t: TargetPolicy,
  raw: unknown,
  schema: z.ZodType<T>,
  name: string,
  redo: string,
) {
  if (raw === undefined) return undefined;
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(value)'} ${i.message}`).join('; ');
  deps.telemetry.warn(`state of ${t.id}: ${name} set aside (${redo} this run): ${issues}`, {
    targetId: t.id,
  });
  return undefined;
}

/**
 * Whether the one-minute measurements stand until the next run: the noise (noise.enabled) and
 * the burst demand (a burst floor that can stand), each younger than an hour or off.
 */
const minuteFresh = (
  t: TargetPolicy,
  noise: StoredNoise | undefined,
  burst: StoredBurstDemand | undefined,
  now: number,
) =>
  (!t.noise?.enabled || isNoiseFresh(t, noise, now)) &&
  (burstMeasureOf(t) === null || isBurstDemandFresh(burst, now));

/** A target without a forecast whose measurements are fresh: the noise's time, or the burst demand's without noise. */
const freshOf = (t: TargetPolicy, noise: StoredNoise | undefined, burst: StoredBurstDemand | undefined) =>
  t.noise?.enabled
    ? { computedAt: noise!.computedAt, of: 'noise' as const }
    : { computedAt: burst!.measuredAt, of: 'burst demand' as const };

/**
 * The targets that are due, with the lead each is planned over, and a 'fresh' or 'failed'
 * outcome for the others. One GetItem a target reads the stored floor, the measured lead times,
 * the noise and the burst demand. A forecast target is due when its floor is not fresh (built
 * over another lead or noise term than now applies, or older than refreshMinutes); its noise and
 * burst demand alone are due when the floor is fresh and either is older than an hour (every run
 * measures them, as the backtest does), and so is a target with either and no forecast.
 */
export async function dueTargets(deps: Deps, targets: TargetPolicy[], now: number) {
  const due: DueTarget[] = [];
  const outcomes: TargetOutcome[] = [];
  for (const t of targets) {
    try {
      const stored = await deps.ports.floors.read(t.id);
      const lead = leadOf(deps, t, stored);
      const noise = storedOf(deps, t, stored.noise, StoredNoiseSchema, 'noise', 'refitted');
      const burst = storedOf(deps, t, stored.burstDemand, StoredBurstDemandSchema, 'burstDemand', 'measured');
      const fresh = minuteFresh(t, noise, burst, now);
      if (lead && !isFresh(t, stored.floor, now, lead.minutes)) due.push({ t, lead });
      else if (lead) {
        const floor = ForecastFloorSchema.parse(stored.floor);
        if (fresh) outcomes.push({ targetId: t.id, outcome: 'fresh', computedAt: floor.computedAt });
        else due.push({ t, lead: null, floorFrom: floor.computedAt });
      } else if (!fresh) due.push({ t, lead: null });
      else outcomes.push({ targetId: t.id, outcome: 'fresh', ...freshOf(t, noise, burst) });
    } catch (error) {
      outcomes.push({
        targetId: t.id,
        outcome: 'failed',
        detail: `cannot read the stored floor: ${errorText(error)}`,
      });
    }
  }
  return { due, outcomes };
}

/** What each due target reads: five-minute history for a forecast, one-minute for its noise and burst demand. */
export const needsOf = (due: DueTarget[]): HistoryNeed[] =>
  due.map(({ t, lead }) => {
    const burst = burstMeasureOf(t);
    return {
      target: t,
      forecast: lead !== null,
      noise: t.noise?.enabled === true,
      ...(burst ? { burstMinutes: burst.windowMinutes } : {}),
    };
  });
