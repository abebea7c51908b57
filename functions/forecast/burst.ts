/**
 * A target's burst demand in one forecast run (shared/slo/burst-floor.ts, measureBurstDemand):
 * the quantile of its last burstFloor.windowMinutes of one-minute demand the objective must
 * cover, stored beside the noise as `burstDemand` for the evaluator's burst floor
 * (shared/state/burst-demand.ts). Measured every hourly run, as the noise is refitted. No I/O here.
 */

import { perMinute } from '../../shared/floors/noise.ts';
import type { TargetPolicy } from '../../shared/policy/schema.ts';
import { describeSources } from '../../shared/signals/demand.ts';
import { MIN_MEASURED_MINUTES, measureBurstDemand } from '../../shared/slo/burst-floor.ts';
import { burstMeasureOf, type StoredBurstDemand } from '../../shared/state/burst-demand.ts';
import type { TargetHistory } from './history.ts';
import type { BurstOutcome } from './outcomes.ts';

export interface MeasuredBurst {
  /** The attribute to store (null: nothing measured, the stored one is left as it was). */
  stored: StoredBurstDemand | null;
  outcome: BurstOutcome;
}

/**
 * The target's burst demand; null when its burst floor cannot stand (burstMeasureOf) or its
 * one-minute demand was not read. No demand history (a target that has served nothing yet, or a
 * metric that is not there) is a result, unmeasured with where it was looked for, never an error.
 */
export function measureBurst(t: TargetPolicy, h: TargetHistory['burst'], now: number): MeasuredBurst | null {
  const m = burstMeasureOf(t);
  if (!m || !h) return null;
  const where = `${describeSources(t)} at one minute, last ${h.windowMinutes} minutes`;
  if (!h.demand.ok)
    return {
      stored: null,
      outcome: { status: 'unmeasured', why: `${h.demand.reason}: ${h.demand.message} (${where})` },
    };
  const demand = perMinute(h.demand.history);
  const stored = measureBurstDemand(demand, m.objective, m.control, now);
  if (!stored) {
    const read = demand.filter(Number.isFinite).length;
    return {
      stored: null,
      outcome: {
        status: 'unmeasured',
        why: `${read} minutes read, fewer than ${MIN_MEASURED_MINUTES} (${where})`,
      },
    };
  }
  const { demand: value, quantile, minutes } = stored;
  return { stored, outcome: { status: 'measured', demand: value, quantile, minutes } };
}

export const storedBurst = (m: MeasuredBurst | null) => (m?.stored ? { burstDemand: m.stored } : {});
export const burstOf = (m: MeasuredBurst | null) => (m ? { burst: m.outcome } : {});
