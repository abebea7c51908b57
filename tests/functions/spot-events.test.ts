/**
 * Event replays of the recorded fixtures (tests/interruptions/fixtures/) through the real
 * spot-events handler (functions/spot-events/handler.ts, its real adapters), every SDK client
 * mocked (tests/interruptions/aws-fakes.ts).
 */
import {
  DetachInstancesCommand,
  SetDesiredCapacityCommand,
  TerminateInstanceInAutoScalingGroupCommand,
  UpdateAutoScalingGroupCommand,
} from '@aws-sdk/client-auto-scaling';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { initialMixState, stepMix } from '#shared/mix/plan.ts';
import { resolveMixPolicy } from '#shared/mix/types.ts';
import { policyOrThrow } from '#shared/policy/load.ts';
import {
  ACCOUNT,
  fakeAws,
  GROUP,
  KILL_NAME,
  POLICY_NAME,
  spotPolicy,
  TABLE,
} from '../interruptions/aws-fakes.ts';
import { fixture } from '../interruptions/harness.ts';

const NOW = Date.parse('2026-01-05T12:03:30Z');
const ENV = {
  POLICY_PARAMETER_NAME: POLICY_NAME,
  STATE_TABLE_NAME: TABLE,
  KILL_SWITCH_PARAMETER_NAME: KILL_NAME,
  GOVERNOR_MODE: 'active',
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'testing',
  AWS_SECRET_ACCESS_KEY: 'testing',
};
const context = {
  functionName: 'governor-spot-events',
  invokedFunctionArn: `arn:aws:lambda:us-east-1:${ACCOUNT}:function:governor-spot-events`,
  awsRequestId: 'req-1',
  getRemainingTimeInMillis: () => 60_000,
} as never;

const POLICY = spotPolicy(40);
const MIX = resolveMixPolicy(policyOrThrow(POLICY).targets[0]!)!;
const flat = { points: Array.from({ length: 17 }, (_, i) => ({ at: NOW + i * 900_000, p50: 14, p90: 20 })) };
const PLAN_STATE = stepMix(initialMixState(), { forecast: flat }, MIX, NOW - 3_600_000).state;

const A = 'i-0b662ef9931388ba0';
const B = 'i-0c1d2e3f4a5b6c7d8';
let aws: ReturnType<typeof fakeAws>;
let output: string[];

beforeEach(() => {
  vi.resetModules();
  vi.useFakeTimers({ toFake: ['Date'], now: NOW });
  for (const [k, v] of Object.entries(ENV)) vi.stubEnv(k, v);
  aws = fakeAws({
    policy: POLICY,
    members: new Map([
      [A, GROUP],
      [B, GROUP],
      ['i-0fffffffffffffff0', 'other-asg'],
    ]),
  });
  aws.putItem({ pk: 'MIX#gpu', sk: 'PLAN', version: 1, state: PLAN_STATE, updatedAt: 'x' });
  output = [];
  for (const stream of [process.stdout, process.stderr])
    vi.spyOn(stream, 'write').mockImplementation((chunk) => {
      output.push(String(chunk));
      return true;
    });
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

const sqs = (...bodies: string[]) => ({
  Records: bodies.map((body, i) => ({
    messageId: `m${i}`,
    body,
    receiptHandle: 'r',
    attributes: {},
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn',
    awsRegion: 'us-east-1',
  })),
});
const invoke = async (event: ReturnType<typeof sqs>) => {
  const { handler } = await import('#functions/spot-events/handler.ts');
  return handler(event as never, context);
};
const spotItem = () =>
  aws.table.get('MIX#gpu|PLAN') as
    | {
        version: number;
        spot: {
          handled: Record<string, number>;
          poolsUnavailableUntil: Record<string, number>;
          retiring: Record<string, { at: number; group: string }>;
        };
      }
    | undefined;
const decisions = () =>
  output
    .flatMap((c) => c.split('\n'))
    .filter((l) => l.includes('"record"'))
    .map((l) => JSON.parse(l).record as { reasons: string[]; message: string; outcome?: string });
const emf = (name: string) =>
  output
    .flatMap((c) => c.split('\n'))
    .filter((l) => l.includes('"_aws"') && l.includes(`"${name}"`))
    .reduce((s, l) => s + Number(JSON.parse(l)[name]), 0);

describe('the spot-events handler', () => {
  it('fails at cold start naming a missing STATE_TABLE_NAME', async () => {
    vi.stubEnv('STATE_TABLE_NAME', undefined as unknown as string);
    await expect(import('#functions/spot-events/handler.ts')).rejects.toThrow(/STATE_TABLE_NAME is required/);
  });

  it('an interruption warning detaches the instance keeping desired capacity, once, and writes SPOT', async () => {
    expect(await invoke(sqs(fixture('spot-interruption-warning')))).toEqual({ batchItemFailures: [] });
    const detach = aws.asg.commandCalls(DetachInstancesCommand);
    expect(detach.map((c) => c.args[0].input)).toEqual([
      { AutoScalingGroupName: GROUP, InstanceIds: [A], ShouldDecrementDesiredCapacity: false },
    ]);
    expect(spotItem()?.spot.handled).toEqual({ [A]: NOW });
    expect(decisions()[0]!.reasons).toEqual(['InstanceReplaced']);
    expect(emf('ReplacementsRequested')).toBe(1);

    aws.reset();
    vi.resetModules();
    expect(await invoke(sqs(fixture('spot-interruption-warning')))).toEqual({ batchItemFailures: [] });
    expect(aws.asg.commandCalls(DetachInstancesCommand)).toHaveLength(0);
    expect(decisions().at(-1)!.reasons).toEqual(['NotInGroup']);
  });

  it('the same warning twice in a batch detaches once and counts a duplicate', async () => {
    await invoke(sqs(fixture('spot-interruption-warning'), fixture('spot-interruption-warning')));
    expect(aws.asg.commandCalls(DetachInstancesCommand)).toHaveLength(1);
    expect(emf('DuplicatesIgnored')).toBe(1);
  });

  it('a retirement Health event for two instances raises the group by 2 and records both retiring, detaching nothing', async () => {
    expect(await invoke(sqs(fixture('health-retirement')))).toEqual({ batchItemFailures: [] });
    expect(aws.asg.commandCalls(DetachInstancesCommand)).toHaveLength(0);
    expect(aws.asg.commandCalls(SetDesiredCapacityCommand).map((c) => c.args[0].input)).toEqual([
      { AutoScalingGroupName: GROUP, DesiredCapacity: 4, HonorCooldown: false },
    ]);
    expect(aws.asg.commandCalls(TerminateInstanceInAutoScalingGroupCommand)).toHaveLength(0);
    expect(aws.desiredOf(GROUP)).toBe(4);
    const retiring = spotItem()?.spot.retiring;
    expect(retiring).toEqual({ [A]: { at: NOW, group: GROUP }, [B]: { at: NOW, group: GROUP } });
    expect(decisions()[0]!.reasons).toEqual(['RetirementStarted']);
    expect(decisions()[0]!.message).toMatch(
      /^Raised the group's desired capacity from 2 to 4 for 2 scheduled retirements/,
    );
    expect(emf('ReplacementsRequested')).toBe(2);

    // The same event again while they wait for their replacements: duplicates, no call that writes.
    aws.reset();
    vi.resetModules();
    expect(await invoke(sqs(fixture('health-retirement')))).toEqual({ batchItemFailures: [] });
    expect(aws.asg.commandCalls(SetDesiredCapacityCommand)).toHaveLength(0);
    expect(aws.desiredOf(GROUP)).toBe(4);
    expect(emf('DuplicatesIgnored')).toBe(2);
  });

  it('a retirement the MaxSize leaves no room for is terminated at once without decrementing', async () => {
    aws = fakeAws({
      policy: POLICY,
      members: new Map([
        [A, GROUP],
        [B, GROUP],
      ]),
      maxSize: 3,
    });
    aws.putItem({ pk: 'MIX#gpu', sk: 'PLAN', version: 1, state: PLAN_STATE, updatedAt: 'x' });
    expect(await invoke(sqs(fixture('health-retirement')))).toEqual({ batchItemFailures: [] });
    expect(
      aws.asg.commandCalls(SetDesiredCapacityCommand).map((c) => c.args[0].input.DesiredCapacity),
    ).toEqual([3]);
    expect(
      aws.asg.commandCalls(TerminateInstanceInAutoScalingGroupCommand).map((c) => c.args[0].input),
    ).toEqual([{ InstanceId: B, ShouldDecrementDesiredCapacity: false }]);
    expect(Object.keys(spotItem()!.spot.retiring)).toEqual([A]);
    expect(decisions()[0]!.reasons).toEqual(['RetirementStarted', 'RetiredAtMaxSize']);
  });

  it('a surge AWS refuses leaves nothing retiring and returns the message, so the redelivery raises again', async () => {
    aws.asg
      .on(SetDesiredCapacityCommand)
      .rejects(Object.assign(new Error('Rate exceeded'), { name: 'Throttling' }));
    expect(await invoke(sqs(fixture('health-retirement')))).toEqual({
      batchItemFailures: [{ itemIdentifier: 'm0' }],
    });
    const spot = spotItem()!.spot;
    expect(spot.retiring).toEqual({});
    expect(spot.handled).toEqual({});
    expect(output.join('')).toMatch(/autoscaling:SetDesiredCapacity 4 on group gpu-asg in us-east-1 failed/);
  });

  it('a rebalance recommendation detaches nothing and records why', async () => {
    await invoke(sqs(fixture('rebalance-recommendation')));
    expect(aws.asg.commandCalls(DetachInstancesCommand)).toHaveLength(0);
    expect(decisions()[0]!.message).toMatch(/no replacement asked for/);
  });

  it('a failed spot launch for g5.2xlarge marks the pool and writes the shifted MixedInstancesPolicy', async () => {
    await invoke(sqs(fixture('launch-unsuccessful-spot')));
    expect(Object.keys(spotItem()!.spot.poolsUnavailableUntil)).toEqual(['g5.2xlarge']);
    const update = aws.asg.commandCalls(UpdateAutoScalingGroupCommand);
    expect(update).toHaveLength(1);
    expect(
      update[0]!.args[0].input.MixedInstancesPolicy?.LaunchTemplate?.LaunchTemplateSpecification,
    ).toEqual({
      LaunchTemplateId: 'lt-0abc',
      Version: '3',
    });
    expect(emf('PoolsMarkedUnavailable')).toBe(1);
  });

  it.each([
    {
      case: 'another account',
      body: () => fixture('spot-interruption-warning').replace(`"${ACCOUNT}"`, '"999999999999"'),
      calls: 0,
    },
    {
      case: 'another region',
      body: () =>
        fixture('spot-interruption-warning').replace('"region": "us-east-1"', '"region": "eu-west-1"'),
      calls: 0,
    },
  ])('an event from $case causes no call at all and is recorded as ignored', async ({ body, calls }) => {
    expect(await invoke(sqs(body()))).toEqual({ batchItemFailures: [] });
    expect(Object.values(aws.calls()).reduce((s, n) => s + n, 0)).toBe(calls);
    expect(decisions()[0]!.reasons[0]).toMatch(/Foreign|Malformed/);
  });

  it('a malformed event causes no call and is returned alone, for the dead-letter queue', async () => {
    const out = await invoke(sqs(fixture('rebalance-recommendation'), fixture('invalid-warning')));
    expect(out).toEqual({ batchItemFailures: [{ itemIdentifier: 'm1' }] });
    expect(aws.asg.commandCalls(DetachInstancesCommand)).toHaveLength(0);
    expect(output.join('')).toMatch(/Malformed: EC2 Spot Instance Interruption Warning: detail\.instance-id/);
  });

  it('an instance of an unmanaged group costs the one lookup and nothing else', async () => {
    await invoke(sqs(fixture('spot-interruption-warning').replaceAll(A, 'i-0fffffffffffffff0')));
    const calls = aws.calls();
    expect(calls.DescribeAutoScalingInstances).toBe(1);
    expect(calls.DetachInstances ?? 0).toBe(0);
    expect(aws.ddb.commandCalls(PutCommand)).toHaveLength(0);
    expect(emf('ForeignIgnored')).toBe(1);
  });

  it('with the kill switch on nothing is detached and nothing written', async () => {
    aws.setKill('on');
    await invoke(sqs(fixture('spot-interruption-warning')));
    expect(aws.asg.commandCalls(DetachInstancesCommand)).toHaveLength(0);
    expect(aws.ddb.commandCalls(PutCommand)).toHaveLength(0);
    expect(decisions()[0]!.outcome).toBe('killed');
  });

  it('in shadow mode SPOT is written and nothing is detached or shifted', async () => {
    vi.stubEnv('GOVERNOR_MODE', 'shadow');
    await invoke(sqs(fixture('spot-interruption-warning'), fixture('launch-unsuccessful-spot')));
    expect(aws.asg.commandCalls(DetachInstancesCommand)).toHaveLength(0);
    expect(aws.asg.commandCalls(UpdateAutoScalingGroupCommand)).toHaveLength(0);
    expect(spotItem()?.spot.handled).toEqual({ [A]: NOW });
  });

  it('a failed DetachInstances leaves the instance unhandled and its message redelivered', async () => {
    aws.asg.on(DetachInstancesCommand).rejects(Object.assign(new Error('denied'), { name: 'AccessDenied' }));
    const out = await invoke(sqs(fixture('rebalance-recommendation'), fixture('spot-interruption-warning')));
    expect(out).toEqual({ batchItemFailures: [{ itemIdentifier: 'm1' }] });
    expect(spotItem()?.spot.handled).toEqual({});
    expect(output.join('')).toMatch(/autoscaling:DetachInstances on group gpu-asg in us-east-1 failed/);
  });

  it('a SPOT item written by another invocation meanwhile is re-read and the batch redone once', async () => {
    const put = aws.ddb.commandCalls.bind(aws.ddb);
    let first = true;
    aws.ddb.on(PutCommand).callsFake(async (input: { Item: Record<string, unknown> }) => {
      if (first) {
        first = false;
        aws.putItem({
          ...input.Item,
          version: 2,
          spot: { ...(input.Item.spot as object), handled: { [B]: NOW } },
        });
        throw Object.assign(new Error('conditional'), { name: 'ConditionalCheckFailedException' });
      }
      aws.putItem(input.Item);
      return {};
    });
    expect(await invoke(sqs(fixture('spot-interruption-warning')))).toEqual({ batchItemFailures: [] });
    expect(put(PutCommand)).toHaveLength(2);
    expect(aws.asg.commandCalls(DetachInstancesCommand)).toHaveLength(1);
    expect(Object.keys(spotItem()!.spot.handled).sort()).toEqual([A, B]);
  });

  it('still in conflict after the redo, the messages are batch item failures', async () => {
    aws.ddb
      .on(PutCommand)
      .rejects(Object.assign(new Error('conditional'), { name: 'ConditionalCheckFailedException' }));
    expect(await invoke(sqs(fixture('spot-interruption-warning')))).toEqual({
      batchItemFailures: [{ itemIdentifier: 'm0' }],
    });
    // The item is written before any call: losing it twice, nothing was detached.
    expect(aws.asg.commandCalls(DetachInstancesCommand)).toHaveLength(0);
  });

  it('a failed item write detaches nothing and redelivers the warning, which is then counted and replaced', async () => {
    aws.ddb
      .on(PutCommand)
      .rejectsOnce(Object.assign(new Error('throttled'), { name: 'ProvisionedThroughputExceededException' }));
    expect(await invoke(sqs(fixture('spot-interruption-warning')))).toEqual({
      batchItemFailures: [{ itemIdentifier: 'm0' }],
    });
    expect(aws.asg.commandCalls(DetachInstancesCommand)).toHaveLength(0);
    expect(aws.members.get(A)).toBe(GROUP);

    vi.resetModules();
    aws.ddb.on(PutCommand).callsFake(async (input: { Item: Record<string, unknown> }) => {
      aws.putItem(input.Item);
      return {};
    });
    expect(await invoke(sqs(fixture('spot-interruption-warning')))).toEqual({ batchItemFailures: [] });
    expect(aws.asg.commandCalls(DetachInstancesCommand)).toHaveLength(1);
    expect(spotItem()?.spot.handled).toEqual({ [A]: NOW });
    expect((spotItem()!.spot as unknown as { warnings: Record<string, number> }).warnings).toHaveProperty(A);
  });

  it('a warning marked handled whose instance is still in the group (the detach never happened) is detached', async () => {
    aws.putItem({
      pk: 'MIX#gpu',
      sk: 'PLAN',
      version: 2,
      state: PLAN_STATE,
      spot: {
        version: 1,
        handled: { [A]: NOW - 60_000 },
        warnings: { [A]: NOW - 60_000 },
        poolsUnavailableUntil: {},
        spotUnavailableUntil: null,
        breakerOpenUntil: null,
        breakerOpenedAt: null,
      },
      updatedAt: 'x',
    });
    expect(await invoke(sqs(fixture('spot-interruption-warning')))).toEqual({ batchItemFailures: [] });
    expect(aws.asg.commandCalls(DetachInstancesCommand)).toHaveLength(1);
    expect(aws.members.has(A)).toBe(false);
  });
});
