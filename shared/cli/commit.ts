/**
 * `governor commit --trace F [--policy F]`: how many instances to commit for each term offered,
 * from the fleet Governor runs on the history (the backtest's governor policy, reference
 * scenario), with the saving and break-even utilization, beside what a Cost Explorer-style
 * lookback would have recommended (shared/commit/plan.ts). Prices are the operator's: Governor
 * looks none up.
 */
import { maxOf } from '../arrays/extent.ts';
import { runBacktest } from '../backtest/run.ts';
import {
  type CommitOffer,
  type CommitPlan,
  hourlyUsage,
  lookbackPlan,
  planCommitment,
} from '../commit/plan.ts';
import type { TargetPolicy } from '../policy/schema.ts';
import { loadTarget, loadTrace, scenarioOptions, type Values } from './backtest-inputs.ts';
import { planOutput, writeOutput } from './files.ts';
import { type CliIo, EXIT, UsageError } from './io.ts';
import { numberOption, parseOptions } from './options.ts';

export const COMMIT_OPTIONS = {
  trace: { type: 'string' },
  policy: { type: 'string' },
  target: { type: 'string' },
  'one-year': { type: 'string' },
  'three-year': { type: 'string' },
  'on-demand': { type: 'string' },
  json: { type: 'string' },
  'fill-gaps': { type: 'boolean' },
  'peak-instances': { type: 'string' },
  'slo-utilization': { type: 'string' },
  'cold-start': { type: 'string' },
  'metric-delay': { type: 'string' },
  price: { type: 'string' },
} as const;

/** Cost Explorer's Savings Plans lookbacks (LookbackPeriodInDays: SEVEN_DAYS, THIRTY_DAYS, SIXTY_DAYS). */
export const LOOKBACK_DAYS = [7, 30, 60] as const;

const NO_RATES =
  'governor commit needs your commitment rates: --one-year USD and/or --three-year USD, the effective hourly price of one committed instance from your Savings Plans or Reserved Instance offer (Governor looks no price up)';

/** The on-demand price: the flag; else the committed pool's (or the cheapest pool's) in capacityMix; else the scenario's. */
function onDemandPrice(values: Record<string, unknown>, target: TargetPolicy, scenarioPrice: number): number {
  const flag = values['on-demand'] as string | undefined;
  if (flag !== undefined) return numberOption('on-demand', flag, 0, 0.0001);
  const mix = target.capacityMix;
  if (!mix) return scenarioPrice;
  const pool =
    mix.pools.find((p) => p.instanceType === mix.committed.instanceType) ??
    [...mix.pools].sort((a, b) => a.onDemandUsdPerHour - b.onDemandUsdPerHour)[0]!;
  return pool.onDemandUsdPerHour;
}

function offersOf(values: Record<string, unknown>, target: TargetPolicy): CommitOffer[] {
  const offers: CommitOffer[] = [];
  for (const [flag, term] of [
    ['one-year', '1-year'],
    ['three-year', '3-year'],
  ] as const) {
    const raw = values[flag] as string | undefined;
    if (raw !== undefined) offers.push({ term, usdPerHour: numberOption(flag, raw, 0, 0.0001) });
  }
  const written = target.capacityMix?.committed.usdPerHour;
  if (offers.length === 0 && written !== undefined && written > 0) {
    offers.push({ term: 'policy rate', usdPerHour: written });
  }
  if (offers.length === 0) throw new UsageError(NO_RATES);
  return offers;
}

export interface CommitReport {
  trace: { name: string; minutes: number; hours: number };
  onDemandUsdPerHour: number;
  /** Instance-hours the governor policy runs over the history. */
  instanceHours: number;
  plans: (CommitPlan & {
    lookbacks: { days: number; instances: number; saving: number; utilization: number }[];
  })[];
}

const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
const usd = (x: number) =>
  `${x.toLocaleString('en-US', { maximumFractionDigits: 2, minimumFractionDigits: 2 })}`;

export function formatCommitReport(r: CommitReport): string {
  const best = [...r.plans].sort((a, b) => a.costUsd - b.costUsd)[0]!;
  const h = r.trace.hours;
  const span = h >= 48 ? `${(h / 24).toFixed(1)} days` : h === 1 ? 'one hour' : `${h} hours`;
  const first =
    best.instances === 0
      ? `Commit nothing: at the rates given no committed instance is used more than its break-even share of the ${span} (${pct(best.breakEven)} for ${best.term}).`
      : `Commit ${best.instances} instance${best.instances === 1 ? '' : 's'} (${best.term} at ${best.usdPerHour} USD an hour): ${pct(best.saving)} less than all on demand over these ${span}, the commitment used ${pct(best.utilization)} of its hours and covering ${pct(best.coverage)} of the fleet's.`;
  const head = [
    'term',
    'USD/h',
    'break-even',
    'commit',
    'used',
    'covers',
    'cost USD',
    'on-demand USD',
    'saving',
  ];
  const rows = r.plans.map((p) => [
    p.term,
    String(p.usdPerHour),
    pct(p.breakEven),
    String(p.instances),
    pct(p.utilization),
    pct(p.coverage),
    usd(p.costUsd),
    usd(p.onDemandUsd),
    pct(p.saving),
  ]);
  const widths = head.map((h, i) => maxOf([h.length, ...rows.map((row) => row[i]!.length)]));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  const lookbacks = r.plans.flatMap((p) =>
    p.lookbacks.map(
      (l) =>
        `  ${p.term}, last ${l.days} days: commit ${l.instances}, ${pct(l.saving)} saved over the whole history (used ${pct(l.utilization)})`,
    ),
  );
  const short =
    r.trace.hours < LOOKBACK_DAYS[0] * 24
      ? [
          `warning: ${span} of history says little about a term of years: base a commitment on at least ${LOOKBACK_DAYS[0]} days (Cost Explorer's shortest lookback)`,
        ]
      : [];
  return [
    first,
    ...short,
    `trace ${r.trace.name}: ${r.trace.minutes.toLocaleString('en-US')} minutes; the fleet governor runs on it: ${r.instanceHours.toLocaleString('en-US', { maximumFractionDigits: 1 })} instance-hours, on demand at ${r.onDemandUsdPerHour} USD an hour`,
    '',
    line(head),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...rows.map(line),
    '',
    lookbacks.length > 0
      ? 'as Cost Explorer would recommend it, from the last days of usage only:'
      : `as Cost Explorer would recommend it: the history is shorter than its shortest lookback (${LOOKBACK_DAYS[0]} days)`,
    ...lookbacks,
    '',
    'assumes the history\u2019s shape holds for the term (no growth projected) and the fleet is the one governor runs (docs/capacity-mix.md)',
  ].join('\n');
}

export async function commitCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseOptions({ args, options: COMMIT_OPTIONS, strict: true });
  if (!values.trace)
    throw new UsageError('--trace FILE is required (a per-minute history: governor history writes one)');
  if (values.json !== undefined) await planOutput(values.json, { flag: 'json' }, io.cwd);
  const target = await loadTarget(values as Values, io.cwd);
  const options = scenarioOptions(values as Values, target);
  const offers = offersOf(values, target);
  const onDemand = onDemandPrice(values, target, options.pricePerInstanceHour);
  const trace = await loadTrace(values as Values, io.cwd);
  const run = runBacktest({ trace, target, options, only: ['governor'] }).policies[0]!;
  const usage = hourlyUsage(run.series.provisioned);
  let instanceHours = 0;
  for (const u of usage) instanceHours += u;
  const report: CommitReport = {
    trace: { name: trace.name, minutes: trace.requests.length, hours: usage.length },
    onDemandUsdPerHour: onDemand,
    instanceHours,
    plans: offers.map((offer) => ({
      ...planCommitment(usage, onDemand, offer),
      lookbacks: LOOKBACK_DAYS.flatMap((days) => {
        const l = lookbackPlan(usage, onDemand, offer, days);
        return l
          ? [{ days, instances: l.instances, saving: l.whole.saving, utilization: l.whole.utilization }]
          : [];
      }),
    })),
  };
  io.stdout(formatCommitReport(report));
  if (values.json !== undefined) {
    await writeOutput(values.json, `${JSON.stringify(report, null, 2)}\n`, io, { flag: 'json' });
  }
  return EXIT.ok;
}
