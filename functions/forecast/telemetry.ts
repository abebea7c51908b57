/**
 * Logs and metrics of the forecast function, behind a small interface so tests can capture
 * them. The Lambda implementation uses Powertools: one JSON log line per target outcome, and
 * CloudWatch EMF in namespace Governor (POWERTOOLS_METRICS_NAMESPACE), dimension [TargetId]:
 *   ForecastFloor       instances, the floor schedule at each five-minute step
 *   ForecastDemandP50   requests per minute forecast for that step (median)
 *   ForecastDemandP90   requests per minute, p90
 * each stamped with its step's time (the next hour), so the dashboard draws the band where it
 * applies, beside the capacity the evaluator decided.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { BandPoint } from '../../shared/floors/forecast.ts';
import type { BurstOutcome, NoiseOutcome } from './outcomes.ts';
import {
  type ActionsOutcome,
  type ActionsSkipped,
  type TargetLead,
  type TargetOutcome,
  type WarmOutcome,
  type Withheld,
  warmFailed,
} from './outcomes.ts';

export interface ForecastTelemetry {
  info(message: string, attributes?: Record<string, unknown>): void;
  warn(message: string, attributes?: Record<string, unknown>): void;
  error(message: string, attributes?: Record<string, unknown>): void;
  /** One structured line per target: what was written, or why nothing was. */
  outcome(o: TargetOutcome): void;
  band(targetId: string, points: readonly BandPoint[]): void;
}

const SKIPPED: Record<ActionsSkipped, string> = {
  Disabled: 'forecast.scheduledActions is false (Disabled)',
  NotSageMaker:
    'Application Auto Scaling scheduled actions are written for SageMaker targets only (NotSageMaker)',
  OtherRegion: "the target is outside the stack's region, where the role may not write them (OtherRegion)",
  NotRegistered:
    'the target is not a registered scalable target: register it with Application Auto Scaling, min and max as in the policy (NotRegistered)',
  LevelFloor:
    'a level floor holds for the next hour only, so the evaluator applies it and no MinCapacity is scheduled (LevelFloor)',
};

const WITHHELD: Record<Withheld, string> = {
  shadow: 'shadow mode (GOVERNOR_MODE)',
  'kill-switch': 'the kill switch is on',
};

function describeActions(a: ActionsOutcome): string {
  switch (a.status) {
    case 'written':
      return `${a.planned} scheduled actions planned (${a.put} put, ${a.removed} removed)`;
    case 'skipped':
      return `no scheduled actions: ${SKIPPED[a.reason]}`;
    case 'removed':
      return `forecast.scheduledActions is false: ${a.removed} scheduled actions of Governor's removed`;
    case 'withheld':
      return a.why === 'kill-switch'
        ? `${a.planned} scheduled actions planned but not put: ${WITHHELD[a.why]}, so none is put or deleted (Governor's earlier ones stay as they are)`
        : `${a.planned} scheduled actions planned but not put: ${WITHHELD[a.why]} (${a.removed} of Governor's earlier ones removed)`;
    case 'failed':
      return a.detail;
  }
}

function describeWarm(w: WarmOutcome): string {
  if (w.kind === 'standby') return `standby: ${w.message}`;
  switch (w.status) {
    case 'resized':
      return `warm pool set to ${w.size} (PutWarmPool): ${w.message}`;
    case 'unchanged':
      return `warm pool already ${w.size}: ${w.message}`;
    case 'withheld':
      return `warm pool of ${w.size} planned but not set: ${WITHHELD[w.detail as Withheld]}`;
    case 'failed':
      return w.detail ?? 'warm pool failed';
  }
}

/**
 * The lead clause of a written floor: said when the lead was measured, has samples, or moved
 * since the stored floor ("lead time 14 min: p90 of 3 measured scale-outs is 13.0 min + 1 min
 * metric delay, above the configured 10 (moved from 10 min)"); silent for a configured lead
 * with nothing measured yet, as before leads were measured.
 */
function describeLead(l: TargetLead): string {
  const moved = l.previousMinutes !== null && l.previousMinutes !== l.minutes;
  if (!moved && l.source === 'configured' && l.samples === 0) return '';
  return `; ${l.message}${moved ? ` (moved from ${l.previousMinutes} min)` : ''}`;
}

const num = (x: number, digits: number) => Number(x.toPrecision(digits)).toString();

/**
 * The noise clause: "noise a=1.02 b=0.0004 from 2,865 minutes (levels of 15 min)", or why none
 * was measured. The floor's use of it is said where the floor is.
 */
export function describeNoise(n: NoiseOutcome): string {
  if (n.status === 'unmeasured') return `noise not measured: ${n.why}`;
  const clamped = n.clamped ? ` (${n.clamped})` : '';
  return `noise a=${num(n.a, 3)} b=${num(n.b, 3)} from ${n.samples.toLocaleString('en-US')} minutes (levels of ${n.levelMinutes} min, last ${n.historyMinutes} min)${clamped}`;
}

const noiseClause = (n: NoiseOutcome | undefined) => (n ? `; ${describeNoise(n)}` : '');

/**
 * The burst demand clause: "burst demand 412 req/min (the 99.6th percentile of 1,440 minutes,
 * stored for the burst floor)", or why none was measured.
 */
export function describeBurst(b: BurstOutcome): string {
  if (b.status === 'unmeasured') return `burst demand not measured: ${b.why}`;
  const pct = Number((100 * b.quantile).toFixed(2));
  return `burst demand ${num(b.demand, 4)} req/min (the ${pct}th percentile of ${b.minutes.toLocaleString('en-US')} minutes, stored for the burst floor)`;
}

const burstClause = (b: BurstOutcome | undefined) => (b ? `; ${describeBurst(b)}` : '');

/** The one-minute measurements alone: the noise's sentence as before, then the burst demand's. */
function describeMeasured(o: Extract<TargetOutcome, { outcome: 'noise' }>): string {
  const what = o.noise ? 'the noise is refitted hourly' : 'the burst demand is measured hourly';
  const head =
    o.floorFrom === undefined
      ? 'no forecast'
      : `the floor from ${new Date(o.floorFrom).toISOString()} is still fresh (refreshMinutes), ${what}`;
  const noise = o.noise
    ? `, ${describeNoise(o.noise)}${o.noise.status === 'measured' ? " (stored: it widens the evaluator's band)" : ''}`
    : '';
  return `${head}${noise}${burstClause(o.burst)}`;
}
const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);

type Written = Extract<TargetOutcome, { outcome: 'written' }>;

/** The first clause of a written floor: its kind, what it holds, and what it is made of. */
function describeFloor(o: Written): string {
  const sigmas = o.floorSigmas ? `, with ${o.floorSigmas} sigmas of noise` : '';
  if (o.kind === 'level' && o.level)
    return `level floor written, ${o.floorNow ?? '-'} instances until ${hhmm(o.level.until)} UTC: the last level ${num(o.level.level, 4)} req/min${sigmas}, no forecast yet (${o.level.unavailable})`;
  const fallback = o.fallback ? `; fallback: ${o.fallback}` : '';
  return `forecast floor written, ${o.floorNow ?? '-'} instances now, peak ${o.floorPeak} (${o.model} model, ${o.historyDays} days${sigmas})${fallback}`;
}

/** The log level and sentence of one outcome (also used by tests and the CLI-style summary). */
export function describeOutcome(o: TargetOutcome): { level: 'info' | 'warn' | 'error'; message: string } {
  switch (o.outcome) {
    case 'written': {
      const a = o.actions;
      const warm = o.warm ? `; ${describeWarm(o.warm)}` : '';
      return {
        level:
          a.status === 'failed' || warmFailed(o.warm)
            ? 'error'
            : a.status === 'skipped' && a.reason === 'NotRegistered'
              ? 'warn'
              : 'info',
        message: `forecast ${o.targetId}: ${describeFloor(o)}${describeLead(o.lead)}${noiseClause(o.noise)}${burstClause(o.burst)}; ${describeActions(a)}${warm}`,
      };
    }
    case 'fresh':
      return {
        level: 'info',
        message: `forecast ${o.targetId}: the ${o.of ?? 'floor'} from ${new Date(o.computedAt).toISOString()} is still fresh (${o.of === 'burst demand' ? 'measured hourly' : 'refreshMinutes'})`,
      };
    case 'no-floor':
      return {
        level: 'warn',
        message: `forecast ${o.targetId}: no floor written: ${o.reason}: ${o.message}${noiseClause(o.noise)}${burstClause(o.burst)}`,
      };
    case 'noise':
      return {
        // Something the target asks for that could not be measured: its band or floor goes without.
        level: o.noise?.status === 'unmeasured' || o.burst?.status === 'unmeasured' ? 'warn' : 'info',
        message: `forecast ${o.targetId}: ${describeMeasured(o)}`,
      };
    case 'failed':
      return { level: 'error', message: `forecast ${o.targetId}: failed: ${o.detail}` };
    case 'deferred':
      return { level: 'warn', message: `forecast ${o.targetId}: not started: ${o.detail}` };
  }
}

export function powertoolsForecastTelemetry(logger: Logger, metrics: Metrics): ForecastTelemetry {
  // Exactly [TargetId]: no default `service` dimension, as the evaluate function's metrics.
  metrics.clearDefaultDimensions();
  return {
    info: (message, attributes) => logger.info(message, attributes ?? {}),
    warn: (message, attributes) => logger.warn(message, attributes ?? {}),
    error: (message, attributes) => logger.error(message, attributes ?? {}),
    outcome(o) {
      const { level, message } = describeOutcome(o);
      logger[level](message, { outcome: o });
    },
    band(targetId, points) {
      for (const p of points) {
        metrics.setTimestamp(p.at);
        metrics.addDimension('TargetId', targetId);
        metrics.addMetric('ForecastFloor', MetricUnit.Count, p.floor);
        // A level floor has no forecast: its points carry the floor alone.
        if (p.p50 !== undefined) metrics.addMetric('ForecastDemandP50', MetricUnit.Count, p.p50);
        if (p.p90 !== undefined) metrics.addMetric('ForecastDemandP90', MetricUnit.Count, p.p90);
        metrics.publishStoredMetrics();
      }
    },
  };
}
