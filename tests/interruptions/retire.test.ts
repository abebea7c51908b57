/**
 * The Health disruption budget (issue 18: one EC2 Health event could detach a whole group at
 * once): judgeHealthBudget and planSurge as tables, then a timeline through the spot-events
 * run, the group read back before each delivery of the same Health event and the mix function's
 * terminations played in between.
 */
import { describe, expect, it } from 'vitest';
import { createSpotEventsHandler } from '#functions/spot-events/run.ts';
import type { SpotEvent } from '#shared/interruptions/events.ts';
import { judgeHealthBudget, planSurge } from '#shared/interruptions/retire.ts';
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

  it('counts the retirements still in flight: 2 retiring of a whole group, budget 2: nothing more', () => {
    const inFlight = [instance(8), instance(9)];
    expect(judgeHealthBudget(five, 2, { desired: 12, inService: 12 }, inFlight).handled).toEqual([]);
    expect(ids(judgeHealthBudget(five, 3, { desired: 12, inService: 10 }, inFlight).handled)).toEqual([
      instance(1),
    ]);
  });

  it('lets an event of an instance already retiring through, taking no room: it is a duplicate downstream', () => {
    const j = judgeHealthBudget(five, 3, { desired: 12, inService: 12 }, [instance(1), instance(2)]);
    expect(ids(j.handled)).toEqual([instance(1), instance(2), instance(3)]);
  });

  it('never holds an interruption warning (two minutes is all AWS gives)', () => {
    const j = judgeHealthBudget([warning(7), ...five], 2, { desired: 10, inService: 5 });
    expect(j.handled.map((e) => e.kind)).toEqual(['interruption']);
  });
});

describe('planSurge', () => {
  it.each([
    { case: 'room for both: both kept, desired + 2', desired: 10, maxSize: 20, surged: 2, now: 0, to: 12 },
    {
      case: 'one below MaxSize: one kept, one terminated at once',
      desired: 9,
      maxSize: 10,
      surged: 1,
      now: 1,
      to: 10,
    },
    {
      case: 'at MaxSize: both terminated at once, desired kept',
      desired: 10,
      maxSize: 10,
      surged: 0,
      now: 2,
      to: 10,
    },
  ])('$case', ({ desired, maxSize, surged, now, to }) => {
    const p = planSurge([instance(2), instance(1), instance(1)], { desired, maxSize });
    expect(p.surged).toEqual([instance(1), instance(2)].slice(0, surged));
    expect(p.terminateNow).toEqual([instance(1), instance(2)].slice(surged));
    expect(p.terminateNow).toHaveLength(now);
    expect(p.desired).toBe(to);
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
  it('is worked through 2 at a time: the group raised by 2, the next 2 only once the mix function has terminated those; its message comes back until done', async () => {
    const NOW = Date.parse('2026-01-05T12:03:30Z');
    const policy = withBudget(spotPolicy(40), 2);
    const members = new Map(
      Array.from({ length: 10 }, (_, n) => [instance(n + 1), GROUP] as [string, string]),
    );
    const g = { desired: 10, inService: 10, maxSize: 20 };
    const raised: number[] = [];
    const items = memoryMixItems({ plan: planState(policy, NOW) });
    const run = createSpotEventsHandler({
      config: spotEventsConfig(),
      ports: {
        parameters: {
          get: async (n) => (n === POLICY_NAME ? JSON.stringify(policy) : n === KILL_NAME ? 'off' : null),
          under: async () => [],
        },
        groups: {
          health: async () => ({ ...g }),
          groupsOf: async (_r, list) => new Map(list.filter((i) => members.has(i)).map((i) => [i, GROUP])),
          replace: async () => {
            throw new Error('a retirement is never detached');
          },
        },
        capacity: {
          setDesiredCapacity: async (_r, _n, desired) => {
            raised.push(desired);
            g.desired = desired;
            return { status: 'applied' };
          },
        },
        retirements: {
          terminate: async () => {
            throw new Error('not at MaxSize: nothing terminated at once');
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
    const retiring = async () => Object.keys((await items.port.get('gpu'))!.spot!.retiring).sort();
    /** What the mix function does once the replacements serve: terminate, decrementing, and clear. */
    const mixTerminates = async () => {
      const item = (await items.port.get('gpu'))!;
      for (const id of Object.keys(item.spot!.retiring)) members.delete(id);
      g.desired -= Object.keys(item.spot!.retiring).length;
      g.inService = g.desired;
      await items.port.put('gpu', { ...item, spot: { ...item.spot!, retiring: {} } }, item.version);
    };

    expect(await deliver()).toEqual([{ itemIdentifier: 'h' }]);
    expect(raised).toEqual([12]);
    expect(await retiring()).toEqual([instance(1), instance(2)]);
    // The replacements boot: 10 InService of 12, 2 retiring: no room.
    expect(await deliver()).toEqual([{ itemIdentifier: 'h' }]);
    // They serve: 12 of 12, but the 2 are still retiring (not yet terminated): no room either.
    g.inService = 12;
    expect(await deliver()).toEqual([{ itemIdentifier: 'h' }]);
    expect(raised).toEqual([12]);
    await mixTerminates();
    expect(await deliver()).toEqual([{ itemIdentifier: 'h' }]);
    expect(raised).toEqual([12, 12]);
    expect(await retiring()).toEqual([instance(3), instance(4)]);
    g.inService = 12;
    await mixTerminates();
    expect(await deliver()).toEqual([]);
    expect(raised).toEqual([12, 12, 11]);
    expect(await retiring()).toEqual([instance(5)]);
  });
});
