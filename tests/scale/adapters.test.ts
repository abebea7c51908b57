/**
 * The batched reads behind the tick's formula, adapter by adapter: the region-wide policy
 * sweeps of Application Auto Scaling and EC2 Auto Scaling, the state items in BatchGetItem
 * calls of 100 keys, and the pool that bounds the calls in flight. Each rejects a malformed
 * answer instead of reading it as "nothing there".
 */
import {
  ApplicationAutoScalingClient,
  DescribeScalingPoliciesCommand,
} from '@aws-sdk/client-application-auto-scaling';
import { AutoScalingClient, DescribePoliciesCommand } from '@aws-sdk/client-auto-scaling';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { appAutoScalingAdapter } from '#shared/aws/app-autoscaling.ts';
import { groupPoliciesAdapter } from '#shared/aws/group-policies.ts';
import { stateBatchReads } from '#shared/aws/state-batch.ts';
import { mapBounded } from '#shared/invocation/pool.ts';

const aas = mockClient(ApplicationAutoScalingClient);
const asg = mockClient(AutoScalingClient);
const ddb = mockClient(DynamoDBDocumentClient);
const config = { region: 'us-east-1', credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } };
const doc = DynamoDBDocumentClient.from(new DynamoDBClient(config));

beforeEach(() => {
  for (const m of [aas, asg, ddb]) m.reset();
});

describe("the sweep of the region's SageMaker scaling policies", () => {
  const sweep = appAutoScalingAdapter(() => new ApplicationAutoScalingClient(config)).policiesInNamespace!;
  const policy = (resource: string, name: string) => ({
    ResourceId: resource,
    ScalableDimension: 'sagemaker:variant:DesiredInstanceCount' as const,
    PolicyName: name,
  });

  it('follows every page, 10 a page (MaxResults 1 to 10), and keys the names by resource and dimension', async () => {
    aas
      .on(DescribeScalingPoliciesCommand)
      .resolvesOnce({ ScalingPolicies: [policy('endpoint/a/variant/v', 'tt-a')] as never, NextToken: 'p2' })
      .resolvesOnce({
        ScalingPolicies: [
          policy('endpoint/a/variant/v', 'steps-a'),
          policy('endpoint/b/variant/v', 'tt-b'),
        ] as never,
      });
    const found = await sweep('us-east-1');
    expect(Object.fromEntries(found)).toEqual({
      'endpoint/a/variant/v|sagemaker:variant:DesiredInstanceCount': ['tt-a', 'steps-a'],
      'endpoint/b/variant/v|sagemaker:variant:DesiredInstanceCount': ['tt-b'],
    });
    expect(aas.commandCalls(DescribeScalingPoliciesCommand).map((c) => c.args[0].input)).toEqual([
      { ServiceNamespace: 'sagemaker', MaxResults: 10, NextToken: undefined },
      { ServiceNamespace: 'sagemaker', MaxResults: 10, NextToken: 'p2' },
    ]);
  });

  it('rejects a policy without its resource: read as "no policy", Governor would fight it', async () => {
    aas.on(DescribeScalingPoliciesCommand).resolves({ ScalingPolicies: [{ PolicyName: 'tt' }] as never });
    await expect(sweep('us-east-1')).rejects.toThrow(
      'DescribeScalingPolicies: a policy without ResourceId (tt)',
    );
  });
});

describe("the sweep of the region's EC2 Auto Scaling policies", () => {
  const sweep = groupPoliciesAdapter(() => new AutoScalingClient(config)).allGroupPolicies;

  it("follows every page, 100 a page, by group, converted as one group's policies are", async () => {
    asg
      .on(DescribePoliciesCommand)
      .resolvesOnce({
        ScalingPolicies: [
          { AutoScalingGroupName: 'g1', PolicyName: 'cpu', PolicyType: 'TargetTrackingScaling' },
        ],
        NextToken: 'n',
      })
      .resolvesOnce({
        ScalingPolicies: [
          { AutoScalingGroupName: 'g2', PolicyName: 'off', PolicyType: 'StepScaling', Enabled: false },
        ],
      });
    expect(Object.fromEntries(await sweep('us-east-1'))).toEqual({
      g1: [{ name: 'cpu', drivenBy: 'alarms', canScale: true }],
      g2: [{ name: 'off', drivenBy: 'alarms', canScale: false }],
    });
    expect(asg.commandCalls(DescribePoliciesCommand).map((c) => c.args[0].input)).toEqual([
      { MaxRecords: 100, NextToken: undefined },
      { MaxRecords: 100, NextToken: 'n' },
    ]);
  });

  it.each([
    {
      case: 'a policy that names no group',
      answer: { ScalingPolicies: [{ PolicyName: 'cpu', PolicyType: 'TargetTrackingScaling' }] },
      message: 'DescribePolicies: policy cpu has no AutoScalingGroupName',
    },
    {
      case: 'an answer without its list',
      answer: {},
      message: 'DescribePolicies ScalingPolicies is missing',
    },
  ])('rejects $case', async ({ answer, message }) => {
    asg.on(DescribePoliciesCommand).resolves(answer);
    await expect(sweep('us-east-1')).rejects.toThrow(message);
  });
});

describe('state items in BatchGetItem calls', () => {
  const reads = stateBatchReads(doc, 'governor-state');
  const item = (id: string, version: number) => ({ pk: `TARGET#${id}`, sk: 'STATE', version });

  it('asks for 250 targets in 3 calls of at most 100 keys, strongly consistent', async () => {
    ddb.on(BatchGetCommand).callsFake(async (input) => ({
      Responses: {
        'governor-state': input.RequestItems['governor-state'].Keys.map((k: { pk: string }) => ({
          ...k,
          version: 1,
        })),
      },
      UnprocessedKeys: {},
    }));
    const ids = Array.from({ length: 250 }, (_, i) => `t${i}`);
    const found = await reads.readMany(ids);
    const calls = ddb
      .commandCalls(BatchGetCommand)
      .map((c) => c.args[0].input.RequestItems!['governor-state']!);
    expect(calls.map((r) => [r.Keys!.length, r.ConsistentRead])).toEqual([
      [100, true],
      [100, true],
      [50, true],
    ]);
    expect(found.size).toBe(250);
    expect(found.get('t7')).toMatchObject({ version: 1 });
  });

  it('maps a target without an item to undefined, and leaves an unprocessed one out for its own GetItem', async () => {
    ddb.on(BatchGetCommand).resolves({
      Responses: { 'governor-state': [item('a', 3)] },
      UnprocessedKeys: { 'governor-state': { Keys: [{ pk: 'TARGET#c', sk: 'STATE' }] } },
    });
    const found = await reads.readMany(['a', 'b', 'c']);
    expect([...found.entries()]).toEqual([
      ['a', item('a', 3)],
      ['b', undefined],
    ]);
  });

  it('rejects an answer without the table\'s list: read as "no items", every target would start over', async () => {
    ddb.on(BatchGetCommand).resolves({});
    await expect(reads.readMany(['a', 'b'])).rejects.toThrow(
      'BatchGetItem Responses.governor-state is missing',
    );
  });
});

describe('the pool that bounds the calls in flight', () => {
  it('never runs more than the limit at once, and returns the results in item order', async () => {
    let running = 0;
    let most = 0;
    const gates: (() => void)[] = [];
    const done = mapBounded([1, 2, 3, 4, 5, 6, 7], 3, async (n) => {
      running++;
      most = Math.max(most, running);
      await new Promise<void>((r) => gates.push(r));
      running--;
      return n * 10;
    });
    // Release the waiting calls one at a time, in reverse, until all seven have run.
    for (let released = 0; released < 7; released++) {
      while (gates.length === 0) await Promise.resolve();
      gates.pop()!();
      await Promise.resolve();
    }
    expect(await done).toEqual([10, 20, 30, 40, 50, 60, 70]);
    expect(most).toBe(3);
  });

  it.each([0, 1.5, -1])('refuses a limit of %s', async (limit) => {
    await expect(mapBounded([1], limit, async (n) => n)).rejects.toThrow('mapBounded: limit must be');
  });
});
