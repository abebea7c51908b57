/**
 * The evaluate function reading a policy in parts: the main parameter and the parameters under
 * /governor/policy/parts/, through the harness (real adapters over aws-sdk-client-mock). A
 * 1,000-target policy published as `governor policy split` writes it is read in one
 * GetParameter and 12 GetParametersByPath pages per cache refresh; a bad part fails the whole
 * load, naming the part, and nothing is acted on.
 */
import { describe, expect, it } from 'vitest';
import { PolicyUnavailableError } from '#functions/evaluate/policy-source.ts';
import { inShard } from '#shared/events/shards.ts';
import { parsePolicyText } from '#shared/policy/load.ts';
import { splitPolicy } from '#shared/policy-store/split.ts';
import { exampleFleet } from '../control/policy-fleet.ts';
import { CONFIG, eventFile, harness } from './harness.ts';

const NOW = Date.parse('2025-06-02T12:00:30Z');
const MAIN = CONFIG.POLICY_PARAMETER_NAME;
const PARTS = `${MAIN}/parts`;
const tick = (id: string, shard?: { index: number; count: number }) => ({
  ...(eventFile('scheduler-tick') as object),
  id,
  time: '2025-06-02T12:00:00Z',
  ...(shard ? { detail: { shard } } : {}),
});

/** The harness with a 1,000-target policy split into a main parameter and parts. */
function published() {
  const h = harness();
  const fleet = exampleFleet(1000);
  const result = splitPolicy(fleet, 8192);
  if (!result.ok) throw new Error(result.problem);
  h.parameters.set(CONFIG.POLICY_PARAMETER_NAME, result.split.main);
  result.split.parts.forEach((text, i) => {
    h.parameters.set(`${PARTS}/${String(i + 1).padStart(3, '0')}`, text);
  });
  const single = parsePolicyText(JSON.stringify(fleet));
  if (!single.ok) throw new Error('the fleet is not a valid policy');
  return { h, policy: single.policy, parts: result.split.parts.length };
}

describe('the evaluate function reading a policy in parts', () => {
  it('reads 1,000 targets from the main parameter and 112 parts in 1 + 12 calls, and evaluates its shard of them', async () => {
    const { h, policy, parts } = published();
    expect(parts).toBe(112);
    const shard = { index: 3, count: 64 };
    const report = await h.evaluate(tick('parts-1', shard), NOW);
    const mine = inShard(policy.targets, shard).map((t) => t.id);
    expect(mine.length).toBeGreaterThan(0);
    expect(report.records.map((r) => r.targetId).sort()).toEqual([...mine].sort());
    expect(h.telemetry.policyFailures).toEqual([]);
    const calls = h.takeCalls();
    expect(calls.filter((c) => c === 'SSM.GetParametersByPath')).toHaveLength(12); // ceil(112 / 10)
    expect(calls.filter((c) => c === 'SSM.GetParameter')).toHaveLength(2); // the policy and the kill switch
  });

  it('reads the parts again only when the policy cache expires, with the main parameter', async () => {
    const { h } = published();
    await h.evaluate(tick('a', { index: 0, count: 64 }), NOW);
    h.takeCalls();
    await h.evaluate(tick('b', { index: 0, count: 64 }), NOW + 30_000);
    expect(h.takeCalls().filter((c) => c.startsWith('SSM.'))).toEqual(['SSM.GetParameter']); // the kill switch
  });

  it('with no parts, adds one GetParametersByPath that finds none', async () => {
    const h = harness();
    await h.evaluate(tick('no-parts'), NOW);
    expect(h.takeCalls().slice(0, 3)).toEqual([
      'SSM.GetParameter',
      'SSM.GetParametersByPath',
      'SSM.GetParameter',
    ]);
  });

  it('a bad part at cold start fails the invocation with one line naming the part, and nothing is acted on', async () => {
    const { h } = published();
    h.parameters.set(`${PARTS}/050`, '{"version":1,"targets":[{"id":"chat-llm-0001"}]}');
    await expect(h.evaluate(tick('bad-part'), NOW)).rejects.toBeInstanceOf(PolicyUnavailableError);
    expect(h.telemetry.policyFailures).toHaveLength(1);
    const lines = h.telemetry.policyFailures[0]!;
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line.startsWith(`${PARTS}/050: targets[0]`)).toBe(true);
    expect(lines).toContain(
      `${PARTS}/050: targets[0].kind is missing or unknown: use one of sagemaker-variant, sagemaker-inference-component, ec2-asg`,
    );
    expect(h.takeCalls().filter((c) => !c.startsWith('SSM.'))).toEqual([]);
  });

  it('a duplicate id across parts names both, and a warm container keeps the last good policy', async () => {
    const { h } = published();
    await h.evaluate(tick('good', { index: 0, count: 64 }), NOW);
    const copy = h.parameters.get(`${PARTS}/001`)!;
    h.parameters.set(`${PARTS}/113`, copy); // a part published twice under two names
    const report = await h.evaluate(tick('dup', { index: 0, count: 64 }), NOW + 61_000);
    expect(report.records.length).toBeGreaterThan(0); // the last good policy
    expect(h.telemetry.policyFailures).toHaveLength(1);
    const [count, duplicate] = h.telemetry.policyFailures[0]!;
    expect(count).toBe(
      `${MAIN}: parts.count is 112 but 113 parts were found: a part is left over from another split; publish the policy again with governor policy split and the commands it prints`,
    );
    expect(duplicate).toBe(
      `${PARTS}/113: targets[0].id "chat-llm-0000" is already used by ${PARTS}/001 targets[0]: ids must be unique`,
    );
  });
});
