/**
 * The spot-events Lambda handler (functions/spot-events/handler.ts, its real adapters and SDK
 * clients, AWS_ENDPOINT_URL aimed at moto) against moto over HTTP. Seeded as a deployed stack
 * would have it: examples/capacity-mix.yaml as the policy parameter (target chat-llm-asg, group
 * chat-llm-gpu, capacityMix.spot), the kill switch "off", the state table with the target's PLAN
 * item written by dynamoMixStore, and the group made from a launch template, desired 4, given
 * that plan's MixedInstancesPolicy by the mix adapter (as tests/integration/mixed-instances-moto
 * does). SQS batches are handed to the handler as Lambda's poller would.
 *
 * What moto 5.2 models, and this file asserts:
 *  - DescribeAutoScalingInstances lists the group's instances; a detached one is in no group.
 *  - DetachInstances with ShouldDecrementDesiredCapacity=false removes the instance from the
 *    group (and its aws:autoscaling:groupName tag) and keeps DesiredCapacity. It then launches
 *    replacements, inside the same call, up to its own count of the group's instances, and for a
 *    mixed group that count truncates both parts: the plan's distribution (0 on-demand base, 40 %
 *    on-demand above it) gives int(1.6) + int(2.4) = 3 for desired 4. The group held 4 (made
 *    before the policy; an update without DesiredCapacity recounts nothing), so after the detach
 *    it holds 3 and moto launches NO replacement; AWS would launch one (it rounds on-demand up,
 *    2 + 2). The replacement itself is therefore not observable here.
 *  - DynamoDB's conditional PutItem, consistent GetItem and BatchGetItem; SSM parameters.
 *  - DescribeAutoScalingGroups' DesiredCapacity and InService instances, which the Health
 *    disruption budget reads back (issue 18), and per-record results: a malformed record beside
 *    a valid one comes back alone; a Health event that is not actionable makes no call.
 *  - A Health retirement (issue 18): SetDesiredCapacity raises the group by one and moto launches
 *    the replacement at once (InService from the start, so no wait is observable); the mix
 *    function's reconcile (functions/mix/retirements.ts, its real adapter) then terminates the
 *    retiring instance with TerminateInstanceInAutoScalingGroup, decrementing: it leaves the
 *    group and desired capacity comes back.
 * What it does not model: EventBridge and SQS delivery (the batch is built here); spot as a
 * purchase option (every instance is a plain on-demand one, nothing is ever reclaimed); the two
 * minutes a warned instance runs on (a detached instance stays running in EC2 for ever); the
 * replacement's asynchrony (AWS launches it in the background, moto before answering); IAM (no
 * AccessDenied); pagination of DescribeAutoScalingInstances (one page always).
 */

import { readFileSync } from 'node:fs';
import {
  AutoScalingClient,
  type AutoScalingGroup,
  CreateAutoScalingGroupCommand,
  DescribeAutoScalingGroupsCommand,
  DescribeAutoScalingInstancesCommand,
} from '@aws-sdk/client-auto-scaling';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SSMClient } from '@aws-sdk/client-ssm';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Context, SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseMixConfig } from '#functions/mix/config.ts';
import type { MixPorts } from '#functions/mix/ports.ts';
import { reconcileRetirements } from '#functions/mix/retirements.ts';
import { groupRetirements } from '#shared/aws/group-retirements.ts';
import { dynamoMixItems } from '#shared/aws/mix-item.ts';
import { dynamoMixStore } from '#shared/aws/mix-store.ts';
import { mixedInstancesAdapter } from '#shared/aws/mixed-instances.ts';
import { initialMixState, stepMix } from '#shared/mix/plan.ts';
import { type MixPlan, resolveMixPolicy } from '#shared/mix/types.ts';
import { parsePolicyText } from '#shared/policy/load.ts';
import { fixture } from '../interruptions/harness.ts';
import {
  awsTestConfig,
  createLaunchTemplate,
  createStateTable,
  importHandlerOnMoto,
  type MotoServer,
  motoGate,
  putStringParameter,
  startMoto,
  TEST_ACCOUNT,
  TEST_REGION,
} from '../support/moto.ts';

const gate = motoGate();

const POLICY_TEXT = readFileSync('examples/capacity-mix.yaml', 'utf8');
const TARGET = 'chat-llm-asg';
const GROUP = 'chat-llm-gpu';
const POLICY_NAME = '/governor/policy';
const KILL_NAME = '/governor/kill-switch';
const TABLE = 'governor-state';

const context = {
  functionName: 'governor-spot-events',
  invokedFunctionArn: `arn:aws:lambda:${TEST_REGION}:${TEST_ACCOUNT}:function:governor-spot-events`,
  awsRequestId: 'req-moto',
  getRemainingTimeInMillis: () => 60_000,
} as unknown as Context;

/** The recorded warning (tests/interruptions/fixtures/), for `instanceId`, sent now, from `account`. */
function warningFor(instanceId: string, account = TEST_ACCOUNT): string {
  const event = JSON.parse(fixture('spot-interruption-warning'));
  return JSON.stringify({
    ...event,
    account,
    time: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    resources: [`arn:aws:ec2:${TEST_REGION}b:instance/${instanceId}`],
    detail: { ...event.detail, 'instance-id': instanceId },
  });
}

const batch = (body: string, messageId = 'm-1'): SQSEvent => ({
  Records: [
    {
      messageId,
      body,
      receiptHandle: 'r',
      attributes: {} as never,
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: `arn:aws:sqs:${TEST_REGION}:${TEST_ACCOUNT}:governor-spot-events`,
      awsRegion: TEST_REGION,
    },
  ],
});

describe.skipIf(!gate.available)('the spot-events handler on moto', () => {
  let moto: MotoServer;
  let asg: AutoScalingClient;
  let doc: DynamoDBDocumentClient;
  let plan: MixPlan;
  let handler: (event: SQSEvent, context: Context) => Promise<{ batchItemFailures: unknown[] }>;

  const group = async (): Promise<AutoScalingGroup> => {
    const out = await asg.send(new DescribeAutoScalingGroupsCommand({ AutoScalingGroupNames: [GROUP] }));
    return out.AutoScalingGroups![0]!;
  };
  const members = async () => (await group()).Instances!.map((i) => i.InstanceId!).sort();
  /** The target's one item (mix state and SPOT state, ../../shared/aws/mix-item.ts). */
  const spotItem = () => dynamoMixItems(doc, TABLE).get(TARGET);

  /**
   * One invocation of the handler: what it answered, every SDK call it made (by command name,
   * with the input), and its decision records (its stdout, kept out of the test output).
   */
  async function invoke(event: SQSEvent) {
    const sends = [AutoScalingClient, SSMClient, DynamoDBDocumentClient].map((c) =>
      vi.spyOn(c.prototype, 'send'),
    );
    const lines: string[] = [];
    const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      lines.push(...String(chunk).split('\n'));
      return true;
    });
    try {
      const result = await handler(event, context);
      const calls = sends.flatMap((s) =>
        s.mock.calls.map(([command]) => ({
          name: command.constructor.name.replace(/Command$/, ''),
          input: (command as { input: unknown }).input,
        })),
      );
      const reasons = lines
        .filter((l) => l.includes('"record"'))
        .flatMap((l) => JSON.parse(l).record.reasons as string[]);
      return { result, calls, reasons };
    } finally {
      out.mockRestore();
      for (const s of sends) s.mockRestore();
    }
  }

  beforeAll(async () => {
    moto = await startMoto();
    const config = awsTestConfig(moto.endpoint);
    asg = new AutoScalingClient(config);
    const ddb = new DynamoDBClient(config);
    doc = DynamoDBDocumentClient.from(ddb);

    const templateId = await createLaunchTemplate(moto.endpoint, `${GROUP}-lt`);
    await asg.send(
      new CreateAutoScalingGroupCommand({
        AutoScalingGroupName: GROUP,
        LaunchTemplate: { LaunchTemplateId: templateId, Version: '$Latest' },
        MinSize: 2,
        MaxSize: 40,
        DesiredCapacity: 4,
        AvailabilityZones: ['us-east-1a', 'us-east-1b'],
      }),
    );
    // The mix function's plan for a flat p90 of 20: its MixedInstancesPolicy on the group, its PLAN item in the table.
    const parsed = parsePolicyText(POLICY_TEXT);
    if (!parsed.ok) throw new Error('examples/capacity-mix.yaml is not a valid policy');
    const mix = resolveMixPolicy(parsed.policy.targets[0]!)!;
    const now = Date.now();
    const forecast = {
      points: Array.from({ length: 17 }, (_, i) => ({ at: now + i * 15 * 60_000, p50: 14, p90: 20 })),
    };
    const planned = stepMix(initialMixState(), { forecast }, mix, now);
    plan = planned.plan!;
    expect((await mixedInstancesAdapter(() => asg).apply(TEST_REGION, GROUP, plan)).status).toBe('applied');
    await createStateTable(ddb, TABLE);
    expect(await dynamoMixStore(doc, TABLE).put(TARGET, planned.state, 0)).toBe('written');
    const ssm = new SSMClient(config);
    await putStringParameter(ssm, POLICY_NAME, POLICY_TEXT);
    await putStringParameter(ssm, KILL_NAME, 'off');

    ({ handler } = await importHandlerOnMoto(
      moto,
      {
        POLICY_PARAMETER_NAME: POLICY_NAME,
        STATE_TABLE_NAME: TABLE,
        KILL_SWITCH_PARAMETER_NAME: KILL_NAME,
        GOVERNOR_MODE: 'active',
      },
      () => import('#functions/spot-events/handler.ts'),
    ));
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await moto?.stop();
  });

  it('is seeded as the stack would be: 4 instances in the mixed group, a plan with spot to count against', async () => {
    const g = await group();
    expect(g.DesiredCapacity).toBe(4);
    expect(g.Instances).toHaveLength(4);
    expect(g.MixedInstancesPolicy?.LaunchTemplate?.Overrides?.map((o) => o.InstanceType)).toEqual(
      plan.mixedInstancesPolicy.overrides.map((o) => o.instanceType),
    );
    // One warning must not open the breaker (20 % of the plan's spot), so nothing is shifted here.
    expect(plan.spot).toBeGreaterThanOrEqual(5);
  });

  it('a warning from another account makes no call and writes nothing', async () => {
    const before = await group();
    const [victim] = await members();
    const { result, calls, reasons } = await invoke(batch(warningFor(victim!, '999999999999')));
    expect(result).toEqual({ batchItemFailures: [] });
    expect(calls).toEqual([]);
    expect(reasons).toEqual(['ForeignAccount']);
    expect((await spotItem())?.spot ?? null).toBeNull();
    expect(await group()).toEqual(before);
  });

  it('a warning detaches the instance keeping desired 4 (moto launches no replacement); SPOT records it handled', async () => {
    const before = await group();
    const [victim] = await members();
    const sent = Date.now();
    const { result, calls, reasons } = await invoke(batch(warningFor(victim!)));
    expect(result).toEqual({ batchItemFailures: [] });
    expect(reasons).toEqual(['InstanceReplaced']);
    // Policy and its parts, kill switch, the lookup, the item and (it has no SPOT part yet) the
    // legacy SPOT item, the item written before the detach, the detach: no shift
    // (UpdateAutoScalingGroup), since one warning opens no breaker and no pool ran dry.
    expect(calls.map((c) => c.name).sort()).toEqual([
      'BatchGet',
      'BatchGet',
      'DescribeAutoScalingInstances',
      'DetachInstances',
      'GetParameter',
      'GetParameter',
      'GetParametersByPath',
      'Put',
    ]);
    expect(calls.filter((c) => c.name === 'DetachInstances').map((c) => c.input)).toEqual([
      { AutoScalingGroupName: GROUP, InstanceIds: [victim], ShouldDecrementDesiredCapacity: false },
    ]);

    const lookup = await asg.send(new DescribeAutoScalingInstancesCommand({ InstanceIds: [victim!] }));
    expect(lookup.AutoScalingInstances ?? []).toEqual([]);
    const after = await group();
    expect(after.DesiredCapacity).toBe(4);
    expect(after.MixedInstancesPolicy).toEqual(before.MixedInstancesPolicy);
    const ids = after.Instances!.map((i) => i.InstanceId!);
    expect(ids).not.toContain(victim);
    // The 3 others, nothing new: moto counts 3 instances for desired 4 under this policy (top comment).
    expect(ids.sort()).toEqual(
      before
        .Instances!.map((i) => i.InstanceId!)
        .filter((i) => i !== victim)
        .sort(),
    );

    const stored = await spotItem();
    // Version 1 was the mix function's PLAN; the spot-events function wrote 2, keeping its plan.
    expect(stored?.version).toBe(2);
    expect(stored!.state.plan).toEqual(plan);
    expect(Object.keys(stored!.spot!.handled)).toEqual([victim]);
    expect(stored!.spot!.handled[victim!]).toBeGreaterThanOrEqual(sent);
    expect(stored!.spot!.handled[victim!]).toBeLessThanOrEqual(Date.now());
    expect(stored!.spot!.breakerOpenUntil).toBeNull();
  });

  it('the same message delivered again makes no DetachInstances call and leaves group and SPOT as they were', async () => {
    const spotBefore = await spotItem();
    const groupBefore = await group();
    const victim = Object.keys(spotBefore!.spot!.handled)[0]!;
    const { result, calls, reasons } = await invoke(batch(warningFor(victim), 'm-2'));
    expect(result).toEqual({ batchItemFailures: [] });
    expect(reasons).toEqual(['NotInGroup']);
    // The one lookup and nothing else (the policy is cached for POLICY_CACHE_SECONDS): no detach, no write.
    expect(calls).toEqual([{ name: 'DescribeAutoScalingInstances', input: { InstanceIds: [victim] } }]);
    expect(await spotItem()).toEqual(spotBefore);
    expect(await group()).toEqual(groupBefore);
  });

  it('a Health event that is not an upcoming or open scheduledChange makes no call and detaches nothing', async () => {
    const groupBefore = await group();
    const [victim] = await members();
    const health = JSON.parse(fixture('health-retirement'));
    health.time = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    health.detail = { ...health.detail, statusCode: 'closed', affectedEntities: [{ entityValue: victim }] };
    const { result, calls, reasons } = await invoke(batch(JSON.stringify(health), 'm-3'));
    expect(result).toEqual({ batchItemFailures: [] });
    expect(reasons).toEqual(['NotActionable']);
    expect(calls).toEqual([]);
    expect(await group()).toEqual(groupBefore);
  });

  it('an upcoming EC2 retirement raises the group by one keeping the instance, and a malformed record beside it comes back alone', async () => {
    const [victim] = await members();
    const before = await group();
    const health = JSON.parse(fixture('health-retirement'));
    health.time = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    health.detail = { ...health.detail, affectedEntities: [{ entityValue: victim }] };
    const event = batch(JSON.stringify(health), 'm-4');
    event.Records.push({ ...event.Records[0]!, messageId: 'm-5', body: '{"detail-type":"constructor"}' });
    const sent = Date.now();
    const { result, calls, reasons } = await invoke(event);
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: 'm-5' }] });
    expect(reasons).toContain('RetirementStarted');
    expect(calls.filter((c) => c.name === 'DetachInstances')).toEqual([]);
    expect(calls.filter((c) => c.name === 'SetDesiredCapacity').map((c) => c.input)).toEqual([
      { AutoScalingGroupName: GROUP, DesiredCapacity: before.DesiredCapacity! + 1, HonorCooldown: false },
    ]);
    const after = await group();
    expect(after.DesiredCapacity).toBe(before.DesiredCapacity! + 1);
    // The retiring instance stays and serves; moto launches its replacement at once.
    expect(await members()).toContain(victim);
    expect(after.Instances!.length).toBeGreaterThan(before.Instances!.length);
    const retiring = (await spotItem())!.spot!.retiring;
    expect(retiring).toEqual({ [victim!]: { at: expect.any(Number), group: GROUP } });
    expect(retiring[victim!]!.at).toBeGreaterThanOrEqual(sent);
  });

  it('the same Health event again while it waits makes no write: a duplicate, the group as it was', async () => {
    const [victim] = Object.keys((await spotItem())!.spot!.retiring);
    const before = await group();
    const health = JSON.parse(fixture('health-retirement'));
    health.time = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    health.detail = { ...health.detail, affectedEntities: [{ entityValue: victim }] };
    const { result, calls, reasons } = await invoke(batch(JSON.stringify(health), 'm-6'));
    expect(result).toEqual({ batchItemFailures: [] });
    expect(reasons).toContain('DuplicateIgnored');
    expect(calls.map((c) => c.name).filter((n) => /^(Set|Terminate|Detach|Update)/.test(n))).toEqual([]);
    expect(await group()).toEqual(before);
  });

  it("the mix function's reconcile terminates it, decrementing, once the group serves without it, and clears it; a second run calls nothing that writes", async () => {
    const [victim] = Object.keys((await spotItem())!.spot!.retiring);
    const before = await group();
    const ctx = {
      config: parseMixConfig({
        POLICY_PARAMETER_NAME: POLICY_NAME,
        STATE_TABLE_NAME: TABLE,
        KILL_SWITCH_PARAMETER_NAME: KILL_NAME,
        GOVERNOR_MODE: 'active',
      }),
      ports: {
        retirements: groupRetirements(() => asg),
        items: dynamoMixItems(doc, TABLE),
      } as unknown as MixPorts,
      now: Date.now(),
      withheld: null,
      recordBase: () => {
        throw new Error('not used');
      },
    };
    const target = parsePolicyText(POLICY_TEXT);
    if (!target.ok) throw new Error('examples/capacity-mix.yaml is not a valid policy');
    const t = target.policy.targets[0]!;
    const out = await reconcileRetirements(ctx, t, await spotItem());
    expect(out).toMatchObject({
      reasons: ['RetirementTerminated'],
      terminated: [victim],
      failed: [],
      stored: 'written',
    });
    const after = await group();
    expect(after.DesiredCapacity).toBe(before.DesiredCapacity! - 1);
    expect(after.Instances!.map((i) => i.InstanceId)).not.toContain(victim);
    expect((await spotItem())!.spot!.retiring).toEqual({});
    // Nothing retiring: no call at all.
    const send = vi.spyOn(AutoScalingClient.prototype, 'send');
    expect(await reconcileRetirements(ctx, t, await spotItem())).toBeNull();
    expect(send).not.toHaveBeenCalled();
    send.mockRestore();
  });

  it('the Health disruption budget reads the group back: budget 2 less the group shortfall is raised for, lowest ids first; the rest held, the event comes back', async () => {
    const g = await group();
    const inService = g.Instances!.filter((i) => i.LifecycleState === 'InService').length;
    const room = 2 - Math.max(0, g.DesiredCapacity! - inService);
    expect(room).toBeGreaterThan(0);
    const before = await members();
    const health = JSON.parse(fixture('health-retirement'));
    health.time = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    health.detail = { ...health.detail, affectedEntities: before.map((entityValue) => ({ entityValue })) };
    const { result, calls, reasons } = await invoke(batch(JSON.stringify(health), 'm-7'));
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: 'm-7' }] });
    expect(reasons).toContain('HealthBudgetHeld');
    expect(calls.map((c) => c.name)).toContain('DescribeAutoScalingGroups');
    expect(calls.filter((c) => c.name === 'SetDesiredCapacity').map((c) => c.input)).toEqual([
      { AutoScalingGroupName: GROUP, DesiredCapacity: g.DesiredCapacity! + room, HonorCooldown: false },
    ]);
    expect(Object.keys((await spotItem())!.spot!.retiring).sort()).toEqual(before.slice(0, room));
  });
});
