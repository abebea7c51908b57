/**
 * The Health disruption budget (issue 18: one EC2 Health event could detach a whole group at
 * once): judgeHealthBudget as a table, then a timeline through the spot-events run, the group
 * read back before each delivery of the same Health event.
 */
import { describe, expect, it } from 'vitest';
import { createSpotEventsHandler } from '#functions/spot-events/run.ts';
import type { SpotEvent } from '#shared/interruptions/events.ts';
import { judgeHealthBudget } from '#shared/interruptions/retire.ts';
import { resolveMixPolicy } from '#shared/mix/types.ts';
import { parsePolicyText } from '#shared/policy/load.ts';
import {
  ACCOUNT,
  GROUP,
  KILL_NAME,
  POLICY_NAME,
  spotEventsConfig,
  spotPolicy,
  withBudget,
} from './aws-fakes.ts';
import { fixture, instance, retirement, warning } from './harness.ts';
import { memoryMixItems, planState } from './memory-stores.ts';

const five = [1, 2, 3, 4, 5].map((n) => retirement(n));
const ids = (events: SpotEvent[]) => events.map((e) => (e as { instanceId: string }).instanceId);

describe('judgeHealthBudget', () => {
  it.each([
    {
      case: 'a whole group: the budget, lowest ids first',
      group: { desired: 10, inService: 10 },
      handled: [1, 2],
    },
    { case: 'two short (replacements booting): nothing', group: { desired: 10, inService: 8 }, handled: [] },
    { case: 'one short: one', group: { desired: 10, inService: 9 }, handled: [1] },
    { case: 'a group that cannot be read: nothing on a guess', group: null, handled: [] },
  ])('$case', ({ group, handled }) => {
    const j = judgeHealthBudget(five, 2, group);
    expect(ids(j.handled)).toEqual(handled.map(instance));
    expect(j.held).toHaveLength(5 - handled.length);
  });

  it('never holds an interruption warning (two minutes is all AWS gives)', () => {
    const j = judgeHealthBudget([warning(7), ...five], 2, { desired: 10, inService: 5 });
    expect(j.handled.map((e) => e.kind)).toEqual(['interruption']);
  });
});

describe('capacityMix.interruptions.healthDisruptionBudget', () => {
  it.each([
    { budget: undefined, ok: true, resolved: 2 },
    { budget: 5, ok: true, resolved: 5 },
    { budget: 0, ok: false, resolved: null },
    { budget: 2.5, ok: false, resolved: null },
  ])('$budget: valid $ok', ({ budget, ok, resolved }) => {
    const base = spotPolicy(40);
    const p = budget === undefined ? base : withBudget(base, budget);
    const parsed = parsePolicyText(JSON.stringify(p));
    expect(parsed.ok).toBe(ok);
    if (parsed.ok)
      expect(resolveMixPolicy(parsed.policy.targets[0]!)!.mix.interruptions.healthDisruptionBudget).toBe(
        resolved,
      );
    else expect(parsed.problems.map((x) => x.path).join('\n')).toMatch(/healthDisruptionBudget/);
  });
});

describe('a Health event naming 5 instances of a group of 10, budget 2', () => {
  it('is worked through 2 at a time, each pair once the group is whole again; its message comes back until done', async () => {
    const NOW = Date.parse('2026-01-05T12:03:30Z');
    const policy = withBudget(spotPolicy(40), 2);
    const members = new Map(
      Array.from({ length: 10 }, (_, n) => [instance(n + 1), GROUP] as [string, string]),
    );
    let inService = 10;
    const detached: string[][] = [];
    const items = memoryMixItems({ plan: planState(policy, NOW) });
    const run = createSpotEventsHandler({
      config: spotEventsConfig(),
      ports: {
        parameters: {
          get: async (n) => (n === POLICY_NAME ? JSON.stringify(policy) : n === KILL_NAME ? 'off' : null),
          under: async () => [],
        },
        groups: {
          health: async () => ({ desired: 10, inService }),
          groupsOf: async (_r, list) => new Map(list.filter((i) => members.has(i)).map((i) => [i, GROUP])),
          replace: async (_r, _g, list) => {
            detached.push([...list]);
            for (const i of list) members.delete(i);
            inService -= list.length;
            return { detached: [...list], failed: [] };
          },
        },
        mixedInstances: {
          current: async () => {
            throw new Error('not used');
          },
          apply: async () => ({ status: 'unchanged' }),
        },
        items: items.port,
        legacySpot: { getMany: async () => new Map() },
      },
      telemetry: { info: () => {}, error: () => {}, decision: () => {}, count: () => {} },
    });
    const health = JSON.parse(fixture('health-retirement'));
    health.detail.affectedEntities = [1, 2, 3, 4, 5].map((n) => ({ entityValue: instance(n) }));
    const deliver = async () =>
      (await run({ Records: [{ messageId: 'h', body: JSON.stringify(health) }] }, NOW, { account: ACCOUNT }))
        .batchItemFailures;

    expect(await deliver()).toEqual([{ itemIdentifier: 'h' }]);
    expect(detached).toEqual([[instance(1), instance(2)]]);
    // The replacements boot: 8 InService of 10, no room.
    expect(await deliver()).toEqual([{ itemIdentifier: 'h' }]);
    expect(detached).toHaveLength(1);
    inService = 10;
    expect(await deliver()).toEqual([{ itemIdentifier: 'h' }]);
    expect(detached.at(-1)).toEqual([instance(3), instance(4)]);
    inService = 10;
    expect(await deliver()).toEqual([]);
    expect(detached.at(-1)).toEqual([instance(5)]);
    expect(detached.flat()).toEqual([1, 2, 3, 4, 5].map(instance));
  });
});
