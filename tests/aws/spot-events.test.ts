/**
 * The Auto Scaling calls of the interruption handler (shared/aws/spot-events.ts), with
 * aws-sdk-client-mock: DescribeAutoScalingInstances in calls of 50 ids with every NextToken page
 * followed, DetachInstances in calls of 20 ids that never lower desired capacity, each chunk
 * standing alone, and every failure one line naming the IAM action, the group and the grant.
 * The throttling case runs the client's real retry middleware (a scripted HTTP layer answering
 * Auto Scaling's XML error), so the line is what is left after MAX_ATTEMPTS tries.
 */

import { Readable } from 'node:stream';
import {
  AutoScalingClient,
  DescribeAutoScalingInstancesCommand,
  DetachInstancesCommand,
} from '@aws-sdk/client-auto-scaling';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { clientConfig, MAX_ATTEMPTS } from '#shared/aws/clients.ts';
import {
  DESCRIBE_IDS_PER_CALL,
  DETACH_IDS_PER_CALL,
  SpotEventsCallError,
  spotGroups,
} from '#shared/aws/spot-events.ts';
import { awsError, FAKE_CREDENTIALS, scriptedHandler } from './fakes.ts';

const REGION = 'us-east-1';
const GROUP = 'gpu-asg';
// This one client is mocked (not the class), so the retry test below can use a real one.
const mocked = new AutoScalingClient({ region: REGION, credentials: FAKE_CREDENTIALS });
const asg = mockClient(mocked);
const port = spotGroups(() => mocked);
beforeEach(() => asg.reset());

const ids = (n: number, from = 0) =>
  Array.from({ length: n }, (_, i) => `i-${(from + i).toString(16).padStart(17, '0')}`);

/** One row of DescribeAutoScalingInstances. */
const member = (InstanceId: string, AutoScalingGroupName = GROUP) => ({
  InstanceId,
  AutoScalingGroupName,
  AvailabilityZone: 'us-east-1a',
  LifecycleState: 'InService' as const,
  HealthStatus: 'HEALTHY',
  ProtectedFromScaleIn: false,
});

/** DescribeAutoScalingInstances answering every id asked for as a member of `group`. */
const allIn = (group: string) =>
  asg.on(DescribeAutoScalingInstancesCommand).callsFake(async (input: { InstanceIds: string[] }) => ({
    AutoScalingInstances: input.InstanceIds.map((i) => member(i, group)),
  }));

const describeInputs = () =>
  asg.commandCalls(DescribeAutoScalingInstancesCommand).map((c) => c.args[0].input);
const detachInputs = () => asg.commandCalls(DetachInstancesCommand).map((c) => c.args[0].input);

describe('spotGroups().groupsOf', () => {
  it('looks up 120 instances in 3 calls of at most 50 ids, each id once, and maps each to its group', async () => {
    allIn(GROUP);
    const all = ids(120);
    const got = await port.groupsOf(REGION, all);
    const calls = describeInputs();
    expect(DESCRIBE_IDS_PER_CALL).toBe(50);
    expect(calls.map((c) => c.InstanceIds?.length)).toEqual([50, 50, 20]);
    expect(calls.flatMap((c) => c.InstanceIds)).toEqual(all);
    expect(calls.map((c) => c.NextToken)).toEqual([undefined, undefined, undefined]);
    expect(got).toEqual(new Map(all.map((i) => [i, GROUP])));
  });

  it('asks for a repeated id once: 60 ids of which 10 repeated are 50 distinct, one call', async () => {
    allIn(GROUP);
    const distinct = ids(50);
    await port.groupsOf(REGION, [...distinct, ...distinct.slice(0, 10)]);
    expect(describeInputs().map((c) => c.InstanceIds)).toEqual([distinct]);
  });

  it('follows NextToken until the last page, with the same ids, and merges the pages', async () => {
    const [a, b, c] = ids(3) as [string, string, string];
    asg
      .on(DescribeAutoScalingInstancesCommand)
      .resolvesOnce({
        AutoScalingInstances: [member(a, 'g1')],
        NextToken: 'p2',
      })
      .resolvesOnce({
        AutoScalingInstances: [member(b, 'g2')],
        NextToken: 'p3',
      })
      .resolvesOnce({ AutoScalingInstances: [member(c, 'g1')] });
    const got = await port.groupsOf(REGION, [a, b, c]);
    expect(describeInputs()).toEqual([
      { InstanceIds: [a, b, c], NextToken: undefined },
      { InstanceIds: [a, b, c], NextToken: 'p2' },
      { InstanceIds: [a, b, c], NextToken: 'p3' },
    ]);
    expect(got).toEqual(
      new Map([
        [a, 'g1'],
        [b, 'g2'],
        [c, 'g1'],
      ]),
    );
  });

  it('leaves out an instance in no group (not returned, or returned without a group name)', async () => {
    const [inGroup, detached, noName] = ids(3) as [string, string, string];
    asg.on(DescribeAutoScalingInstancesCommand).resolves({
      AutoScalingInstances: [member(inGroup), { InstanceId: noName } as never],
    });
    const got = await port.groupsOf(REGION, [inGroup, detached, noName]);
    expect(got).toEqual(new Map([[inGroup, GROUP]]));
  });

  it('AccessDenied throws a SpotEventsCallError of one line naming the action and the grant on *', async () => {
    const denied = awsError(
      'AccessDenied',
      'User: arn:aws:sts::123456789012:assumed-role/governor/spot is not authorized\nto perform: autoscaling:DescribeAutoScalingInstances',
    );
    asg.on(DescribeAutoScalingInstancesCommand).rejects(denied);
    const error = await port.groupsOf(REGION, ids(2)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SpotEventsCallError);
    expect((error as Error).message).toBe(
      'autoscaling:DescribeAutoScalingInstances on instances in us-east-1 failed (AccessDenied: User: arn:aws:sts::123456789012:assumed-role/governor/spot is not authorized); check the role has autoscaling:DescribeAutoScalingInstances granted on * (Describe actions take no resource)',
    );
    expect((error as Error).cause).toBe(denied);
  });

  it('a failure on the second chunk stops the lookup there: no partial map is returned', async () => {
    allIn(GROUP);
    asg
      .on(DescribeAutoScalingInstancesCommand, { InstanceIds: ids(50, 50) })
      .rejects(awsError('ServiceUnavailable', 'try later', 503));
    await expect(port.groupsOf(REGION, ids(120))).rejects.toThrow(
      /^autoscaling:DescribeAutoScalingInstances on instances in us-east-1 failed \(ServiceUnavailable: try later\)/,
    );
    expect(describeInputs()).toHaveLength(2);
  });
});

describe('spotGroups().replace', () => {
  it('detaches 45 instances in 3 calls of at most 20, each keeping desired capacity, on the group named', async () => {
    asg.on(DetachInstancesCommand).resolves({ Activities: [] });
    const all = ids(45);
    expect(await port.replace(REGION, GROUP, all)).toEqual({ detached: all, failed: [] });
    expect(DETACH_IDS_PER_CALL).toBe(20);
    expect(detachInputs()).toEqual([
      { AutoScalingGroupName: GROUP, InstanceIds: all.slice(0, 20), ShouldDecrementDesiredCapacity: false },
      { AutoScalingGroupName: GROUP, InstanceIds: all.slice(20, 40), ShouldDecrementDesiredCapacity: false },
      { AutoScalingGroupName: GROUP, InstanceIds: all.slice(40), ShouldDecrementDesiredCapacity: false },
    ]);
  });

  it('detaches a repeated id once', async () => {
    asg.on(DetachInstancesCommand).resolves({ Activities: [] });
    const [a, b] = ids(2);
    expect(await port.replace(REGION, GROUP, [a!, b!, a!])).toEqual({ detached: [a, b], failed: [] });
    expect(detachInputs().map((c) => c.InstanceIds)).toEqual([[a, b]]);
  });

  it('each chunk stands alone: the second failing, the first and third are still detached', async () => {
    const all = ids(45);
    asg.on(DetachInstancesCommand).resolves({ Activities: [] });
    asg
      .on(DetachInstancesCommand, { InstanceIds: all.slice(20, 40) })
      .rejects(
        awsError('ResourceContention', 'You already have a pending update to an Auto Scaling resource'),
      );
    const out = await port.replace(REGION, GROUP, all);
    expect(out.detached).toEqual([...all.slice(0, 20), ...all.slice(40)]);
    expect(out.failed).toEqual([
      {
        instanceIds: all.slice(20, 40),
        error:
          'autoscaling:DetachInstances on group gpu-asg in us-east-1 failed (ResourceContention: You already have a pending update to an Auto Scaling resource); check the role has autoscaling:DetachInstances granted on autoScalingGroupName/gpu-asg',
      },
    ]);
    expect(detachInputs()).toHaveLength(3);
  });

  it('AccessDenied is one line naming DetachInstances, the group and the grant; nothing is thrown', async () => {
    asg
      .on(DetachInstancesCommand)
      .rejects(
        awsError(
          'AccessDenied',
          'User: arn:aws:sts::123456789012:assumed-role/governor/spot is not authorized to perform: autoscaling:DetachInstances\non resource: arn:aws:autoscaling:us-east-1:123456789012:autoScalingGroup:*:autoScalingGroupName/gpu-asg',
        ),
      );
    const [a] = ids(1);
    const out = await port.replace(REGION, GROUP, [a!]);
    expect(out).toEqual({
      detached: [],
      failed: [
        {
          instanceIds: [a],
          error:
            'autoscaling:DetachInstances on group gpu-asg in us-east-1 failed (AccessDenied: User: arn:aws:sts::123456789012:assumed-role/governor/spot is not authorized to perform: autoscaling:DetachInstances); check the role has autoscaling:DetachInstances granted on autoScalingGroupName/gpu-asg',
        },
      ],
    });
    expect(out.failed[0]!.error).not.toContain('\n');
  });

  it('no ids: no call', async () => {
    expect(await port.replace(REGION, GROUP, [])).toEqual({ detached: [], failed: [] });
    expect(await port.groupsOf(REGION, [])).toEqual(new Map());
    expect(asg.calls()).toHaveLength(0);
  });
});

/** Auto Scaling's (query protocol) throttling answer. */
const THROTTLED_XML =
  '<ErrorResponse xmlns="http://autoscaling.amazonaws.com/doc/2011-01-01/"><Error><Type>Sender</Type><Code>Throttling</Code><Message>Rate exceeded</Message></Error><RequestId>r-1</RequestId></ErrorResponse>';

describe('spotGroups() on a real client: the SDK retries first', () => {
  it(`throttled on every one of ${MAX_ATTEMPTS} attempts, DetachInstances fails as one line naming the action and the group`, async () => {
    // fakes.ts' scripted layer counts the attempts; its body is swapped for the XML the query protocol reads.
    const scripted = scriptedHandler([{ status: 400, body: null }], 'text/xml');
    const http = {
      ...scripted,
      async handle() {
        const out = await scripted.handle();
        return { response: { ...out.response, body: Readable.from([Buffer.from(THROTTLED_XML)]) } };
      },
    };
    const client = new AutoScalingClient({
      ...clientConfig({ region: REGION, credentials: FAKE_CREDENTIALS }),
      requestHandler: http as never,
    });
    const [a, b] = ids(2);
    const out = await spotGroups(() => client).replace(REGION, GROUP, [a!, b!]);
    expect(scripted.attempts).toBe(MAX_ATTEMPTS);
    expect(out).toEqual({
      detached: [],
      failed: [
        {
          instanceIds: [a, b],
          error:
            'autoscaling:DetachInstances on group gpu-asg in us-east-1 failed (Throttling: Rate exceeded); check the role has autoscaling:DetachInstances granted on autoScalingGroupName/gpu-asg',
        },
      ],
    });
  });
});
