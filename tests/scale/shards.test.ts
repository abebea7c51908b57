/**
 * Shards (shared/events/shards.ts): several evaluator schedules, each ticking with
 * detail.shard, share the policy's targets: every target in exactly one shard, the same one on
 * every tick, and a shard's tick makes the calls of the formula for its targets only.
 */
import { describe, expect, it } from 'vitest';
import { inShard, shardOf, shardOfTick } from '#shared/events/shards.ts';
import { tickReads } from '#shared/invocation/tick-calls.ts';
import { policyOrThrow } from '#shared/policy/load.ts';
import { countCalls } from './count.ts';
import { world, worldPolicy } from './world.ts';

const NOW = Date.parse('2025-06-02T12:00:30Z');
const ids = Array.from({ length: 1000 }, (_, i) => ({ id: `target-${i}` }));

describe('which shard a target is in', () => {
  it.each([
    { id: 'chat-llm', shard: 1 },
    { id: 'embedder', shard: 1 },
    { id: 'batch-gpu', shard: 0 },
    { id: 'v0', shard: 3 },
    { id: 'v1', shard: 0 },
  ])('$id is in shard $shard of 4, on every tick and in every container', ({ id, shard }) => {
    expect(shardOf(id, 4)).toBe(shard);
  });

  it.each([2, 4, 7])(
    'with %i shards, 1,000 targets are each in exactly one, none with under half or over 1.5x its share',
    (count) => {
      const shards = Array.from({ length: count }, (_, index) => inShard(ids, { index, count }));
      expect(
        shards
          .flat()
          .map((t) => t.id)
          .sort(),
      ).toEqual(ids.map((t) => t.id).sort());
      for (const s of shards) {
        expect(s.length).toBeGreaterThan(1000 / count / 2);
        expect(s.length).toBeLessThan((1000 / count) * 1.5);
      }
    },
  );

  it.each([
    { case: 'a tick without detail', raw: { id: 'x' }, out: { shard: null } },
    { case: 'a tick with an empty detail', raw: { detail: {} }, out: { shard: null } },
    {
      case: 'shard 2 of 4',
      raw: { detail: { shard: { index: 2, count: 4 } } },
      out: { shard: { index: 2, count: 4 } },
    },
    {
      case: 'an index at the count',
      raw: { detail: { shard: { index: 4, count: 4 } } },
      out: { problem: 'event field detail.shard.index is invalid: index must be below count' },
    },
    {
      case: 'no shards',
      raw: { detail: { shard: { index: 0, count: 0 } } },
      out: { problem: 'event field detail.shard.count is invalid: Too small: expected number to be >=1' },
    },
    {
      case: 'an index as text',
      raw: { detail: { shard: { index: '1', count: 4 } } },
      out: {
        problem: 'event field detail.shard.index is invalid: Invalid input: expected number, received string',
      },
    },
  ])('$case', ({ raw, out }) => {
    expect(shardOfTick(raw)).toEqual(out);
  });
});

describe('a sharded deployment of 500 targets', () => {
  const COUNT = 4;
  const spec = { variants: 500, conflictEvery: 25 };
  const targets = policyOrThrow(JSON.parse(worldPolicy(spec))).targets;
  const shardTick = (index: number) => ({
    'detail-type': 'Scheduled Event',
    source: 'aws.scheduler',
    account: '123456789012',
    region: 'us-east-1',
    id: `tick-shard-${index}`,
    time: '2025-06-02T12:00:00Z',
    detail: { shard: { index, count: COUNT } },
  });

  it('4 shard ticks evaluate each target once, each with the calls of the formula for its own targets', async () => {
    const w = world(spec);
    const seen: string[] = [];
    for (let index = 0; index < COUNT; index++) {
      const report = await w.h.evaluate(shardTick(index), NOW);
      const mine = inShard(targets, { index, count: COUNT });
      expect(report.records.map((r) => r.targetId)).toEqual(mine.map((t) => t.id));
      seen.push(...report.records.map((r) => r.targetId));
      const registered = mine.length;
      const policies = mine.filter((t) => Number(t.id.slice(1)) % 25 === 0).length;
      const reads = tickReads(
        mine,
        () => ({ activeResources: registered, sageMakerPolicies: w.conflictingVariants, groupPolicies: 0 }),
        { policyCached: index > 0 },
      );
      expect(policies).toBeGreaterThan(0);
      expect(countCalls(w.h.takeCalls())).toEqual({
        ...reads,
        'DynamoDB.Update': mine.length,
        'DynamoDB.Put': mine.length,
      });
    }
    expect(seen.sort()).toEqual(targets.map((t) => t.id).sort());
  });

  it('a tick naming a shard badly fails before any AWS call, naming the field', async () => {
    const w = world(spec);
    const raw = { ...shardTick(0), detail: { shard: { index: 5, count: COUNT } } };
    await expect(w.h.evaluate(raw, NOW)).rejects.toThrow(
      'event field detail.shard.index is invalid: index must be below count',
    );
    expect(w.h.takeCalls()).toEqual([]);
  });

  it('a shard that holds none of the targets evaluates nothing and says so', async () => {
    const w = world({ variants: 1 }); // v0 is in shard 3 of 4
    const report = await w.h.evaluate({ ...shardTick(0), id: 'empty-shard' }, NOW);
    expect(report.records).toEqual([]);
    expect(w.h.takeCalls()).toEqual(['SSM.GetParameter', 'SSM.GetParametersByPath']); // the policy and its parts only, no kill switch or reads
    expect(w.h.telemetry.lines).toContainEqual({
      level: 'info',
      message: "shard 0 of 4 holds none of the policy's targets: nothing to evaluate",
    });
  });
});
