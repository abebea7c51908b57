/**
 * The calls of one tick at scale, counted: every SDK call the evaluator makes for 50 and 500
 * targets in one region (aws-sdk-client-mock through the evaluate harness) equals the formula
 * of shared/invocation/tick-calls.ts. Only DescribeEndpoint (one per endpoint: SageMaker has no
 * batch describe) and each target's own writes (claim, record) grow with the targets; a change
 * that brings back a call per target where a batched or shared one exists fails here.
 */
import { BatchGetCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { tickReads } from '#shared/invocation/tick-calls.ts';
import { policyOrThrow } from '#shared/policy/load.ts';
import { countCalls, type WorldSpec, world, worldPolicy } from './world.ts';

const T0 = '2025-06-02T12:00:00Z';
const NOW = Date.parse('2025-06-02T12:00:30Z');

/** The formula's reads for the world, plus each target's claim (UpdateItem) and record (PutItem). */
function expected(spec: WorldSpec, w: ReturnType<typeof world>, policyCached: boolean) {
  const targets = policyOrThrow(JSON.parse(worldPolicy(spec))).targets;
  const reads = tickReads(
    targets,
    // us-west-2 holds the failover groups' primaries alone: none registered, no other scaler.
    (region) =>
      region === 'us-west-2'
        ? { activeResources: 0, sageMakerPolicies: 0, groupPolicies: 0 }
        : {
            activeResources: spec.variants,
            sageMakerPolicies: w.conflictingVariants,
            groupPolicies: w.groupPolicies,
          },
    { policyCached, failoverGroups: spec.failoverGroups ?? 0 },
  );
  return { ...reads, 'DynamoDB.Update': targets.length, 'DynamoDB.Put': targets.length };
}

describe('the calls of one tick, by the formula', () => {
  it.each([
    { case: '50 variants on 50 endpoints', spec: { variants: 50, conflictEvery: 25 } },
    { case: '500 variants on 500 endpoints', spec: { variants: 500, conflictEvery: 25 } },
    {
      case: '500 variants, 2 per endpoint: one DescribeEndpoint per endpoint',
      spec: { variants: 500, variantsPerEndpoint: 2, conflictEvery: 25 },
    },
    {
      case: '450 variants and 50 Auto Scaling groups',
      spec: { variants: 450, groups: 50, conflictEvery: 10 },
    },
    {
      case: '500 variants, every one with another scaler: ceil(500 / 10) policy pages',
      spec: { variants: 500, conflictEvery: 1 },
    },
    {
      case: '3 variants and 3 groups are asked about one by one',
      spec: { variants: 3, groups: 3, conflictEvery: 2 },
    },
    { case: 'one variant reads its state with GetItem', spec: { variants: 1 } },
    {
      case: '3 failover groups: one more BatchGetItem for their FAILOVER# items',
      spec: { variants: 6, failoverGroups: 3 },
    },
    {
      case: '150 failover groups: ceil(150 / 100) = 2 more BatchGetItem, never a read per target',
      spec: { variants: 200, failoverGroups: 150, conflictEvery: 25 },
    },
    {
      case: '80 variants and 20 groups with a capacity mix: their PLAN items ride in the state reads, ceil(120 / 100) = 2',
      spec: { variants: 80, groups: 20, mixEvery: 1, conflictEvery: 10 },
    },
    {
      case: 'one group with a capacity mix: its state and its plan in one BatchGetItem, no GetItem',
      spec: { variants: 0, groups: 1, mixEvery: 1 },
    },
  ])('$case', async ({ spec }) => {
    const w = world(spec);
    await w.h.evaluate(w.tick('t1', T0), NOW);
    const first = countCalls(w.h.takeCalls());
    expect(first).toEqual(expected(spec, w, false));

    await w.h.evaluate(w.tick('t2', '2025-06-02T12:00:45Z'), NOW + 15_000);
    expect(countCalls(w.h.takeCalls())).toEqual(expected(spec, w, true));
  });

  it("500 targets: only DescribeEndpoint and each target's own claim and record are made per target", async () => {
    const w = world({ variants: 450, groups: 50, conflictEvery: 10 });
    await w.h.evaluate(w.tick('t1', T0), NOW);
    const perTarget = Object.entries(countCalls(w.h.takeCalls()))
      .filter(([, n]) => n >= 50)
      .map(([call]) => call)
      .sort();
    expect(perTarget).toEqual(['DynamoDB.Put', 'DynamoDB.Update', 'SageMaker.DescribeEndpoint']);
  });

  it('500 targets: the reads that do not grow with the targets stay at 21 calls (1 + 4 + 10 + 1 + 5)', () => {
    const targets = policyOrThrow(JSON.parse(worldPolicy({ variants: 500 }))).targets;
    const reads = tickReads(
      targets,
      () => ({ activeResources: 500, sageMakerPolicies: 20, groupPolicies: 0 }),
      {
        policyCached: true,
      },
    );
    const { 'SageMaker.DescribeEndpoint': endpoints, ...rest } = reads;
    expect(endpoints).toBe(500);
    expect(rest).toEqual({
      'SSM.GetParameter': 1,
      // 3 signals and the basis of the per-instance readings: 2,000 queries, 500 a call.
      'CloudWatch.GetMetricData': 4,
      'ApplicationAutoScaling.DescribeScalableTargets': 10,
      'ApplicationAutoScaling.DescribeScalingPolicies': 2,
      'DynamoDB.BatchGet': 5,
    });
  });
});

describe('the capacity mix plans read', () => {
  it('a tick of 30 groups, every third with a capacity mix, asks for their 10 PLAN keys in the BatchGetItem of the 30 state keys, none with GetItem', async () => {
    const w = world({ variants: 0, groups: 30, mixEvery: 3 });
    await w.h.evaluate(w.tick('t1', T0), NOW);
    const keys = w.h.mocks.ddb
      .commandCalls(BatchGetCommand)
      .flatMap((c) => (c.args[0].input.RequestItems?.['governor-state']?.Keys ?? []) as { pk: string }[])
      .map((k) => k.pk);
    expect(keys.filter((pk) => pk.startsWith('MIX#')).sort()).toEqual(
      [0, 3, 6, 9, 12, 15, 18, 21, 24, 27].map((i) => `MIX#g${i}`).sort(),
    );
    expect(keys.filter((pk) => pk.startsWith('TARGET#'))).toHaveLength(30);
    expect(w.h.mocks.ddb.commandCalls(BatchGetCommand)).toHaveLength(1);
    expect(w.h.mocks.ddb.commandCalls(GetCommand)).toHaveLength(0);
  });

  it('the formula counts the PLAN keys with the state keys: N + M keys, 100 a call', () => {
    const facts = () => ({ activeResources: 0, sageMakerPolicies: 0, groupPolicies: 0 });
    const reads = (spec: WorldSpec) =>
      tickReads(policyOrThrow(JSON.parse(worldPolicy(spec))).targets, facts, { policyCached: true });
    const dynamo = (spec: WorldSpec) => {
      const r = reads(spec);
      return [r['DynamoDB.BatchGet'] ?? 0, r['DynamoDB.Get'] ?? 0];
    };
    expect([
      dynamo({ variants: 1 }),
      dynamo({ variants: 0, groups: 1, mixEvery: 1 }),
      dynamo({ variants: 50, groups: 50 }),
      dynamo({ variants: 50, groups: 50, mixEvery: 1 }),
      dynamo({ variants: 0, groups: 100, mixEvery: 1 }),
    ]).toEqual([
      [0, 1],
      [1, 0],
      [1, 0],
      [2, 0],
      [2, 0],
    ]);
  });
});

describe('the failover groups read', () => {
  it('a tick of 150 failover groups reads their items in 2 BatchGetItem, 100 keys and 50, and no FAILOVER# key with GetItem', async () => {
    const w = world({ variants: 150, failoverGroups: 150 });
    await w.h.evaluate(w.tick('t1', T0), NOW);
    const keys = w.h.mocks.ddb
      .commandCalls(BatchGetCommand)
      .map((c) => (c.args[0].input.RequestItems?.['governor-state']?.Keys ?? []) as { pk: string }[])
      .filter((k) => k[0]?.pk.startsWith('FAILOVER#'))
      .map((k) => k.length);
    expect(keys.sort()).toEqual([100, 50].sort());
    const gets = w.h.mocks.ddb.commandCalls(GetCommand).map((c) => String(c.args[0].input.Key?.pk));
    expect(gets.filter((pk) => pk.startsWith('FAILOVER#'))).toEqual([]);
  });

  it('the formula counts one BatchGetItem per 100 groups and nothing without a failover block', () => {
    const targets = policyOrThrow(JSON.parse(worldPolicy({ variants: 2 }))).targets;
    const facts = () => ({ activeResources: 0, sageMakerPolicies: 0, groupPolicies: 0 });
    const batch = (failoverGroups?: number) =>
      tickReads(targets, facts, {
        policyCached: true,
        ...(failoverGroups !== undefined ? { failoverGroups } : {}),
      })['DynamoDB.BatchGet'];
    expect([batch(), batch(0), batch(1), batch(100), batch(101)]).toEqual([1, 1, 2, 2, 3]);
  });
});

describe('decisions at scale are the ones made one target at a time', () => {
  it('500 targets with every 25th scaled by another scaler: 20 refused, 480 held, each named', async () => {
    const w = world({ variants: 500, conflictEvery: 25 });
    const report = await w.h.evaluate(w.tick('t1', T0), NOW);
    const refused = report.records.filter((r) => r.outcome === 'refused').map((r) => r.targetId);
    expect(refused).toEqual(Array.from({ length: 20 }, (_, i) => `v${i * 25}`));
    expect(report.records.filter((r) => r.outcome === 'held')).toHaveLength(480);
    expect(report.records.find((r) => r.targetId === 'v25')?.detail).toMatch(
      /"tt-25" also scale endpoint\/ep-25/,
    );
  });

  it('two variants of one endpoint, read with one DescribeEndpoint, each get their own counts', async () => {
    const w = world({ variants: 2, variantsPerEndpoint: 2 });
    const report = await w.h.evaluate(w.tick('t1', T0), NOW);
    expect(countCalls(w.h.takeCalls())['SageMaker.DescribeEndpoint']).toBe(1);
    expect(report.records.map((r) => [r.targetId, r.inputs.capacity?.liveDesired])).toEqual([
      ['v0', 2],
      ['v1', 2],
    ]);
  });

  it('a state item another evaluation wrote after the batched read loses the claim, is read again with GetItem, and is decided again', async () => {
    const w = world({ variants: 3 });
    await w.h.evaluate(w.tick('t1', T0), NOW);
    w.h.takeCalls();
    // Between this tick's BatchGetItem and v1's claim, another evaluation claims v1.
    const batch = w.h.mocks.ddb.commandCalls(BatchGetCommand).length;
    w.h.mocks.ddb.on(BatchGetCommand).callsFake(async (input) => {
      const keys = input.RequestItems['governor-state'].Keys as { pk: string; sk: string }[];
      const items = keys.map((k) => w.h.table.items.get(`${k.pk}|${k.sk}`)).filter(Boolean);
      const answer = { Responses: { 'governor-state': structuredClone(items) }, UnprocessedKeys: {} };
      const v1 = w.h.table.state('v1')!;
      w.h.table.items.set('TARGET#v1|STATE', { ...v1, version: (v1.version as number) + 1 });
      return answer;
    });
    const report = await w.h.evaluate(w.tick('t2', '2025-06-02T12:01:00Z'), NOW + 30_000);
    expect(w.h.mocks.ddb.commandCalls(BatchGetCommand)).toHaveLength(batch + 1);
    expect(w.h.mocks.ddb.commandCalls(GetCommand).map((c) => c.args[0].input.Key)).toEqual([
      { pk: 'TARGET#v1', sk: 'STATE' },
    ]);
    expect(report.records.map((r) => [r.targetId, r.outcome, r.retries])).toEqual([
      ['v0', 'held', 0],
      ['v1', 'held', 1],
      ['v2', 'held', 0],
    ]);
    expect(w.h.table.state('v1')?.version).toBe(3);
    expect(w.h.mocks.ddb.commandCalls(UpdateCommand).length).toBeGreaterThan(0);
  });

  it('keys DynamoDB leaves unprocessed are read with GetItem by their targets', async () => {
    const w = world({ variants: 3 });
    w.h.mocks.ddb.on(BatchGetCommand).resolves({
      Responses: { 'governor-state': [] },
      UnprocessedKeys: { 'governor-state': { Keys: [{ pk: 'TARGET#v2', sk: 'STATE' }] } },
    });
    await w.h.evaluate(w.tick('t1', T0), NOW);
    expect(w.h.mocks.ddb.commandCalls(GetCommand).map((c) => c.args[0].input.Key?.pk)).toEqual(['TARGET#v2']);
  });

  it('a failed batched read leaves every target to read its own, with one warning', async () => {
    const w = world({ variants: 3 });
    w.h.mocks.ddb
      .on(BatchGetCommand)
      .rejects(Object.assign(new Error('slow down'), { name: 'ThrottlingException' }));
    const report = await w.h.evaluate(w.tick('t1', T0), NOW);
    expect(w.h.mocks.ddb.commandCalls(GetCommand)).toHaveLength(3);
    expect(report.records.map((r) => r.outcome)).toEqual(['held', 'held', 'held']);
    expect(w.h.telemetry.lines).toContainEqual({
      level: 'warn',
      message:
        'state: BatchGetItem of the state items failed (ThrottlingException: slow down): each target reads its own',
    });
  });
});
