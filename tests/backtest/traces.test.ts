import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runBacktest } from '#shared/backtest/run.ts';
import { DEFAULT_SCENARIO } from '#shared/backtest/scenario.ts';
import { parseTrace } from '#shared/backtest/trace.ts';
import { parsePolicyText } from '#shared/policy/load.ts';

const policy = parsePolicyText(readFileSync('examples/policy.yaml', 'utf8'));
if (!policy.ok) throw new Error('examples/policy.yaml is invalid');
const target = policy.policy.targets[0]!;

const run = (file: string) =>
  runBacktest({
    trace: parseTrace(readFileSync(`traces/${file}`, 'utf8'), file),
    target,
    options: DEFAULT_SCENARIO,
  });

// The reference scenario's deterministic figures: oracle = sum of ceil(r(m) x 40 / max(r) - 1e-9)
// (at least 1); static peak = 40 x minutes. A change here changes every published ratio.
describe.each([
  { file: 'nasa_http_1995_jul_per_minute.csv', minutes: 39_693, oracle: 206_523 },
  { file: 'azure_llm_2023_code_per_minute.csv', minutes: 58, oracle: 639 },
  { file: 'azure_llm_2023_code_per_second.csv', minutes: 57, oracle: 622 },
  { file: 'azure_llm_2023_conv_per_minute.csv', minutes: 60, oracle: 1_576 },
  { file: 'azure_llm_2023_conv_per_second.csv', minutes: 59, oracle: 1_575 },
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

  it('the example policy costs less than AWS target tracking and breaks the SLO no more often', () => {
    const governor = by('governor');
    const aws = by('aws-target-tracking');
    expect(governor.instanceMinutes).toBeLessThan(aws.instanceMinutes);
    expect(governor.violationMinutes).toBeLessThanOrEqual(aws.violationMinutes);
  });
});
