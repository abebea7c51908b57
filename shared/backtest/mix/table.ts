/**
 * The mix backtest's terminal table and --json report: one row per strategy, the cost split by
 * capacity type, in the plain style of the backtest table (shared/backtest/columns.ts).
 */
import { type Column as ColumnOf, renderColumns } from '../columns.ts';
import { DRY_MINUTES, NOTICE_MINUTES, RECLAIM_SHARE } from './hazard.ts';
import type { MixBacktestResult } from './run.ts';
import type { MixRunSummary } from './simulate.ts';
import { SPOTHEDGE_EXTRA_SPOT } from './spothedge.ts';
import { MIX_BASELINE } from './strategies.ts';

const whole = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const one = new Intl.NumberFormat('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
const two = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const three = new Intl.NumberFormat('en-US', { minimumFractionDigits: 3, maximumFractionDigits: 3 });

export { MIX_BASELINE };

type Row = MixRunSummary & { vsBaseline: number };
type Column = ColumnOf<Row>;

const COLUMNS: Column[] = [
  { head: 'strategy', cell: (s) => s.name, left: true },
  { head: 'cost USD', cell: (s) => whole.format(s.costUsd) },
  { head: 'vs all on-demand', cell: (s) => `${s.vsBaseline >= 0 ? '+' : ''}${one.format(s.vsBaseline)} %` },
  { head: 'committed', cell: (s) => whole.format(s.committedUsd) },
  { head: 'on-demand', cell: (s) => whole.format(s.onDemandUsd) },
  { head: 'spot', cell: (s) => whole.format(s.spotUsd) },
  { head: 'spot share', cell: (s) => `${whole.format(100 * s.spotShare)} %` },
  { head: 'inst-hours', cell: (s) => whole.format(s.instanceHours) },
  {
    head: 'USD/1k req',
    cell: (s) => (s.costPer1kRequestsUsd === null ? '-' : three.format(s.costPer1kRequestsUsd)),
  },
  { head: 'viol. min', cell: (s) => whole.format(s.violationMinutes) },
  { head: 'of min', cell: (s) => `${two.format(100 * s.violationRatio)} %` },
  { head: 'reclaimed', cell: (s) => whole.format(s.reclaimed) },
  { head: 'spot short', cell: (s) => whole.format(s.failedSpotLaunches) },
  { head: 'breaker', cell: (s) => whole.format(s.breakerTrips) },
  { head: 'actions', cell: (s) => whole.format(s.scalingActions) },
];

export function mixRows(r: MixBacktestResult): Row[] {
  const base = r.runs.find((x) => x.name === MIX_BASELINE)?.costUsd ?? Number.NaN;
  return r.runs.map((x) => ({ ...x, vsBaseline: 100 * (x.costUsd / base - 1) }));
}

export function formatMixTable(r: MixBacktestResult): string {
  const { spot } = r;
  const zones = [...new Set(spot.pools.map((p) => p.zone).filter((z) => z !== null))];
  const types = spot.pools
    .filter((p) => p.zone === (zones[0] ?? null))
    .map((p) => `${p.instanceType} (${p.band}, ${two.format(p.spotUsdPerHour)} USD/h spot)`)
    .join(', ');
  const pools =
    zones.length > 0
      ? `${types} in ${zones.length} zones (${zones.join(', ')}): ${spot.pools.length} pools`
      : types;
  return [
    `trace ${r.trace.name}: ${whole.format(r.trace.minutes)} minutes; on-demand ${two.format(r.onDemandUsdPerHour)} USD per instance-hour`,
    `spot pools: ${pools}; interruption rate x${spot.interruptionScale}${spot.zoneWide > 0 ? `, ${whole.format(100 * spot.zoneWide)} % of it zone-wide (every pool of a zone at once)` : ''}, seed ${spot.seed}: ${whole.format(spot.reclaimEvents)} reclaim events (each takes ${whole.format(100 * RECLAIM_SHARE)} % of the pool's spot after a ${NOTICE_MINUTES}-minute notice; the pool is then dry for ${DRY_MINUTES} min)`,
    commitmentLine(r),
    ...(spot.spotHeadroom > 0
      ? [
          `spot headroom: governor + mix holds ${whole.format(spot.spotHeadroom)} spot beyond what the load asks while its plan runs spot (spot.overProvision); SpotHedge holds ${SPOTHEDGE_EXTRA_SPOT} beyond its capacity always`,
        ]
      : []),
    'reclaimed: spot instances warned; spot short: instance-minutes the group could not launch spot for want of capacity; breaker: times Governor moved to on-demand',
    '',
    ...renderColumns(COLUMNS, mixRows(r)),
  ].join('\n');
}

function commitmentLine(r: MixBacktestResult): string {
  const c = r.spot.commitment;
  const rows =
    'every governor row bills it but "governor, all on-demand"; SpotHedge keeps it on-demand as its base; target tracking runs without';
  if (c.plan)
    return `commitment: ${whole.format(c.instances)} instances at ${two.format(c.usdPerHour)} USD/h, planned (governor commit's model) on the fleet of "governor, all on-demand" over this same trace, so in-sample: it would have used ${whole.format(100 * c.plan.utilization)} % of its hours and saved ${one.format(100 * c.plan.saving)} % of that fleet's cost; ${rows}`;
  if (c.instances === 0) return 'commitment: none';
  return `commitment: ${whole.format(c.instances)} instances at ${two.format(c.usdPerHour)} USD/h; ${rows}`;
}

export function toMixJson(r: MixBacktestResult): object {
  return {
    trace: r.trace,
    spot: r.spot,
    onDemandUsdPerHour: r.onDemandUsdPerHour,
    model: { reclaimShare: RECLAIM_SHARE, dryMinutes: DRY_MINUTES, noticeMinutes: NOTICE_MINUTES },
    runs: mixRows(r),
  };
}
