/**
 * The failover act function's ops (functions/failover/act.ts) through the real adapters
 * (functions/failover/act-ports.ts), every SDK client mocked with aws-sdk-client-mock: each
 * action kind makes exactly the SDK calls it should, a refusal makes none of the changing ones,
 * and a failed call is thrown, named.
 */
import {
  AutoScalingClient,
  DescribeAutoScalingGroupsCommand,
  SetDesiredCapacityCommand,
} from '@aws-sdk/client-auto-scaling';
import { CloudWatchClient, GetMetricDataCommand, type MetricDataQuery } from '@aws-sdk/client-cloudwatch';
import {
  DescribeEndpointGroupCommand,
  GlobalAcceleratorClient,
  UpdateEndpointGroupCommand,
} from '@aws-sdk/client-global-accelerator';
import {
  ChangeResourceRecordSetsCommand,
  ListResourceRecordSetsCommand,
  Route53Client,
} from '@aws-sdk/client-route-53';
import {
  Route53RecoveryClusterClient,
  UpdateRoutingControlStatesCommand,
} from '@aws-sdk/client-route53-recovery-cluster';
import {
  DescribeEndpointCommand,
  DescribeInferenceComponentCommand,
  SageMakerClient,
  UpdateEndpointWeightsAndCapacitiesCommand,
  UpdateInferenceComponentRuntimeConfigCommand,
} from '@aws-sdk/client-sagemaker';
import { GetParameterCommand, GetParametersByPathCommand, SSMClient } from '@aws-sdk/client-ssm';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { act, parseActEvent } from '#functions/failover/act.ts';
import { awsActPorts, parseActConfig } from '#functions/failover/act-ports.ts';
import { createClients } from '#shared/aws/clients.ts';
import { isClusterHost } from '#shared/aws/routing-arc-read.ts';
import { chatGroup, chatTargets, weightedRecords } from './failover-group.ts';

const NOW = Date.parse('2025-06-02T12:00:30Z');
const MINUTE = Date.parse('2025-06-02T12:00:00Z');
const CREDENTIALS = { accessKeyId: 'testing', secretAccessKey: 'testing' };
const CONFIG = parseActConfig({
  POLICY_PARAMETER_NAME: '/governor/policy',
  KILL_SWITCH_PARAMETER_NAME: '/governor/kill-switch',
  MANAGED_ENDPOINT_PREFIX: 'chat-',
  MANAGED_AUTO_SCALING_GROUP_PREFIX: 'gpu-',
  AWS_REGION: 'us-west-2',
});
const SCOPE = { endpointPrefix: 'chat-', groupPrefix: 'gpu-' };

const sm = mockClient(SageMakerClient);
const asg = mockClient(AutoScalingClient);
const cw = mockClient(CloudWatchClient);
const ssm = mockClient(SSMClient);
const r53 = mockClient(Route53Client);
const arc = mockClient(Route53RecoveryClusterClient);
const ga = mockClient(GlobalAcceleratorClient);
const ALL = [sm, asg, cw, ssm, r53, arc, ga];

const scaling = { minCapacity: 1, maxCapacity: 20 };
const POLICY = {
  version: 1,
  targets: [
    ...chatTargets(),
    {
      id: 'chat-ic',
      kind: 'sagemaker-inference-component',
      region: 'us-west-2',
      endpointName: 'chat-west',
      inferenceComponentName: 'chat-ic',
      scaling,
      signals: [{ metric: 'invocationsPerInstance', target: 100 }],
    },
    {
      id: 'gpu-west',
      kind: 'ec2-asg',
      region: 'us-west-2',
      autoScalingGroupName: 'gpu-west',
      scaling,
      signals: [
        {
          metric: 'gpuUtilization',
          target: 70,
          cloudwatch: { namespace: 'Gpu', metricName: 'GpuUtilization' },
        },
      ],
    },
  ],
  failover: { groups: [chatGroup({ failPeriods: 3, failWindowPeriods: 5, p95LatencyMs: 1500 })] },
};
/** The chat group's routing in the policy the act function reads (the route tests set other kinds). */
let chatRouting: unknown = POLICY.failover.groups[0]!.routing;
const policyRead = () => ({
  ...POLICY,
  failover: { groups: [{ ...POLICY.failover.groups[0]!, routing: chatRouting }] },
});

let killSwitch = 'off';
const ports = () => {
  const options = { region: 'us-west-2', credentials: CREDENTIALS, maxAttempts: 1 };
  return awsActPorts(createClients(options), options, CONFIG);
};
const run = async (event: unknown) => act(ports(), parseActEvent(event), SCOPE, NOW);
const changing = () => [
  ...sm.commandCalls(UpdateEndpointWeightsAndCapacitiesCommand),
  ...sm.commandCalls(UpdateInferenceComponentRuntimeConfigCommand),
  ...asg.commandCalls(SetDesiredCapacityCommand),
  ...r53.commandCalls(ChangeResourceRecordSetsCommand),
  ...arc.commandCalls(UpdateRoutingControlStatesCommand),
  ...ga.commandCalls(UpdateEndpointGroupCommand),
];

beforeEach(() => {
  for (const m of ALL) m.reset();
  killSwitch = 'off';
  chatRouting = POLICY.failover.groups[0]!.routing;
  ssm.on(GetParameterCommand).callsFake(async (input) => {
    if (input.Name === '/governor/kill-switch') return { Parameter: { Name: input.Name, Value: killSwitch } };
    if (input.Name === '/governor/policy')
      return { Parameter: { Name: input.Name, Value: JSON.stringify(policyRead()) } };
    throw Object.assign(new Error('not found'), { name: 'ParameterNotFound' });
  });
  ssm.on(GetParametersByPathCommand).resolves({ Parameters: [] });
  sm.on(DescribeEndpointCommand).resolves({
    EndpointStatus: 'InService',
    ProductionVariants: [{ VariantName: 'AllTraffic', DesiredInstanceCount: 2, CurrentInstanceCount: 2 }],
  });
  sm.on(UpdateEndpointWeightsAndCapacitiesCommand).resolves({});
});

const variant = (desired: number, endpointName = 'chat-west') => ({
  op: 'prescale',
  prescale: {
    targetId: 'chat-west',
    region: 'us-west-2',
    desired,
    target: { kind: 'sagemaker-variant', endpointName, variantName: 'AllTraffic' },
  },
});

describe('prescale: raise only, through the capacity adapters', () => {
  it('raises a variant from 2 to 12 with one UpdateEndpointWeightsAndCapacities after reading the policy and the kill switch', async () => {
    expect(await run(variant(12))).toEqual({ detail: 'chat-west in us-west-2: desired 2 -> 12' });
    expect(sm.commandCalls(UpdateEndpointWeightsAndCapacitiesCommand).map((c) => c.args[0].input)).toEqual([
      {
        EndpointName: 'chat-west',
        DesiredWeightsAndCapacities: [{ VariantName: 'AllTraffic', DesiredInstanceCount: 12 }],
      },
    ]);
    expect(ssm.commandCalls(GetParameterCommand).map((c) => c.args[0].input.Name)).toEqual([
      '/governor/policy',
      '/governor/kill-switch',
    ]);
  });

  it.each([{ asked: 2 }, { asked: 1 }])(
    'never lowers: asked $asked of a variant at 2 changes nothing',
    async ({ asked }) => {
      expect(await run(variant(asked))).toEqual({ detail: `chat-west already at 2 (asked ${asked})` });
      expect(changing()).toEqual([]);
    },
  );

  it('raises an inference component with UpdateInferenceComponentRuntimeConfig', async () => {
    sm.on(DescribeInferenceComponentCommand).resolves({
      InferenceComponentStatus: 'InService',
      RuntimeConfig: { DesiredCopyCount: 1, CurrentCopyCount: 1 },
    });
    sm.on(UpdateInferenceComponentRuntimeConfigCommand).resolves({});
    await run({
      op: 'prescale',
      prescale: {
        targetId: 'chat-ic',
        region: 'us-west-2',
        desired: 4,
        target: {
          kind: 'sagemaker-inference-component',
          endpointName: 'chat-west',
          inferenceComponentName: 'chat-ic',
        },
      },
    });
    expect(sm.commandCalls(UpdateInferenceComponentRuntimeConfigCommand).map((c) => c.args[0].input)).toEqual(
      [{ InferenceComponentName: 'chat-ic', DesiredRuntimeConfig: { CopyCount: 4 } }],
    );
  });

  it('raises an Auto Scaling group with SetDesiredCapacity, HonorCooldown false', async () => {
    asg.on(DescribeAutoScalingGroupsCommand).resolves({
      AutoScalingGroups: [
        {
          AutoScalingGroupName: 'gpu-west',
          DesiredCapacity: 1,
          Instances: [{ LifecycleState: 'InService' }],
          SuspendedProcesses: [],
        } as never,
      ],
    });
    asg.on(SetDesiredCapacityCommand).resolves({});
    await run({
      op: 'prescale',
      prescale: {
        targetId: 'gpu-west',
        region: 'us-west-2',
        desired: 5,
        target: { kind: 'ec2-asg', autoScalingGroupName: 'gpu-west' },
      },
    });
    expect(asg.commandCalls(SetDesiredCapacityCommand).map((c) => c.args[0].input)).toEqual([
      { AutoScalingGroupName: 'gpu-west', DesiredCapacity: 5, HonorCooldown: false },
    ]);
  });
});

describe('refusals and errors', () => {
  it.each([
    {
      case: 'a target outside the managed prefix is refused before any call',
      event: variant(12, 'prod-west'),
      name: 'UnmanagedTarget',
    },
    {
      case: 'a malformed event names the field',
      event: { op: 'prescale', prescale: { targetId: 'x' } },
      name: 'InvalidActEvent',
    },
    { case: 'an unknown op is malformed', event: { op: 'scale' }, name: 'InvalidActEvent' },
  ])('$case', async ({ event, name }) => {
    await expect(run(event)).rejects.toMatchObject({ name });
    expect(changing()).toEqual([]);
  });

  it.each(['on', 'ON ', 'maybe'])(
    'the kill switch reading %j refuses a prescale: nothing is changed',
    async (value) => {
      killSwitch = value;
      await expect(run(variant(12))).rejects.toMatchObject({ name: 'KillSwitchOn' });
      expect(changing()).toEqual([]);
    },
  );

  it('a variant SageMaker is updating is CapacityBusy, for the state machine to retry', async () => {
    sm.on(UpdateEndpointWeightsAndCapacitiesCommand).rejects(
      Object.assign(new Error('Cannot update in-progress endpoint'), { name: 'ValidationException' }),
    );
    await expect(run(variant(12))).rejects.toMatchObject({ name: 'CapacityBusy' });
  });

  it('an access denied on the write is thrown as it is', async () => {
    sm.on(UpdateEndpointWeightsAndCapacitiesCommand).rejects(
      Object.assign(new Error('not authorized'), { name: 'AccessDeniedException' }),
    );
    await expect(run(variant(12))).rejects.toMatchObject({ name: 'AccessDeniedException' });
  });
});

describe('ready', () => {
  it.each([
    { current: 12, ready: true, detail: 'chat-west 12 of 12 ready' },
    { current: 7, ready: false, detail: 'chat-west 7 of 12 ready' },
  ])('$current in service of 12 asked: ready $ready', async ({ current, ready, detail }) => {
    sm.on(DescribeEndpointCommand).resolves({
      EndpointStatus: 'Updating',
      ProductionVariants: [
        { VariantName: 'AllTraffic', DesiredInstanceCount: 12, CurrentInstanceCount: current },
      ],
    });
    expect(await run({ op: 'ready', prescale: [variant(12).prescale] })).toEqual({ ready, detail });
  });
});

const records = weightedRecords;
/** ARC: the standby's control On, the primary's Off. */
const TO_WEST = {
  kind: 'set-routing-controls',
  groupId: 'chat',
  on: ['us-west-2'],
  off: ['us-east-1'],
  weights: { 'us-east-1': 0, 'us-west-2': 100 },
};
const ARNS = {
  'us-east-1': 'arn:aws:route53-recovery-control::123456789012:controlpanel/abc123/routingcontrol/east1',
  'us-west-2': 'arn:aws:route53-recovery-control::123456789012:controlpanel/abc123/routingcontrol/west2',
};
const GROUPS = {
  'us-east-1': 'arn:aws:globalaccelerator::123456789012:accelerator/acc-1/listener/lis1/endpoint-group/east1',
  'us-west-2': 'arn:aws:globalaccelerator::123456789012:accelerator/acc-1/listener/lis1/endpoint-group/west2',
};

describe('route: one routing action per kind', () => {
  it('route53-weighted: one ChangeResourceRecordSets of both records, keyed by set identifier', async () => {
    r53.on(ListResourceRecordSetsCommand).resolvesOnce(records(100, 0)).resolves(records(90, 10));
    r53.on(ChangeResourceRecordSetsCommand).resolves({
      ChangeInfo: { Id: '/change/C2682N5HXP0BZ4', Status: 'PENDING', SubmittedAt: new Date(NOW) },
    });
    const out = await run({
      op: 'route',
      routing: POLICY.failover.groups[0]!.routing,
      action: { kind: 'set-weights', groupId: 'chat', weights: { 'us-east-1': 90, 'us-west-2': 10 } },
    });
    expect(out).toEqual({
      detail: 'weights us-east-1 (east) 90, us-west-2 (west) 10: change C2682N5HXP0BZ4 PENDING',
    });
    const change = r53.commandCalls(ChangeResourceRecordSetsCommand)[0]!.args[0].input;
    expect(change.HostedZoneId).toBe('Z0123456789ABC');
    expect(
      change.ChangeBatch?.Changes?.map((c) => [
        c.Action,
        c.ResourceRecordSet?.SetIdentifier,
        c.ResourceRecordSet?.Weight,
      ]),
    ).toEqual([
      ['UPSERT', 'east', 90],
      ['UPSERT', 'west', 10],
    ]);
  });

  it('arc-routing-controls: one UpdateRoutingControlStates on a cluster endpoint from the policy', async () => {
    arc.on(UpdateRoutingControlStatesCommand).resolves({});
    const routing = {
      kind: 'arc-routing-controls',
      routingControls: ARNS,
      clusterEndpoints: [
        {
          region: 'us-west-2',
          endpoint: 'https://host-aaaa.route53-recovery-cluster.us-west-2.amazonaws.com/v1',
        },
      ],
    };
    chatRouting = routing;
    const out = await run({
      op: 'route',
      routing,
      action: TO_WEST,
    });
    expect(out).toEqual({ detail: 'routing controls on: us-west-2; off: us-east-1' });
    expect(arc.commandCalls(UpdateRoutingControlStatesCommand).map((c) => c.args[0].input)).toEqual([
      {
        UpdateRoutingControlStateEntries: [
          { RoutingControlArn: ARNS['us-west-2'], RoutingControlState: 'On' },
          { RoutingControlArn: ARNS['us-east-1'], RoutingControlState: 'Off' },
        ],
      },
    ]);
  });

  it('global-accelerator: the receiving dial raised first, then the failing one cut', async () => {
    const dials: Record<string, number> = { [GROUPS['us-east-1']]: 100, [GROUPS['us-west-2']]: 0 };
    ga.on(DescribeEndpointGroupCommand).callsFake(async (input) => ({
      EndpointGroup: {
        EndpointGroupArn: input.EndpointGroupArn,
        TrafficDialPercentage: dials[input.EndpointGroupArn],
      },
    }));
    ga.on(UpdateEndpointGroupCommand).callsFake(async (input) => {
      dials[input.EndpointGroupArn] = input.TrafficDialPercentage;
      return {};
    });
    const routing = {
      kind: 'global-accelerator',
      listenerArn: 'arn:aws:globalaccelerator::123456789012:accelerator/acc-1/listener/lis1',
      endpointGroups: GROUPS,
    };
    chatRouting = routing;
    await run({
      op: 'route',
      routing,
      action: {
        kind: 'set-dials',
        groupId: 'chat',
        dials: { 'us-east-1': 50, 'us-west-2': 100 },
        weights: { 'us-east-1': 50, 'us-west-2': 50 },
      },
    });
    expect(ga.commandCalls(UpdateEndpointGroupCommand).map((c) => c.args[0].input)).toEqual([
      { EndpointGroupArn: GROUPS['us-west-2'], TrafficDialPercentage: 100 },
      { EndpointGroupArn: GROUPS['us-east-1'], TrafficDialPercentage: 50 },
    ]);
  });

  it('the kill switch on refuses a routing step before any routing call', async () => {
    killSwitch = 'on';
    await expect(
      run({
        op: 'route',
        routing: POLICY.failover.groups[0]!.routing,
        action: { kind: 'set-weights', groupId: 'chat', weights: { 'us-east-1': 0, 'us-west-2': 100 } },
      }),
    ).rejects.toMatchObject({ name: 'KillSwitchOn' });
    expect(r53.calls()).toEqual([]);
  });

  it('an action of another routing kind is RoutingNotMapped, a region outside the group NotInPolicy', async () => {
    const routing = POLICY.failover.groups[0]!.routing;
    await expect(
      run({
        op: 'route',
        routing,
        action: {
          kind: 'set-dials',
          groupId: 'chat',
          dials: { 'us-east-1': 0 },
          weights: { 'us-east-1': 0 },
        },
      }),
    ).rejects.toMatchObject({ name: 'RoutingNotMapped' });
    await expect(
      run({
        op: 'route',
        routing,
        action: { kind: 'set-weights', groupId: 'chat', weights: { 'eu-west-1': 100 } },
      }),
    ).rejects.toMatchObject({ name: 'NotInPolicy' });
    expect(changing()).toEqual([]);
  });
});

describe('check: the receiving region after a step', () => {
  /** us-west-2 answers 100 invocations, `errors` 5xx and p95 `p95Ms`, stamped `at`. */
  const answer = (errors: number, p95Ms: number, at: number) =>
    cw.on(GetMetricDataCommand).callsFake(async (input) => ({
      MetricDataResults: (input.MetricDataQueries as MetricDataQuery[]).map((q) => {
        const name = q.MetricStat?.Metric?.MetricName;
        const value =
          name === 'Invocations'
            ? 100
            : name === 'Invocation5XXErrors'
              ? errors
              : name === 'ModelLatency'
                ? p95Ms * 1000
                : 0;
        return { Id: q.Id, Timestamps: [new Date(at)], Values: [value], StatusCode: 'Complete' };
      }),
    }));
  const check = {
    regions: ['us-west-2'],
    targets: ['chat-west'],
    errorRatePercent: 5,
    p95LatencyMs: 1500,
    staleAfterSeconds: 180,
  };

  it.each([
    {
      case: 'a fresh 8 % error rate past 5 regresses',
      errors: 8,
      p95: 900,
      at: MINUTE - 60_000,
      regressed: true,
      detail: 'us-west-2: errorRatePercent 8 > 5',
    },
    {
      case: 'a fresh p95 of 2 s past 1.5 s regresses',
      errors: 0,
      p95: 2000,
      at: MINUTE - 60_000,
      regressed: true,
      detail: 'us-west-2: p95LatencyMs 2000 > 1500',
    },
    {
      case: 'healthy readings do not',
      errors: 1,
      p95: 900,
      at: MINUTE - 60_000,
      regressed: false,
      detail: 'no fresh reading past a threshold',
    },
    {
      case: 'a stale breach is missing data, not a regression',
      errors: 50,
      p95: 9000,
      at: NOW - 600_000,
      regressed: false,
      detail: 'no fresh reading past a threshold',
    },
  ])('$case', async ({ errors, p95, at, regressed, detail }) => {
    answer(errors, p95, at);
    expect(await run({ op: 'check', check })).toEqual({ regressed, detail });
    const queries = cw
      .commandCalls(GetMetricDataCommand)
      .flatMap((c) => c.args[0].input.MetricDataQueries ?? []);
    expect(
      new Set(
        queries.map(
          (q) =>
            q.MetricStat?.Metric?.Dimensions?.find((d) => d.Name === 'EndpointName')?.Value ?? 'governor',
        ),
      ),
    ).toEqual(new Set(['chat-west', 'governor']));
  });

  it('no datapoint at all is not a regression', async () => {
    cw.on(GetMetricDataCommand).resolves({ MetricDataResults: [] });
    expect(await run({ op: 'check', check })).toEqual({
      regressed: false,
      detail: 'no fresh reading past a threshold',
    });
  });

  it('a failed CloudWatch read is thrown, for the state machine to retry', async () => {
    cw.on(GetMetricDataCommand).rejects(
      Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' }),
    );
    await expect(run({ op: 'check', check })).rejects.toMatchObject({ name: 'ThrottlingException' });
  });
});

describe('an execution input held to the policy (issue 18): clear errors, no call that changes or reads a target', () => {
  const route53 = POLICY.failover.groups[0]!.routing;
  const step = { kind: 'set-weights', groupId: 'chat', weights: { 'us-east-1': 90, 'us-west-2': 10 } };
  const noTargetCall = () => {
    expect(changing()).toEqual([]);
    expect([...sm.calls(), ...asg.calls(), ...r53.calls(), ...arc.calls(), ...ga.calls()]).toEqual([]);
  };

  it('clamps a prescale of 2^31 to the target maxCapacity, and says so', async () => {
    expect(await run(variant(2 ** 31))).toEqual({
      detail: `chat-west in us-west-2: desired 2 -> 20 (asked ${2 ** 31}, clamped to maxCapacity 20)`,
    });
    expect(
      sm.commandCalls(UpdateEndpointWeightsAndCapacitiesCommand)[0]!.args[0].input
        .DesiredWeightsAndCapacities,
    ).toEqual([{ VariantName: 'AllTraffic', DesiredInstanceCount: 20 }]);
  });

  it.each([
    {
      case: 'a prescale of a target the policy does not have',
      event: { ...variant(12), prescale: { ...variant(12).prescale, targetId: 'chat-other' } },
      message: 'prescale.targetId "chat-other" is not a target of the policy',
    },
    {
      case: "a prescale naming another endpoint than the target's",
      event: variant(12, 'chat-east'),
      message: /^prescale\.target is .*"chat-east".*, but the policy's target chat-west is/,
    },
    {
      case: "a prescale in another region than the target's",
      event: { ...variant(12), prescale: { ...variant(12).prescale, region: 'us-east-1' } },
      message: 'prescale.region is "us-east-1", but target chat-west is in us-west-2 in the policy',
    },
    {
      case: 'a route in another hosted zone',
      event: { op: 'route', routing: { ...route53, hostedZoneId: 'Z9999999999' }, action: step },
      message: /^routing\.hostedZoneId is "Z9999999999", but group chat's in the policy is "Z0123456789ABC"/,
    },
    {
      case: 'a route of another record',
      event: { op: 'route', routing: { ...route53, recordName: 'www.example.com' }, action: step },
      message: /^routing\.recordName is "www\.example\.com"/,
    },
    {
      case: 'a route of another set identifier',
      event: {
        op: 'route',
        routing: { ...route53, setIdentifiers: { 'us-east-1': 'east', 'us-west-2': 'prod' } },
        action: step,
      },
      message: /^routing\.setIdentifiers is/,
    },
    {
      case: 'a route of a group the policy does not have',
      event: { op: 'route', routing: route53, action: { ...step, groupId: 'other' } },
      message: 'action.groupId "other" is not a failover group of the policy',
    },
  ])('$case is NotInPolicy, naming the field', async ({ event, message }) => {
    await expect(run(event)).rejects.toMatchObject({
      name: 'NotInPolicy',
      message: expect.stringMatching(message),
    });
    noTargetCall();
    // The policy is the only thing read; the kill switch is not even asked.
    expect(ssm.commandCalls(GetParameterCommand).map((c) => c.args[0].input.Name)).toEqual([
      '/governor/policy',
    ]);
  });

  it.each([
    'https://attacker.example.com/v1',
    'https://host-aaaa.route53-recovery-cluster.us-west-2.amazonaws.com.attacker.example/v1',
    'https://host-aaaa.route53-recovery-cluster.us-east-1.amazonaws.com/v1', // another region than its own
    'https://host-aaaa.route53-recovery-cluster.us-west-2.amazonaws.com:8443/v1',
    'https://user@host-aaaa.route53-recovery-cluster.us-west-2.amazonaws.com/v1',
  ])(
    'an ARC cluster endpoint off AWS’s own domains (%s) is InvalidActEvent naming the field, before any call',
    async (endpoint) => {
      const event = {
        op: 'route',
        routing: {
          kind: 'arc-routing-controls',
          routingControls: ARNS,
          clusterEndpoints: [{ region: 'us-west-2', endpoint }],
        },
        action: TO_WEST,
      };
      await expect(run(event)).rejects.toMatchObject({
        name: 'InvalidActEvent',
        message: expect.stringContaining('routing.clusterEndpoints.0.endpoint: '),
      });
      noTargetCall();
      expect(ssm.calls()).toEqual([]);
    },
  );

  it.each([
    'https://host-aaaa.route53-recovery-cluster.us-west-2.amazonaws.com/v1',
    'https://host-aaaa.route53-recovery-cluster.us-west-2.amazonaws.com',
    'https://host-aaaa.route53-recovery-cluster.cn-north-1.amazonaws.com.cn/v1',
    'https://host-aaaa.route53-recovery-cluster.us-gov-west-1.amazonaws.com/v1',
  ])('accepts the cluster endpoint %s in its own region', (endpoint) => {
    const region = /cluster\.([a-z0-9-]+)\./.exec(endpoint)![1]!;
    expect(isClusterHost(new URL(endpoint), region)).toBe(true);
  });
});
