/**
 * CloudWatch's and X-Ray's part of the month: GetMetricData, the custom metrics the functions
 * publish through EMF, the template's alarms and dashboard, the logs, and the traces.
 */
import { demandSources } from '../signals/demand.ts';
import { buildQueries } from '../signals/queries.ts';
import { type MetricSeries, serviceSeries, targetSeries } from './emf.ts';
import {
  type CostInputs,
  type CostLine,
  DAYS_PER_MONTH,
  executions,
  GB,
  line,
  plannedRuns,
} from './lines.ts';
import { CUSTOM_METRICS_FIRST_TIER } from './prices.ts';

/** Metrics a Metrics Insights alarm analyzes: the series it selects (at least one). */
function analyzed(
  alarm: { metric: string; schema: string[] | null },
  series: readonly MetricSeries[],
): number {
  const key = (d: string[]) => [...d].sort().join(',');
  const n = series.filter(
    (s) => s.name === alarm.metric && (alarm.schema === null || key(s.dimensions) === key(alarm.schema)),
  ).length;
  return Math.max(1, n);
}

export function metricsLines({ targets, stack, assumptions: a }: CostInputs): CostLine[] {
  const ticks = stack.schedules.find((s) => s.fn === 'EvaluateFunction')?.perMonth ?? 0;
  const runs = (fn: string) => stack.schedules.filter((s) => s.fn === fn).reduce((n, s) => n + s.perMonth, 0);
  const forecastTargets = targets.filter((t) => t.forecast?.enabled);
  const mixTargets = targets.filter((t) => t.capacityMix);
  const requested =
    buildQueries(targets).length * ticks +
    forecastTargets.reduce((n, t) => n + demandSources(t).length, 0) * runs('ForecastFunction') +
    mixTargets.reduce((n, t) => n + demandSources(t).length, 0) * runs('MixFunction');
  const series = [...targets.flatMap(targetSeries), ...serviceSeries()];
  const custom = series.length + targets.length * a.reasonsPerHour;
  const listed = stack.alarms.reduce((n, x) => n + (x.kind === 'metrics' ? x.metrics : 0), 0);
  const insights = stack.alarms.reduce((n, x) => n + (x.kind === 'insights' ? analyzed(x, series) : 0), 0);
  return [
    line(
      'CloudWatch',
      `GetMetricData: ${buildQueries(targets).length} metrics a tick, history for forecast and mix`,
      requested,
      'getMetricDataMetric',
    ),
    line(
      'CloudWatch',
      `custom metrics (EMF): ${custom} series`,
      Math.min(custom, CUSTOM_METRICS_FIRST_TIER),
      'customMetricMonth',
    ),
    ...(custom > CUSTOM_METRICS_FIRST_TIER
      ? [
          line(
            'CloudWatch',
            'custom metrics past 10,000',
            custom - CUSTOM_METRICS_FIRST_TIER,
            'customMetricMonthNext',
          ),
        ]
      : []),
    line(
      'CloudWatch',
      `alarms: ${stack.alarms.filter((x) => x.kind === 'metrics').length} on ${listed} metrics`,
      listed,
      'alarmMetricMonth',
    ),
    line(
      'CloudWatch',
      `alarms: ${stack.alarms.filter((x) => x.kind === 'insights').length} Metrics Insights, ${insights} metrics analyzed`,
      insights,
      'insightsAlarmMetricMonth',
    ),
    line('CloudWatch', 'dashboard', stack.dashboards, 'dashboardMonth'),
  ];
}

export function logLines(inputs: CostInputs): CostLine[] {
  const { targets, stack, assumptions: a } = inputs;
  const ticks = stack.schedules.find((s) => s.fn === 'EvaluateFunction')?.perMonth ?? 0;
  const invocations = stack.schedules.reduce((n, s) => n + s.perMonth, 0);
  const planned = plannedRuns(inputs);
  const sfn = stack.scaleStateMachine?.logsEveryState ? executions(inputs).transitions : 0;
  const bytes =
    targets.length * ticks * a.logBytesPerEvaluation +
    invocations * a.logBytesPerInvocation +
    planned * a.logBytesPerPlannedTarget +
    sfn * a.logBytesPerTransition;
  const gb = bytes / GB;
  return [
    line('CloudWatch', 'Logs ingested: decision lines, EMF, state machine events', gb, 'logIngestGb'),
    line(
      'CloudWatch',
      `Logs stored: ${stack.logRetentionDays} days kept`,
      gb * (stack.logRetentionDays / DAYS_PER_MONTH),
      'logStoreGbMonth',
    ),
  ];
}

export function xrayLines(inputs: CostInputs): CostLine[] {
  // One trace per invocation and per execution: at a few a minute the default sampling rule's
  // reservoir (one a second) records every one.
  const traces = inputs.stack.schedules.reduce((n, s) => n + s.perMonth, 0) + executions(inputs).executions;
  return [line('X-Ray', 'traces: every invocation and execution', traces, 'xrayTrace', true)];
}
