import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runBacktest } from '#shared/backtest/run.ts';
import { DEFAULT_SCENARIO } from '#shared/backtest/scenario.ts';
import { parseTrace } from '#shared/backtest/trace.ts';
import { parsePolicyText } from '#shared/policy/load.ts';

const policy = parsePolicyText(readFileSync('examples/policy.yaml', 'utf8'));
if (!policy.ok) throw new Error('examples/policy.yaml is invalid');
const target = policy.policy.targets[0]!;

const runs = new Map<string, ReturnType<typeof runBacktest>>();
/** One backtest per trace, shared by the describes below (NASA takes about a second). */
const run = (file: string) => {
  let result = runs.get(file);
  if (!result) {
    result = runBacktest({
      trace: parseTrace(readFileSync(`traces/${file}`, 'utf8'), file),
      target,
      options: DEFAULT_SCENARIO,
    });
    runs.set(file, result);
  }
  return result;
};

// The reference scenario's deterministic figures: oracle = sum of ceil(r(m) x 40 / max(r) - 1e-9)
// (at least 1); static peak = 40 x minutes. A change here changes every published ratio.
describe.each([
  { file: 'nasa_http_1995_jul_per_minute.csv', minutes: 39_693, oracle: 206_523 },
  { file: 'azure_llm_2023_code_per_minute.csv', minutes: 58, oracle: 639 },
  { file: 'azure_llm_2023_code_per_second.csv', minutes: 57, oracle: 622 },
  { file: 'azure_llm_2023_conv_per_minute.csv', minutes: 60, oracle: 1_576 },
  { file: 'azure_llm_2023_conv_per_second.csv', minutes: 59, oracle: 1_575 },
  { file: 'twitter_stream_2021_08_per_minute.csv', minutes: 31_652, oracle: 287_854 },
])('$file', ({ file, minutes, oracle }) => {
  const result = run(file);
  const by = (name: string) => result.policies.find((p) => p.summary.name === name)!.summary;

  it(`the oracle needs ${oracle} instance-minutes and static peak 40 x ${minutes}`, () => {
    expect(result.oracle.reduce((a, b) => a + b, 0)).toBe(oracle);
    expect(by('oracle')).toMatchObject({ instanceMinutes: oracle, violationMinutes: 0, costVsOracle: 1 });
    expect(by('static-peak')).toMatchObject({ instanceMinutes: 40 * minutes, violationMinutes: 0 });
  });

  it('no policy costs less than the oracle', () => {
    for (const p of result.policies) expect(p.summary.instanceMinutes).toBeGreaterThanOrEqual(oracle);
  });
});
// Governor against target tracking on every trace and variant: tests/suite/bundled.test.ts.

// The example policy on NASA with the same file that runs every other trace: it holds the default
// objective (99.5 % of minutes) with fewer than a third of AWS target tracking's scaling actions.
// Issue 9's cost goal was 2x the oracle (then 1.98x, 184 minutes); the error budget now spends
// 2.06x for 142 minutes (99.64 %), its spendTarget keeping a fifth of the budget in reserve
// (docs/slo.md). Issue 17's 1.9x is not reached: the bound below pins today's cost, not that goal.
describe('nasa_http_1995_jul_per_minute.csv: the example policy meets its objective', () => {
  const result = run('nasa_http_1995_jul_per_minute.csv');
  const by = (name: string) => result.policies.find((p) => p.summary.name === name)!.summary;

  it('costs at most 2.1x the oracle', () => {
    expect(by('governor').costVsOracle).toBeLessThanOrEqual(2.1);
  });

  it('holds 99.5 % of minutes within the SLO', () => {
    expect(by('governor').violationRatio).toBeLessThanOrEqual(0.005);
  });

  it('takes fewer than a third of the scaling actions of AWS target tracking', () => {
    expect(3 * by('governor').scalingActions).toBeLessThan(by('aws-target-tracking').scalingActions);
  });
});

// The hour of the Azure code trace: its burst at minute 14 is shorter than a cold start, so
// nothing that scales holds 99.5 % of its minutes; the first line says what a fixed fleet costs.
describe('azure_llm_2023_code_per_minute.csv: what meeting the objective costs when nothing that scales can', () => {
  it('names the fleet held at its peak and its cost in the verdict', () => {
    const result = run('azure_llm_2023_code_per_minute.csv');
    const peak = result.policies.find((p) => p.summary.name === 'static-peak')!.summary;
    expect(result.slo?.best).toBeNull();
    expect(result.slo?.verdict?.outcome).toBe('loss');
    expect(result.slo?.verdict?.sentence).toContain(
      `; a fleet held at its peak (40 instances) meets it at ${peak.costVsOracle.toFixed(2)}x.`,
    );
  });
});
