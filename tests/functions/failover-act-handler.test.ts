/**
 * A replay of the act Lambda handler (functions/failover/act-handler.ts) as the failover state
 * machine calls it: the payloads are built from a planner step's state machine input
 * (shared/failover/machine-input.ts), so the contract between the health evaluation, the ASL's
 * Payload and the act event's schema is checked end to end. Every SDK client is mocked.
 */

import { CloudWatchClient, GetMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import {
  ChangeResourceRecordSetsCommand,
  ListResourceRecordSetsCommand,
  Route53Client,
} from '@aws-sdk/client-route-53';
import {
  DescribeEndpointCommand,
  SageMakerClient,
  UpdateEndpointWeightsAndCapacitiesCommand,
} from '@aws-sdk/client-sagemaker';
import { GetParameterCommand, GetParametersByPathCommand, SSMClient } from '@aws-sdk/client-ssm';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { resolveFailoverGroups } from '#shared/failover/group.ts';
import { failoverInput } from '#shared/failover/machine-input.ts';
import { initialFailoverState } from '#shared/failover/plan.ts';
import { policyOrThrow } from '#shared/policy/load.ts';
import { chatGroup } from './failover-group.ts';

const ENV = {
  POLICY_PARAMETER_NAME: '/governor/policy',
  KILL_SWITCH_PARAMETER_NAME: '/governor/kill-switch',
  MANAGED_ENDPOINT_PREFIX: 'chat-',
  AWS_REGION: 'us-west-2',
  AWS_ACCESS_KEY_ID: 'testing',
  AWS_SECRET_ACCESS_KEY: 'testing',
  POWERTOOLS_SERVICE_NAME: 'governor-failover-act',
  POWERTOOLS_METRICS_NAMESPACE: 'Governor',
};
const context = {
  functionName: 'governor-failover-act',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:us-west-2:123456789012:function:governor-failover-act',
  memoryLimitInMB: '256',
  awsRequestId: 'req-1',
  getRemainingTimeInMillis: () => 110_000,
} as never;

const POLICY = {
  version: 1,
  targets: [
    { id: 'chat-east', region: 'us-east-1' },
    { id: 'chat-west', region: 'us-west-2' },
  ].map((t) => ({
    ...t,
    kind: 'sagemaker-variant',
    endpointName: t.id,
    scaling: { minCapacity: 1, maxCapacity: 20 },
    signals: [{ metric: 'invocationsPerInstance', target: 100 }],
  })),
  failover: { groups: [chatGroup({ failPeriods: 3, failWindowPeriods: 5 })] },
};
const parsed = policyOrThrow(POLICY);
const GROUP = resolveFailoverGroups(parsed)[0]!;
const NOW = Date.now();

/** The execution input of a step that prescales chat-west to 12 and moves 10 % to it. */
const INPUT = failoverInput({
  decisionId: 'd-1',
  group: GROUP,
  targets: parsed.targets,
  decision: {
    groupId: 'chat',
    at: NOW,
    phase: 'shifting',
    previousPhase: 'prescaling',
    reasons: ['ShiftStep'],
    message: 'chat (shifting): step 1 of 3',
    weights: { 'us-east-1': 90, 'us-west-2': 10 },
    health: {},
  } as never,
  actions: [
    { kind: 'prescale', groupId: 'chat', targetId: 'chat-west', region: 'us-west-2', desired: 12 },
    { kind: 'set-weights', groupId: 'chat', weights: { 'us-east-1': 90, 'us-west-2': 10 } },
  ],
  previousWeights: initialFailoverState(GROUP).weights,
  killSwitchValue: 'off',
  now: NOW,
  expiresAt: 0,
}) as { prescale: unknown[]; steps: { action: unknown }[]; routing: unknown; check: unknown };

const sm = mockClient(SageMakerClient);
const ssm = mockClient(SSMClient);
const r53 = mockClient(Route53Client);
const cw = mockClient(CloudWatchClient);
let killSwitch = 'off';
let output: string[];

const records = (east: number, west: number) => ({
  ResourceRecordSets: ['east', 'west'].map((id, i) => ({
    Name: 'chat.example.com.',
    Type: 'A' as const,
    SetIdentifier: id,
    Weight: i === 0 ? east : west,
    TTL: 60,
    ResourceRecords: [{ Value: `192.0.2.${i + 1}` }],
  })),
  IsTruncated: false,
});

beforeEach(() => {
  vi.resetModules();
  for (const [k, v] of Object.entries(ENV)) vi.stubEnv(k, v);
  for (const m of [sm, ssm, r53, cw]) m.reset();
  killSwitch = 'off';
  ssm.on(GetParameterCommand).callsFake(async (input) => ({
    Parameter: {
      Name: input.Name,
      Value: input.Name === ENV.POLICY_PARAMETER_NAME ? JSON.stringify(POLICY) : killSwitch,
    },
  }));
  ssm.on(GetParametersByPathCommand).resolves({ Parameters: [] });
  let desired = 2;
  sm.on(DescribeEndpointCommand).callsFake(async () => ({
    EndpointStatus: 'InService',
    ProductionVariants: [
      { VariantName: 'AllTraffic', DesiredInstanceCount: desired, CurrentInstanceCount: desired },
    ],
  }));
  sm.on(UpdateEndpointWeightsAndCapacitiesCommand).callsFake(async (input) => {
    desired = input.DesiredWeightsAndCapacities[0].DesiredInstanceCount;
    return {};
  });
  r53.on(ListResourceRecordSetsCommand).resolvesOnce(records(100, 0)).resolves(records(90, 10));
  r53.on(ChangeResourceRecordSetsCommand).resolves({
    ChangeInfo: { Id: '/change/C2682N5HXP0BZ4', Status: 'INSYNC', SubmittedAt: new Date(NOW) },
  });
  cw.on(GetMetricDataCommand).resolves({ MetricDataResults: [] });
  output = [];
  for (const stream of [process.stdout, process.stderr]) {
    vi.spyOn(stream, 'write').mockImplementation((chunk) => {
      output.push(String(chunk));
      return true;
    });
  }
});
afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

const load = async () => (await import('#functions/failover/act-handler.ts')).handler;

describe('the act Lambda handler, called as the state machine calls it', () => {
  it('prescale, ready, route and check of one step return what the ASL selects', async () => {
    const handler = await load();
    const prescale = await handler({ op: 'prescale', prescale: INPUT.prescale[0] }, context);
    expect(prescale).toEqual({ detail: 'chat-west in us-west-2: desired 2 -> 12' });
    const ready = await handler({ op: 'ready', prescale: INPUT.prescale }, context);
    expect(ready).toEqual({ ready: true, detail: 'chat-west 12 of 12 ready' });
    const routed = await handler(
      { op: 'route', routing: INPUT.routing, action: INPUT.steps[0]!.action },
      context,
    );
    expect(routed).toEqual({
      detail: 'weights us-east-1 (east) 90, us-west-2 (west) 10: change C2682N5HXP0BZ4 INSYNC',
    });
    const health = await handler({ op: 'check', check: INPUT.check }, context);
    expect(health).toEqual({ regressed: false, detail: 'no fresh reading past a threshold' });
    expect(sm.commandCalls(UpdateEndpointWeightsAndCapacitiesCommand)).toHaveLength(1);
    expect(r53.commandCalls(ChangeResourceRecordSetsCommand)).toHaveLength(1);
  });

  it('under the kill switch a route fails as one named line, counted in FailoverActErrors, and nothing is routed', async () => {
    killSwitch = 'on';
    const handler = await load();
    const error = await handler(
      { op: 'route', routing: INPUT.routing, action: INPUT.steps[0]!.action },
      context,
    ).then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(error?.name).toBe('KillSwitchOn');
    expect(error?.message).toBe(
      'the set-weights of chat not done: the kill switch is on: nothing is changed',
    );
    expect(r53.calls()).toEqual([]);
    expect(output.join('')).toContain('"FailoverActErrors"');
  });

  it('a malformed payload is InvalidActEvent, with no AWS call', async () => {
    const handler = await load();
    await expect(
      handler({ op: 'prescale', prescale: { ...(INPUT.prescale[0] as object), target: null } }, context),
    ).rejects.toMatchObject({
      name: 'InvalidActEvent',
    });
    expect([...sm.calls(), ...ssm.calls(), ...r53.calls()]).toEqual([]);
  });

  it('clips every log field: a 100 KB name in the input costs a line of at most a few KB, and the error stays one line', async () => {
    const handler = await load();
    const huge = `chat-${'x'.repeat(100_000)}`;
    const error = await handler(
      { op: 'prescale', prescale: { ...(INPUT.prescale[0] as object), targetId: huge } },
      context,
    ).then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(error?.name).toBe('NotInPolicy');
    expect(error!.message.length).toBeLessThan(600);
    const lines = output.join('').split('\n').filter(Boolean);
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line.length).toBeLessThan(4_000);
    expect(sm.calls()).toEqual([]);
  });
});
