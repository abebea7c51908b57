/**
 * A deployment of many targets in one region, answered by aws-sdk-client-mock through the
 * evaluate harness (tests/functions/harness.ts): every SDK call is recorded, so a test counts
 * the calls of one tick. The world is shaped like a forecasting deployment at scale:
 * - `variants` SageMaker variant targets, `variantsPerEndpoint` of them on each endpoint;
 * - every variant registered with Application Auto Scaling, dynamic scaling not suspended (the
 *   forecast function's scheduled actions need a registered scalable target), and one in
 *   `conflictEvery` also carrying a target-tracking policy (another scaler, refused);
 * - `groups` EC2 Auto Scaling groups, one in `conflictEvery` with its own policy.
 * The APIs page as AWS does: DescribeScalableTargets and DescribeScalingPolicies at most 50 a
 * page, DescribePolicies at most MaxRecords (100), DescribeAutoScalingGroups 50 names a call.
 */
import {
  DescribeScalableTargetsCommand,
  DescribeScalingPoliciesCommand,
  type ScalableTarget,
  type ScalingPolicy,
} from '@aws-sdk/client-application-auto-scaling';
import {
  type AutoScalingGroup,
  DescribeAutoScalingGroupsCommand,
  DescribePoliciesCommand,
  type ScalingPolicy as GroupScalingPolicy,
} from '@aws-sdk/client-auto-scaling';
import { DescribeEndpointCommand } from '@aws-sdk/client-sagemaker';
import { CONFIG, type Harness, harness } from '../functions/harness.ts';
import { POOLS } from '../mix/harness.ts';

export interface WorldSpec {
  variants: number;
  variantsPerEndpoint?: number;
  groups?: number;
  /** One target in this many has another scaler's policy on it (0: none). */
  conflictEvery?: number;
  /**
   * Failover groups: group i has v<i> (us-east-1, this region) as its standby and p<i>, a variant
   * of endpoint ep-p<i> in us-west-2, as its primary (a group's members are in different regions).
   */
  failoverGroups?: number;
  /** One group in this many has a capacityMix (0: none): its PLAN item is read with the state items. */
  mixEvery?: number;
}

export interface World {
  h: Harness;
  endpoints: number;
  /** Variant resources with a policy, and all of them (registered and scaling dynamically). */
  conflictingVariants: number;
  conflictingGroups: number;
  /** Every EC2 Auto Scaling policy in the region (the sweep reads them all). */
  groupPolicies: number;
  tick: (id: string, at: string) => unknown;
}

const page = <T>(items: T[], size: number, token: string | undefined) => {
  const start = token ? Number(token) : 0;
  const end = start + size;
  return { items: items.slice(start, end), next: end < items.length ? String(end) : undefined };
};

const variantTarget = (i: number, perEndpoint: number) => ({
  id: `v${i}`,
  kind: 'sagemaker-variant',
  region: 'us-east-1',
  endpointName: `ep-${Math.floor(i / perEndpoint)}`,
  variantName: `var-${i % perEndpoint}`,
  scaling: { minCapacity: 1, maxCapacity: 40 },
  signals: [
    { metric: 'invocationsPerInstance', target: 84 },
    { metric: 'gpuUtilization', target: 70 },
    { metric: 'p95LatencyMs', sloMs: 2000 },
  ],
});

/** A committed g5 base and spot over two pools (tests/mix/harness.ts prices), within a budget. */
const MIX = {
  pools: POOLS.slice(0, 2),
  committed: { instances: 1, instanceType: 'g5.2xlarge' },
  spot: { maxPercent: 60 },
  maxUsdPerHour: 30,
};

const groupTarget = (i: number, mixEvery = 0) => ({
  id: `g${i}`,
  kind: 'ec2-asg',
  region: 'us-east-1',
  autoScalingGroupName: `asg-${i}`,
  scaling: { minCapacity: 1, maxCapacity: 40 },
  signals: [{ metric: 'gpuUtilization', target: 70 }],
  ...(mixEvery > 0 && i % mixEvery === 0 ? { capacityMix: MIX } : {}),
});

const primaryTarget = (i: number) => ({
  ...variantTarget(0, 1),
  id: `p${i}`,
  region: 'us-west-2',
  endpointName: `ep-p${i}`,
});

const failoverGroup = (i: number) => ({
  id: `fg${i}`,
  members: [
    { targetId: `p${i}`, role: 'primary' },
    { targetId: `v${i}`, role: 'standby', warmFloor: 1 },
  ],
  routing: {
    kind: 'route53-weighted',
    hostedZoneId: 'Z0123456789ABC',
    recordName: `fg${i}.example.com`,
    setIdentifiers: { 'us-east-1': 'east', 'us-west-2': 'west' },
  },
  health: { failPeriods: 3, failWindowPeriods: 5 },
});

/** The policy text (JSON is YAML) for the world's targets. */
export function worldPolicy(spec: WorldSpec): string {
  const per = spec.variantsPerEndpoint ?? 1;
  const groups = spec.failoverGroups ?? 0;
  return JSON.stringify({
    version: 1,
    targets: [
      ...Array.from({ length: spec.variants }, (_, i) => variantTarget(i, per)),
      ...Array.from({ length: spec.groups ?? 0 }, (_, i) => groupTarget(i, spec.mixEvery)),
      ...Array.from({ length: groups }, (_, i) => primaryTarget(i)),
    ],
    ...(groups > 0
      ? { failover: { groups: Array.from({ length: groups }, (_, i) => failoverGroup(i)) } }
      : {}),
  });
}

function mockScalers(h: Harness, spec: WorldSpec) {
  const per = spec.variantsPerEndpoint ?? 1;
  const every = spec.conflictEvery ?? 0;
  const registered: ScalableTarget[] = [];
  const policies: ScalingPolicy[] = [];
  for (let i = 0; i < spec.variants; i++) {
    const ResourceId = `endpoint/ep-${Math.floor(i / per)}/variant/var-${i % per}`;
    const ScalableDimension = 'sagemaker:variant:DesiredInstanceCount' as const;
    const base = { ServiceNamespace: 'sagemaker' as const, ResourceId, ScalableDimension };
    registered.push({
      ...base,
      MinCapacity: 1,
      MaxCapacity: 40,
      RoleARN: 'arn:aws:iam::1:role/a',
      CreationTime: new Date(0),
    });
    if (every > 0 && i % every === 0)
      policies.push({
        ...base,
        PolicyName: `tt-${i}`,
        PolicyARN: `arn:p${i}`,
        PolicyType: 'TargetTrackingScaling',
        CreationTime: new Date(0),
      });
  }
  h.mocks.aas.on(DescribeScalableTargetsCommand).callsFake(async (input) => {
    const ids = new Set<string>(input.ResourceIds ?? []);
    if (ids.size > 50)
      throw Object.assign(new Error('ResourceIds: at most 50'), { name: 'ValidationException' });
    const matching = registered.filter((t) => ids.size === 0 || ids.has(t.ResourceId!));
    const p = page(matching, 50, input.NextToken);
    return { ScalableTargets: p.items, NextToken: p.next };
  });
  h.mocks.aas.on(DescribeScalingPoliciesCommand).callsFake(async (input) => {
    const matching = policies.filter(
      (p) =>
        (!input.ResourceId || p.ResourceId === input.ResourceId) &&
        (!input.ScalableDimension || p.ScalableDimension === input.ScalableDimension),
    );
    // MaxResults 1 to 10, 10 by default (Application Auto Scaling API reference).
    if ((input.MaxResults ?? 10) > 10)
      throw Object.assign(new Error('MaxResults: at most 10'), { name: 'ValidationException' });
    const p = page(matching, input.MaxResults ?? 10, input.NextToken);
    return { ScalingPolicies: p.items, NextToken: p.next };
  });
  return policies.length;
}

function mockGroups(h: Harness, spec: WorldSpec) {
  const every = spec.conflictEvery ?? 0;
  const groups: AutoScalingGroup[] = [];
  const policies: GroupScalingPolicy[] = [];
  for (let i = 0; i < (spec.groups ?? 0); i++) {
    const name = `asg-${i}`;
    groups.push({
      AutoScalingGroupName: name,
      DesiredCapacity: 2,
      Instances: [0, 1].map((n) => ({ InstanceId: `i-${i}-${n}`, LifecycleState: 'InService' }) as never),
      SuspendedProcesses: [],
    } as unknown as AutoScalingGroup);
    if (every > 0 && i % every === 0)
      policies.push({
        AutoScalingGroupName: name,
        PolicyName: `cpu-${i}`,
        PolicyType: 'TargetTrackingScaling',
        Enabled: true,
      });
  }
  h.mocks.asg.on(DescribeAutoScalingGroupsCommand).callsFake(async (input) => {
    const names = new Set<string>(input.AutoScalingGroupNames ?? []);
    if (names.size > 50) throw Object.assign(new Error('at most 50 names'), { name: 'ValidationError' });
    return { AutoScalingGroups: groups.filter((g) => names.has(g.AutoScalingGroupName!)) };
  });
  h.mocks.asg.on(DescribePoliciesCommand).callsFake(async (input) => {
    const matching = policies.filter(
      (p) => !input.AutoScalingGroupName || p.AutoScalingGroupName === input.AutoScalingGroupName,
    );
    const p = page(matching, Math.min(input.MaxRecords ?? 50, 100), input.NextToken);
    return { ScalingPolicies: p.items, NextToken: p.next };
  });
  return policies.length;
}

/** Every endpoint answers with all its variants at 2 instances, InService. */
function mockEndpoints(h: Harness, per: number) {
  h.mocks.sm.on(DescribeEndpointCommand).callsFake(async () => ({
    EndpointStatus: 'InService',
    ProductionVariants: Array.from({ length: per }, (_, v) => ({
      VariantName: `var-${v}`,
      CurrentInstanceCount: 2,
      DesiredInstanceCount: 2,
    })),
  }));
}

export function world(spec: WorldSpec, deps: Parameters<typeof harness>[0] = {}): World {
  const h = harness(deps);
  const per = spec.variantsPerEndpoint ?? 1;
  h.parameters.set(CONFIG.POLICY_PARAMETER_NAME, worldPolicy(spec));
  // Within every band: a calm tick (84 a minute per instance, GPU 70 %, p95 1 s).
  h.metricValues.nvidia_smi_utilization_gpu = 70;
  mockEndpoints(h, per);
  const variantPolicies = mockScalers(h, spec);
  const groupPolicies = mockGroups(h, spec);
  return {
    h,
    endpoints: Math.ceil(spec.variants / per),
    conflictingVariants: variantPolicies,
    conflictingGroups: groupPolicies,
    groupPolicies,
    tick: (id, at) => ({
      'detail-type': 'Scheduled Event',
      source: 'aws.scheduler',
      account: '123456789012',
      region: 'us-east-1',
      id,
      time: at,
      detail: {},
    }),
  };
}

export { countCalls } from './count.ts';
