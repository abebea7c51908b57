/**
 * The table of docs/capacity-mix.md, "Measured: every variant": `governor backtest --spot` on a
 * trace under the suite's scenario variants, at the band's rate and at ten times it with every
 * reclaim zone-wide, printed as Markdown rows (one trace per process, so two run side by side).
 *
 *   node scripts/mix-variants.ts traces/nasa_http_1995_jul_per_minute.csv [--committed-price USD] [--zones N] [--over-provision N]
 *
 * With --committed-price, each run commits what governor commit plans (--committed auto). The
 * reference mix spans three zones (nine pools); --zones 1 makes the tables of before pools by zone.
 * --over-provision N sets spot.overProvision (spot headroom; docs/capacity-mix.md).
 */
import { readFileSync } from 'node:fs';
import { DEFAULT_SPOT, runMixBacktest } from '../shared/backtest/mix/run.ts';
import { SPOTHEDGE } from '../shared/backtest/mix/spothedge.ts';
import { MIX_BASELINE, mixRows } from '../shared/backtest/mix/table.ts';
import { lookaheadMemo } from '../shared/backtest/policies/lookahead.ts';
import { referenceScenario } from '../shared/backtest/scenario.ts';
import { parsePolicyText } from '../shared/policy/load.ts';
import { readTraceFile, SuiteInputError } from '../shared/suite/load.ts';
import { VARIANTS } from '../shared/suite/variants.ts';
import { numberArg, type ScriptUsage, scriptArgs, usageExit } from './args.ts';

const USAGE: ScriptUsage = {
  script: 'mix-variants',
  synopsis: 'node scripts/mix-variants.ts TRACE.csv [--committed-price USD] [--zones N] [--over-provision N]',
  maxPositionals: 1,
  details: `Prints the rows of docs/capacity-mix.md's "Measured: every variant" table: governor backtest --spot
on TRACE under eight of the suite's variants, at the interruption band's rate and at ten times it
with every reclaim zone-wide.

  --committed-price USD   each run commits what governor commit plans (--committed auto) at this
                          rate per instance-hour
  --zones N               zones the reference mix spans, 1 to 3 (default 3: nine pools)
  --over-provision N      spot.overProvision, instances of spot headroom (default: the policy's)
  --help                  this text`,
};

const { values, positionals } = scriptArgs(USAGE, {
  allowPositionals: true,
  options: {
    'committed-price': { type: 'string' },
    zones: { type: 'string' },
    'over-provision': { type: 'string' },
  },
});
const file = positionals[0] ?? usageExit(USAGE, 'the trace is missing');
const price = numberArg(USAGE, 'committed-price', values['committed-price'], { min: 0 });
const zones = numberArg(USAGE, 'zones', values.zones, { min: 1, max: 3, integer: true });
const overProvision = numberArg(USAGE, 'over-provision', values['over-provision'], { min: 0, integer: true });
const parsed = parsePolicyText(readFileSync(new URL('../examples/policy.yaml', import.meta.url), 'utf8'));
if (!parsed.ok) throw new Error('examples/policy.yaml does not validate');
const target = parsed.policy.targets[0]!;
const trace = (() => {
  try {
    return readTraceFile(file);
  } catch (error) {
    if (!(error instanceof SuiteInputError)) throw error;
    return usageExit(USAGE, error.message);
  }
})();
const ids = ['reference', 'cold-4', 'cold-15', 'peak-10', 'peak-160', 'delay-2', 'noise-1', 'noise-2'];
const pct = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(1)} %`;

for (const variant of VARIANTS.filter((v) => ids.includes(v.id))) {
  const fits = lookaheadMemo();
  for (const [rate, zoneWide] of [
    [1, 0],
    [10, 1],
  ] as const) {
    const result = runMixBacktest({
      trace,
      target,
      options: { ...referenceScenario(target), ...variant.options },
      spot: {
        ...DEFAULT_SPOT,
        interruptionScale: rate,
        zoneWide,
        zones,
        overProvision,
        ...(price !== null && { committed: 'auto' as const, committedUsdPerHour: price }),
      },
      fits,
    });
    const rows = mixRows(result);
    const row = (name: string) => rows.find((r) => r.name === name)!;
    const mix = row('governor + mix');
    const all = row(MIX_BASELINE);
    const hedge = row(SPOTHEDGE);
    const discount = 1 - result.spot.pools[0]!.spotUsdPerHour / result.onDemandUsdPerHour;
    const bar = 0.9 * mix.spotShare * discount;
    const hours = mix.instanceHours / all.instanceHours - 1;
    const vsHedge = mix.costUsd / hedge.costUsd - 1;
    console.log(
      `| ${trace.name.replace(/_per_minute\.csv$/, '')} | ${variant.id} | x${rate}${zoneWide ? ' zone-wide' : ''} | ${result.spot.commitment.instances} | ${pct(mix.vsBaseline)} | ${pct(-100 * bar)} | ${pct(100 * hours)} | ${mix.violationMinutes} (${all.violationMinutes}) | ${pct(100 * vsHedge)} | ${hedge.violationMinutes} | ${mix.breakerTrips} |`,
    );
  }
}
