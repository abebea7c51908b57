/**
 * The simulator's speed work (issue 19) may change how the backtest computes, never what it
 * computes: every policy's full run on every bundled trace is digested and compared with digests
 * pinned from the code before that work (tests/backtest/identical.digests.json).
 *
 * A digest covers the whole BacktestResult: per policy the summary, every per-minute series
 * (ready, provisioned, warm pool, violation minutes), every decision with its reasons and
 * sentence, the reason counts, the forecast band, the best-target sweep and the verdict. Numbers
 * are hashed bit for bit (JSON's shortest round-trip form, with -0, NaN and infinities spelt out),
 * so a last-digit change fails. The policies are frozen copies below, not examples/, so a change
 * to the example policy does not read as a simulator change.
 *
 * A deliberate change of behaviour (a policy that decides differently) re-pins with
 * `GOVERNOR_REPIN_DIGESTS=1 npx vitest run tests/backtest/identical.test.ts`; say why in the commit.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { lookaheadMemo } from '#shared/backtest/policies/lookahead.ts';
import { runBacktest } from '#shared/backtest/run.ts';
import { DEFAULT_SCENARIO } from '#shared/backtest/scenario.ts';
import { parseTrace } from '#shared/backtest/trace.ts';
import type { BacktestResult } from '#shared/backtest/types.ts';
import { parsePolicyText } from '#shared/policy/load.ts';

const PINS = new URL('./identical.digests.json', import.meta.url);

/** examples/policy.yaml as it was when the digests were pinned (comments dropped). */
const EXAMPLE = `
version: 1
targets:
  - id: chat-llm
    kind: sagemaker-variant
    region: us-east-1
    endpointName: chat-llm-prod
    variantName: AllTraffic
    instanceCapacity: { requestsPerMinuteAtSlo: 120 }
    scaling: { minCapacity: 1, maxCapacity: 400 }
    signals:
      - { metric: invocationsPerInstance, target: 75, tolerance: 0.05 }
      - { metric: p95LatencyMs, sloMs: 2000, scaleInBlockFraction: 0.8 }
    damping:
      periodSeconds: 60
      scaleOutBreaches: 3
      scaleInBreaches: 6
      scaleInStabilizationSeconds: 300
      scaleOutCooldownSeconds: 120
      scaleInCooldownSeconds: 180
      stepUp: { instances: 4, percent: 400 }
      stepDown: { instances: 1, percent: 50 }
    panic: { threshold: 2, periods: 1, stableWindowSeconds: 60 }
    forecast: { quantile: p50, requestsPerInstance: 75, leadTimeMinutes: 10, refreshMinutes: 180, historyDays: 14 }
    noise: { floorSigmas: 2.6, bandSigmas: 1 }
`;

/** An EC2 group with a warm pool, a p90 forecast and GPU utilization: the other look-ahead paths. */
const WARM_POOL = `
version: 1
targets:
  - id: asg
    kind: ec2-asg
    region: us-east-1
    autoScalingGroupName: gpu-fleet
    instanceCapacity: { requestsPerMinuteAtSlo: 120 }
    scaling: { minCapacity: 1, maxCapacity: 80 }
    signals:
      - { metric: invocationsPerInstance, target: 84, tolerance: 0.25 }
      - { metric: gpuUtilization, target: 70 }
      - { metric: p95LatencyMs, sloMs: 2000, scaleInBlockFraction: 0.8 }
    damping:
      periodSeconds: 60
      scaleOutBreaches: 2
      scaleInBreaches: 8
      scaleInStabilizationSeconds: 1800
      scaleOutCooldownSeconds: 120
      scaleInCooldownSeconds: 900
      stepUp: { instances: 4, percent: 100 }
      stepDown: { instances: 1, percent: 34 }
    panic: { threshold: 2, periods: 1, stableWindowSeconds: 600 }
    forecast: { quantile: p90, requestsPerInstance: 115, leadTimeMinutes: 10, refreshMinutes: 180, historyDays: 14 }
    warmPool: { maxSize: 6 }
    noise: { floorSigmas: 2, bandSigmas: 1 }
`;

function targetOf(text: string) {
  const parsed = parsePolicyText(text);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  return parsed.policy.targets[0]!;
}

/** Numbers JSON would blur (-0 as 0, NaN and infinities as null) spelt out. */
function exact(_key: string, v: unknown): unknown {
  if (typeof v !== 'number') return v;
  if (Object.is(v, -0)) return '-0';
  return Number.isFinite(v) ? v : String(v);
}

const sha = (value: unknown) =>
  createHash('sha256').update(JSON.stringify(value, exact)).digest('hex').slice(0, 24);

/** One digest per policy run, and one for everything else the result holds. */
function digests(prefix: string, result: BacktestResult): Record<string, string> {
  const out: Record<string, string> = {};
  const { policies, ...rest } = result;
  out[`${prefix} (scenario, demand, oracle, band, slo)`] = sha(rest);
  for (const run of policies) out[`${prefix} ${run.summary.name}`] = sha(run);
  return out;
}

const traces = readdirSync('traces')
  .filter((f) => f.endsWith('.csv'))
  .sort();
const load = (file: string) => parseTrace(readFileSync(`traces/${file}`, 'utf8'), file);

const pinned = (): Record<string, string> => JSON.parse(readFileSync(PINS, 'utf8')) as Record<string, string>;
const pinsOf = (prefix: string, all: Record<string, string>) =>
  Object.fromEntries(Object.entries(all).filter(([key]) => key.startsWith(`${prefix} `)));
/** Digests of this run, written to the pins file by GOVERNOR_REPIN_DIGESTS=1 (file order: test order). */
const fresh: Record<string, string> = {};

function check(prefix: string, result: BacktestResult): void {
  const now = digests(prefix, result);
  Object.assign(fresh, now);
  if (process.env.GOVERNOR_REPIN_DIGESTS === '1') writeFileSync(PINS, `${JSON.stringify(fresh, null, 2)}\n`);
  else expect(now).toEqual(pinsOf(prefix, pinned()));
}

describe('the backtest gives the pinned results bit for bit', () => {
  const example = targetOf(EXAMPLE);
  // As `governor backtest` runs them on two cores or more: NASA and Twitter with the governor's
  // forecasts on a second thread (the hour-long traces plan no forecast and run in one thread).
  // The one-thread path is pinned against it by tests/backtest/parallel-fits.test.ts (whole runs
  // both ways), and with shared fits by the warm-pool run below and content-fits.test.ts.
  it.each(traces)(
    'every policy on %s',
    (file) => {
      const options = DEFAULT_SCENARIO;
      check(file, runBacktest({ trace: load(file), target: example, options, parallel: true }));
    },
    180_000,
  );

  // The warm-pool target: its governor alone, scored from day 15 through the memo governor tune
  // shares (the same fits, computed once).
  it('the warm-pool target on nasa_http_1995_jul_per_minute.csv', () => {
    const file = 'nasa_http_1995_jul_per_minute.csv';
    const result = runBacktest({
      trace: load(file),
      target: targetOf(WARM_POOL),
      options: DEFAULT_SCENARIO,
      scoreFrom: 15 * 1440,
      fits: lookaheadMemo(),
      only: ['governor'],
    });
    check(`warm-pool ${file}`, result);
  }, 180_000);
});
