/**
 * Logs and metrics of the spot-events function. Powertools Logger: one JSON line per decision
 * record. Powertools Metrics: CloudWatch EMF, namespace POWERTOOLS_METRICS_NAMESPACE
 * ("Governor"), dimension [service] = governor, one datapoint per target per batch:
 *   ReplacementsRequested   instances detached for replacement (shadow: that would have been)
 *   DuplicatesIgnored       events whose instance (or shortage) was already handled
 *   ForeignIgnored          events of another account or region, or of no managed group
 *   PoolsMarkedUnavailable  spot pools (or spot as a whole) left out after a failed spot launch
 *   SpotBreakerOpened       1 when the target's spot breaker opened (the template alarms on it)
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { SpotEventsTelemetry } from './types.ts';

const SERVICE_DIMENSION = { service: 'governor' };

export function powertoolsSpotTelemetry(logger: Logger, metrics: Metrics): SpotEventsTelemetry {
  metrics.clearDefaultDimensions();
  return {
    info: (message, attributes) => logger.info(message, attributes ?? {}),
    error: (message, attributes) => logger.error(message, attributes ?? {}),
    decision: (record) =>
      logger.info(`spot ${String(record.targetId ?? '-')}: ${String(record.message)}`, { record }),
    count(metric, value) {
      metrics.addDimensions(SERVICE_DIMENSION);
      metrics.addMetric(metric, MetricUnit.Count, value);
      metrics.publishStoredMetrics();
    },
  };
}
