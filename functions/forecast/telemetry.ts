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
import type { BandPoint } from '../../shared/control/forecast-floor.ts';
import {
  type ActionsOutcome,
  type ActionsSkipped,
  type TargetOutcome,
  type WarmOutcome,
  type Withheld,
  warmFailed,
} from './target.ts';

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
      return `${a.planned} scheduled actions planned but not put: ${WITHHELD[a.why]} (${a.removed} of Governor's earlier ones removed)`;
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
        message: `forecast ${o.targetId}: floor written, ${o.floorNow ?? '-'} instances now, peak ${o.floorPeak} (${o.model} model, ${o.historyDays} days); ${describeActions(a)}${warm}`,
      };
    }
    case 'fresh':
      return {
        level: 'info',
        message: `forecast ${o.targetId}: the floor from ${new Date(o.computedAt).toISOString()} is still fresh (refreshMinutes)`,
      };
    case 'no-floor':
      return {
        level: 'warn',
        message: `forecast ${o.targetId}: no floor written: ${o.reason}: ${o.message}`,
      };
    case 'failed':
      return { level: 'error', message: `forecast ${o.targetId}: failed: ${o.detail}` };
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
        metrics.addMetric('ForecastDemandP50', MetricUnit.Count, p.p50);
        metrics.addMetric('ForecastDemandP90', MetricUnit.Count, p.p90);
        metrics.publishStoredMetrics();
      }
    },
  };
}
