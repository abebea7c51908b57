/**
 * Logs and metrics of the mix function. One JSON log line per decision record (error for failed,
 * refused; warn for busy, superseded, deferred; info otherwise) and CloudWatch EMF in namespace
 * Governor (POWERTOOLS_METRICS_NAMESPACE), dimension [TargetId], for the plan in force:
 *   PlannedUsdPerHour         USD per hour of the plan at its capacity, committed base included
 *   PlannedSpotInstances      spot instances in the plan
 *   PlannedOnDemandInstances  on-demand instances (committed ones included)
 *   CostPer1kRequestsUsd      PlannedUsdPerHour over the last hour's requests / 1,000 (absent
 *                             without requests)
 *   BudgetCapped              1 when the plan was lowered to fit maxUsdPerHour, else 0 (the
 *                             template's BudgetCapped alarm: the SLO is at risk for money)
 *   VariantFallbackShifts     targets with a variantFallback: 1 when capacity was shifted to a
 *                             fallback variant this run (written to the endpoint), else 0
 * and, dimension [service] = governor:
 *   MixRecordWriteFailures    decision records not written to the state table (in the log only;
 *                             the template's MixRecordWriteFailures alarm, as evaluate's
 *                             AuditWriteFailures)
 *   RetirementsOverdue        every run: Health retirements still waiting for their replacement
 *                             after an hour (./retirements.ts; the RetirementsOverdue alarm)
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { MixRecord, MixTelemetry } from './record.ts';

const LEVEL: Record<MixRecord['outcome'], 'info' | 'warn' | 'error'> = {
  applied: 'info',
  unchanged: 'info',
  planned: 'info',
  shadow: 'info',
  killed: 'info',
  refused: 'error',
  busy: 'warn',
  superseded: 'warn',
  failed: 'error',
  deferred: 'warn',
};

/** The metrics of one record's plan in force (none without a plan), by name. */
export function planFigures(r: MixRecord): Record<string, number> {
  const plan = r.plan;
  if (!plan) return {};
  return {
    PlannedUsdPerHour: plan.usdPerHour,
    PlannedSpotInstances: plan.spot,
    PlannedOnDemandInstances: plan.onDemand,
    BudgetCapped: plan.shapedBy.includes('BudgetCapped') ? 1 : 0,
    ...(r.costPer1kRequestsUsd !== null ? { CostPer1kRequestsUsd: r.costPer1kRequestsUsd } : {}),
  };
}

/** The variant fallback's metric: one shift written to the endpoint, or none. */
export const fallbackFigures = (r: MixRecord): Record<string, number> =>
  r.fallback
    ? { VariantFallbackShifts: r.fallback.action === 'shift' && r.fallback.write === 'applied' ? 1 : 0 }
    : {};

export function powertoolsMixTelemetry(logger: Logger, metrics: Metrics): MixTelemetry {
  // Exactly [TargetId]: no default `service` dimension, as the other functions' per-target metrics.
  metrics.clearDefaultDimensions();
  return {
    info: (message, attributes) => logger.info(message, attributes ?? {}),
    warn: (message, attributes) => logger.warn(message, attributes ?? {}),
    error: (message, attributes) => logger.error(message, attributes ?? {}),
    count(metric, value) {
      const single = metrics.singleMetric();
      // Its own [service] = governor, not the default governor-mix it inherits (which warned).
      single.clearDefaultDimensions();
      single.addDimensions({ service: 'governor' });
      single.addMetric(metric, MetricUnit.Count, value);
    },
    record(r) {
      const sentence = r.message ? `${r.message} ` : '';
      logger[LEVEL[r.outcome]](`mix ${r.targetId}: ${r.outcome}: ${sentence}(${r.detail})`, { record: r });
      const figures = Object.entries({ ...planFigures(r), ...fallbackFigures(r) });
      if (figures.length === 0) return;
      metrics.addDimension('TargetId', r.targetId);
      for (const [name, value] of figures)
        metrics.addMetric(
          name,
          name === 'PlannedUsdPerHour' || name === 'CostPer1kRequestsUsd'
            ? MetricUnit.NoUnit
            : MetricUnit.Count,
          value,
        );
      metrics.publishStoredMetrics();
    },
  };
}
