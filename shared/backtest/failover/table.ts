/**
 * The failover backtest's terminal table and --json report: one row per strategy, in the plain
 * style of the backtest table (shared/backtest/table.ts).
 */
import { type Column as ColumnOf, renderColumns } from '../columns.ts';
import { RECOVERY_HOLD_MINUTES, RECOVERY_SHARE } from './recovery.ts';
import type { FailoverBacktestResult, StrategySummary } from './run.ts';

const whole = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const one = new Intl.NumberFormat('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
const two = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

type Column = ColumnOf<StrategySummary>;

const minutes = (m: number | null, none: string) => (m === null ? none : `${whole.format(m)} min`);

const COLUMNS: Column[] = [
  { head: 'strategy', cell: (s) => s.name, left: true },
  {
    head: 'recovery',
    cell: (s) => (s.name === 'one-region' ? '-' : minutes(s.recoveryMinutes, 'not recovered')),
  },
  {
    head: 'traffic off',
    cell: (s) => (s.name === 'one-region' ? '-' : minutes(s.failedOverMinutes, 'never')),
  },
  { head: 'viol. min', cell: (s) => whole.format(s.violationMinutes) },
  { head: 'in outage', cell: (s) => whole.format(s.outageViolationMinutes) },
  { head: 'instance-h', cell: (s) => one.format(s.instanceMinutes / 60) },
  { head: 'cost USD', cell: (s) => two.format(s.costUsd) },
  { head: 'x oracle', cell: (s) => `${two.format(s.costVsOracle)}x` },
  {
    head: 'extra cost',
    cell: (s) =>
      s.extraCostPercent === null
        ? '-'
        : `${s.extraCostPercent >= 0 ? '+' : ''}${one.format(s.extraCostPercent)} %`,
  },
];

function table(rows: StrategySummary[]): string[] {
  return renderColumns(COLUMNS, rows);
}

export function formatFailoverTable(r: FailoverBacktestResult): string {
  const { trace, scenario: s, outage: o } = r;
  const given = typeof o.startGiven === 'number' ? '' : ` (${o.startGiven} of the busiest day)`;
  return [
    `trace ${trace.name}: ${whole.format(trace.minutes)} minutes, ${whole.format(trace.totalRequests)} requests`,
    `scenario: ${s.peakInstances} instances at peak; cold start ${s.coldStartMinutes} min, metric delay ${s.metricDelayMinutes} min, ${two.format(s.pricePerInstanceHour)} USD per instance-hour`,
    `outage: ${o.region} loses its capacity at minute ${whole.format(o.start)}${given} for ${whole.format(o.end - o.start)} minutes; standby region ${o.standbyRegion}; warm standby floor ${r.warmFloor}`,
    `recovery: minutes from the outage's start until >= ${whole.format(100 * RECOVERY_SHARE)} % of requests are served within the SLO for ${RECOVERY_HOLD_MINUTES} minutes in a row; traffic off: until the outage region gets 0 %`,
    'viol. min: over the whole trace; in outage: from its start to 60 minutes after its end; extra cost: over one-region (no outage, no failover capacity)',
    '',
    ...table(r.strategies),
  ].join('\n');
}

export function toFailoverJson(r: FailoverBacktestResult): object {
  return {
    trace: r.trace,
    scenario: r.scenario,
    outage: r.outage,
    warmFloor: r.warmFloor,
    recoveryDefinition: { share: RECOVERY_SHARE, holdMinutes: RECOVERY_HOLD_MINUTES },
    strategies: r.strategies,
  };
}
