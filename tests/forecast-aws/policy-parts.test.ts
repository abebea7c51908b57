/**
 * The forecast function reading a policy in parts, as the evaluate function does
 * (shared/policy-store/read.ts): the main parameter's targets and every part's, merged and
 * validated as one; a bad part fails the run before any metric is read, naming the part.
 */
import { describe, expect, it } from 'vitest';
import { splitPolicy } from '#shared/policy-store/split.ts';
import { exampleFleet } from '../control/policy-fleet.ts';
import { CONFIG, NOW, POLICY, rig, sent, tickAt } from './fakes.ts';

const PARTS = `${CONFIG.POLICY_PARAMETER_NAME}/parts`;

/**
 * 999 targets without a forecast, noise or burst floor (read, not forecast) in parts, beside the
 * rig's chat-llm: without instanceCapacity their burst floor cannot stand, so nothing is measured.
 */
function withParts() {
  const r = rig(POLICY());
  const fleet = exampleFleet(999);
  for (const t of fleet.targets) {
    delete t.forecast;
    delete t.noise;
    delete t.instanceCapacity;
  }
  const result = splitPolicy(fleet, 8192);
  if (!result.ok) throw new Error(result.problem);
  result.split.parts.forEach((text, i) => {
    r.world.parameters.set(`${PARTS}/${String(i + 1).padStart(3, '0')}`, text);
  });
  return { r, parts: result.split.parts.length };
}

const ssmCalls = (r: ReturnType<typeof rig>) =>
  r.mocks.ssm.calls().map((c) => (c.args[0].constructor as { name: string }).name);

describe('the forecast function reading a policy in parts', () => {
  it('merges 1,000 targets from the main parameter and its parts, and forecasts the one that asks', async () => {
    const { r, parts } = withParts();
    await r.run(tickAt(NOW), NOW);
    expect(r.telemetry.outcomes.map((o) => o.targetId)).toEqual(['chat-llm']);
    expect(r.telemetry.lines.filter((l) => l.level === 'error')).toEqual([]);
    expect(ssmCalls(r).filter((c) => c === 'GetParametersByPathCommand')).toHaveLength(Math.ceil(parts / 10));
  });

  it('with no parts, reads the main parameter and one empty page', async () => {
    const r = rig(POLICY());
    await r.run(tickAt(NOW), NOW);
    expect(ssmCalls(r).filter((c) => c === 'GetParametersByPathCommand')).toHaveLength(1);
  });

  it('a bad part fails the run before any metric is read, one line naming the part', async () => {
    const { r } = withParts();
    r.world.parameters.set(
      `${PARTS}/007`,
      'version: 1\ntargets: [{id: chat-llm, kind: sagemaker-variant}]\n',
    );
    await expect(r.run(tickAt(NOW), NOW)).rejects.toThrow(
      /^no valid policy: \/governor\/policy\/parts\/007: /,
    );
    const errors = r.telemetry.lines.filter((l) => l.level === 'error').map((l) => l.message);
    expect(errors.length).toBeGreaterThan(0);
    for (const line of errors) expect(line.startsWith(`policy problem: ${PARTS}/007: targets[0]`)).toBe(true);
    expect(sent(r.mocks.cw!)).toEqual([]);
  });
});
