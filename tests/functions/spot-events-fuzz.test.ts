/**
 * Issue 18, item 2: 10,000 fuzzed SQS batches through the spot-events run (createSpotEventsHandler)
 * on its real Auto Scaling adapter (shared/aws/spot-events.ts) over an in-memory client, with
 * in-memory SPOT and PLAN stores. Batches mix valid warnings, retirements, rebalances and failed
 * launches with prototype keys ("constructor", "__proto__", ...), huge fields, bodies that are
 * not JSON, foreign events and poison records (an instance AWS refuses to detach).
 *
 * Outcomes: the run never throws; every valid record is handled once (a warned instance detached
 * exactly once, a retiring one recorded retiring once with the group raised by one for it, its
 * message not returned); every invalid or poison record is returned alone
 * (batchItemFailures holds exactly those); no log field is longer than a clipped one.
 * Seeded (fast-check), so a failure replays; about 3 s on one core.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SpotEventsPorts } from '#functions/spot-events/ports.ts';
import { createSpotEventsHandler } from '#functions/spot-events/run.ts';
import type { SpotEventsTelemetry } from '#functions/spot-events/types.ts';
import { groupWrites } from '#shared/aws/group-capacity-writes.ts';
import { groupRetirements } from '#shared/aws/group-retirements.ts';
import { spotGroups } from '#shared/aws/spot-events.ts';
import {
  ACCOUNT,
  GROUP,
  KILL_NAME,
  POLICY_NAME,
  spotEventsConfig,
  spotPolicy,
  withBudget,
} from '../interruptions/aws-fakes.ts';
import { fixture } from '../interruptions/harness.ts';
import { memoryMixItems, planState } from '../interruptions/memory-stores.ts';

const NOW = Date.parse('2026-01-05T12:03:30Z');
const BATCHES = Number(process.env.FUZZ_BATCHES ?? 10_000);
const WARNING = JSON.parse(fixture('spot-interruption-warning'));
const HEALTH = JSON.parse(fixture('health-retirement'));
const LAUNCH = JSON.parse(fixture('launch-unsuccessful-no-spot'));
const REBALANCE = JSON.parse(fixture('rebalance-recommendation'));
const PROTO_KEYS = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'prototype'];

const id = (n: number) => `i-${n.toString(16).padStart(17, '0')}`;
/** Instances 0x1000 and up are poison: AWS refuses to detach them (ValidationError). */
const POISON = 0x1000;

type Kind = 'valid' | 'ignored' | 'invalid' | 'poison';
interface Rec {
  kind: Kind;
  body: string;
  /** Instances a valid record asks to replace. */
  replaces: string[];
}

const warning = (n: number, over: Record<string, unknown> = {}) =>
  JSON.stringify({
    ...WARNING,
    id: `w-${n}`,
    detail: { 'instance-id': id(n), 'instance-action': 'terminate' },
    ...over,
  });

// Mostly a few KB, now and then 60 KB: a 400 KB field costs the same path, only slower.
const huge = fc
  .oneof(
    { arbitrary: fc.constant(300), weight: 8 },
    { arbitrary: fc.constant(5_000), weight: 3 },
    { arbitrary: fc.constant(60_000), weight: 1 },
  )
  .map((n) => 'x'.repeat(n));

const recordArb: fc.Arbitrary<Rec> = fc.oneof(
  fc
    .integer({ min: 1, max: 40 })
    .map((n) => ({ kind: 'valid' as const, body: warning(n), replaces: [id(n)] })),
  fc.tuple(fc.integer({ min: 41, max: 80 }), fc.integer({ min: 81, max: 120 })).map(([a, b]) => ({
    kind: 'valid' as const,
    body: JSON.stringify({
      ...HEALTH,
      detail: { ...HEALTH.detail, affectedEntities: [{ entityValue: id(a) }, { entityValue: id(b) }] },
    }),
    replaces: [id(a), id(b)],
  })),
  fc.integer({ min: 1, max: 40 }).map((n) => ({
    kind: 'valid' as const,
    body: JSON.stringify({ ...REBALANCE, detail: { 'instance-id': id(n) } }),
    replaces: [],
  })),
  huge.map((text) => ({
    kind: 'valid' as const,
    body: JSON.stringify({
      ...LAUNCH,
      detail: { ...LAUNCH.detail, StatusMessage: `${LAUNCH.detail.StatusMessage} ${text}` },
    }),
    replaces: [],
  })),
  fc
    .integer({ min: 1, max: 40 })
    .map((n) => ({ kind: 'ignored' as const, body: warning(n, { account: '999999999999' }), replaces: [] })),
  fc
    .integer({ min: 1, max: 40 })
    .map((n) => ({ kind: 'ignored' as const, body: warning(n, { region: 'eu-west-1' }), replaces: [] })),
  fc
    .integer({ min: 0, max: 20 })
    .map((n) => ({ kind: 'poison' as const, body: warning(POISON + n), replaces: [] })),
  fc.constantFrom(...PROTO_KEYS).map((k) => ({
    kind: 'invalid' as const,
    body: JSON.stringify({ ...WARNING, 'detail-type': k }),
    replaces: [],
  })),
  fc.constantFrom(...PROTO_KEYS).map((k) => ({
    kind: 'invalid' as const,
    body: `{"${k}":{"detail-type":"${WARNING['detail-type']}"},"detail":{"${k}":1}}`,
    replaces: [],
  })),
  fc.tuple(fc.constantFrom('region', 'id', 'account', 'time', 'source'), huge).map(([field, text]) => ({
    kind: 'invalid' as const,
    body: warning(1, { [field]: text }),
    replaces: [],
  })),
  fc.string({ maxLength: 40 }).map((s) => ({ kind: 'invalid' as const, body: `{${s}`, replaces: [] })),
  fc
    .jsonValue({ maxDepth: 3 })
    .map((v) => ({ kind: 'invalid' as const, body: JSON.stringify(v) ?? 'null', replaces: [] })),
);

/**
 * The in-memory Auto Scaling client: instances 1-120 and the poison ones are in the group, whose
 * desired capacity SetDesiredCapacity sets (`group.desired`; MaxSize far above it).
 */
function autoScaling(
  members: Map<string, string>,
  detachedCount: Map<string, number>,
  group: { desired: number },
) {
  return {
    async send(command: { constructor: { name: string }; input: Record<string, unknown> }) {
      const input = command.input as { InstanceIds: string[]; AutoScalingGroupName?: string };
      if (command.constructor.name === 'DescribeAutoScalingInstancesCommand')
        return {
          AutoScalingInstances: input.InstanceIds.filter((i) => members.has(i)).map((i) => ({
            InstanceId: i,
            AutoScalingGroupName: members.get(i),
            LifecycleState: 'InService',
          })),
        };
      if (command.constructor.name === 'DescribeAutoScalingGroupsCommand')
        return {
          AutoScalingGroups: [
            { AutoScalingGroupName: GROUP, DesiredCapacity: group.desired, MaxSize: 100_000, Instances: [] },
          ],
        };
      if (command.constructor.name === 'SetDesiredCapacityCommand') {
        group.desired = (command.input as { DesiredCapacity: number }).DesiredCapacity;
        return {};
      }
      if (command.constructor.name === 'DetachInstancesCommand') {
        if (input.InstanceIds.some((i) => Number.parseInt(i.slice(2), 16) >= POISON))
          throw Object.assign(new Error('The instance is not part of the group.'), {
            name: 'ValidationError',
          });
        for (const i of input.InstanceIds) {
          members.delete(i);
          detachedCount.set(i, (detachedCount.get(i) ?? 0) + 1);
        }
        return {};
      }
      throw new Error(`unexpected ${command.constructor.name}`);
    },
  };
}

const MEMBERS = new Map<string, string>([
  ...Array.from({ length: 120 }, (_, n) => [id(n + 1), GROUP] as [string, string]),
  ...Array.from({ length: 21 }, (_, n) => [id(POISON + n), GROUP] as [string, string]),
]);

const config = spotEventsConfig();
// maxCapacity 40: a shortage re-plans (replanFor), and the planner searches up to maxCapacity.
// A budget no batch reaches: this test is about records, tests/interruptions/retire.test.ts about the budget.
const POLICY = withBudget(spotPolicy(40), 1000);
const PLAN = planState(POLICY, NOW);

describe('10,000 fuzzed SQS batches', () => {
  it('never fail the batch: valid records are handled once, invalid and poison ones come back alone', async () => {
    let longest = 0;
    const measure = (x: unknown) => {
      for (const v of Object.values(x as Record<string, unknown>))
        longest = Math.max(longest, JSON.stringify(v ?? null).length);
    };
    const telemetry: SpotEventsTelemetry = {
      info: (m, a) => measure({ m, ...a }),
      error: (m, a) => measure({ m, ...a }),
      decision: (r) => measure(r),
      count: () => {},
    };
    let members = new Map<string, string>();
    let detached = new Map<string, number>();
    const group = { desired: 0 };
    const client = () => autoScaling(members, detached, group) as never;
    let items = memoryMixItems();
    const ports: SpotEventsPorts = {
      parameters: {
        get: async (n) => (n === POLICY_NAME ? JSON.stringify(POLICY) : n === KILL_NAME ? 'off' : null),
        under: async () => [],
      },
      groups: spotGroups(client),
      capacity: groupWrites(client),
      retirements: groupRetirements(client),
      mixedInstances: {
        current: async () => {
          throw new Error('not used');
        },
        apply: async (_r, _g, plan) => ({ status: 'applied', policy: plan.mixedInstancesPolicy as never }),
      },
      items: {
        get: (t) => items.port.get(t),
        getMany: (t) => items.port.getMany(t),
        put: (t, x, v) => items.port.put(t, x, v),
      },
      legacySpot: { getMany: async () => new Map() },
    };
    const run = createSpotEventsHandler({ config, ports, telemetry });
    const batchArb = fc.array(recordArb, { minLength: 1, maxLength: 10 });
    let batches = 0;
    let valid = 0;
    let returned = 0;
    await fc.assert(
      fc.asyncProperty(batchArb, async (recs) => {
        batches++;
        members = new Map(MEMBERS);
        detached = new Map();
        group.desired = MEMBERS.size;
        items = memoryMixItems({ plan: PLAN });
        const batch = { Records: recs.map((r, i) => ({ messageId: `m${i}`, body: r.body })) };
        const out = await run(batch, NOW, { account: ACCOUNT });
        const back = out.batchItemFailures.map((f) => f.itemIdentifier);
        const expected = recs.flatMap((r, i) =>
          r.kind === 'invalid' || r.kind === 'poison' ? [`m${i}`] : [],
        );
        if (back.join() !== expected.join()) expect(back).toEqual(expected);
        const wanted = new Set(recs.flatMap((r) => r.replaces));
        const retiring = Object.keys((await items.port.get('gpu'))?.spot?.retiring ?? {});
        const once = [...wanted].every((i) => (detached.get(i) ?? 0) + (retiring.includes(i) ? 1 : 0) === 1);
        const onlyWanted = [...detached.keys(), ...retiring].every((i) => wanted.has(i));
        const raised = group.desired - MEMBERS.size === retiring.length;
        if (!once || !onlyWanted || !raised)
          expect({ detached: [...detached], retiring, wanted: [...wanted], desired: group.desired }).toBe(
            'each once',
          );
        valid += recs.filter((r) => r.kind === 'valid').length;
        returned += back.length;
      }),
      { numRuns: BATCHES, seed: 18_2, endOnFailure: true },
    );
    expect(batches).toBe(BATCHES);
    expect(valid).toBeGreaterThan(15_000);
    expect(returned).toBeGreaterThan(5_000);
    // Every event-derived field clipped (shared/events/bounded.ts: 200 characters and a marker).
    expect(longest).toBeLessThan(1_500);
  }, 120_000);
});
