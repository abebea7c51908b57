/**
 * The evaluate function wired to the real adapters over aws-sdk-client-mock: every SDK call is
 * recorded in order as "Service.Command", and a small in-memory table answers the state store's
 * Get/Update/Put with DynamoDB's conditional semantics (version checks), so replays assert the
 * exact calls an event causes.
 */
export { CONFIG, EXAMPLE_POLICY, eventFile, REPLAY_POLICY } from './support.ts';

import {
  ApplicationAutoScalingClient,
  DescribeScalableTargetsCommand,
  DescribeScalingPoliciesCommand,
} from '@aws-sdk/client-application-auto-scaling';
import {
  AutoScalingClient,
  DescribeAutoScalingGroupsCommand,
  DescribePoliciesCommand,
  type ScalingPolicy,
  SetDesiredCapacityCommand,
  SuspendProcessesCommand,
} from '@aws-sdk/client-auto-scaling';
import { CloudWatchClient, GetMetricDataCommand, type MetricDataQuery } from '@aws-sdk/client-cloudwatch';
import { DescribeEndpointCommand, SageMakerClient } from '@aws-sdk/client-sagemaker';
import { SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { GetParameterCommand, GetParametersByPathCommand, SSMClient } from '@aws-sdk/client-ssm';
import {
  BatchGetCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { MetadataBearer } from '@smithy/types';
import { type AwsStub, mockClient } from 'aws-sdk-client-mock';
import { createEvaluator, type EvaluatorDeps, type Invocation } from '#functions/evaluate/evaluate.ts';
import { ssmPolicySource } from '#functions/evaluate/policy-source.ts';
import { awsPorts } from '#functions/evaluate/ports.ts';
import { type Clients, createClients } from '#shared/aws/clients.ts';
import { parametersByPath } from './parameters-by-path.ts';
import { type CapturedTelemetry, CONFIG, captureTelemetry, REPLAY_POLICY } from './support.ts';

/** Per metric name, the value each query returns for the newest minute (undefined: no datapoint). */
export type MetricValues = Record<string, number | undefined>;

type Stub = AwsStub<object, MetadataBearer, unknown>;

const conditionFailed = () =>
  Object.assign(new Error('The conditional request failed'), { name: 'ConditionalCheckFailedException' });

/**
 * DynamoDB semantics the state store relies on: strongly consistent Get and BatchGet, conditional Update (with
 * the claim's leadTimes and slo, and the trim of leadTimesSfn by index).
 */
export function fakeTable(ddb: Stub) {
  const items = new Map<string, Record<string, unknown>>();
  const key = (k: { pk: string; sk: string }) => `${k.pk}|${k.sk}`;
  ddb.on(GetCommand).callsFake(async (input) => ({ Item: structuredClone(items.get(key(input.Key))) }));
  // BatchGetItem (the evaluator's state reads for 2 targets or more): every key processed.
  ddb.on(BatchGetCommand).callsFake(async (input) => ({
    Responses: Object.fromEntries(
      Object.entries(input.RequestItems ?? {}).map(([table, req]) => [
        table,
        ((req as { Keys: { pk: string; sk: string }[] }).Keys ?? [])
          .map((k) => items.get(key(k)))
          .filter((item) => item !== undefined)
          .map((item) => structuredClone(item)),
      ]),
    ),
    UnprocessedKeys: {},
  }));
  ddb.on(PutCommand).callsFake(async (input) => {
    items.set(key(input.Item), structuredClone(input.Item));
    return {};
  });
  ddb.on(UpdateCommand).callsFake(async (input) => {
    const v = input.ExpressionAttributeValues as Record<string, unknown>;
    const current = items.get(key(input.Key)) ?? { ...input.Key };
    const exists = current.version !== undefined;
    if (
      input.ConditionExpression === 'attribute_not_exists(#version)'
        ? exists
        : current.version !== v[':expected']
    ) {
      throw conditionFailed();
    }
    const next: Record<string, unknown> = {
      ...current,
      version: v[':next'],
      engine: v[':engine'],
      updatedAt: v[':updatedAt'],
      lastDecisionId: v[':decision'],
    };
    if (v[':pending'] === undefined) delete next.pending;
    else next.pending = v[':pending'];
    if (v[':leadTimes'] !== undefined) next.leadTimes = v[':leadTimes'];
    if (v[':slo'] !== undefined) next.slo = v[':slo'];
    // REMOVE #leadTimesSfn (whole) or #leadTimesSfn[0], #leadTimesSfn[1], ... (the oldest entries).
    const expression = String(input.UpdateExpression);
    const trimmed = [...expression.matchAll(/#leadTimesSfn\[\d+\]/g)].length;
    if (/#leadTimesSfn(?!\[)/.test(expression)) delete next.leadTimesSfn;
    else if (trimmed > 0 && Array.isArray(next.leadTimesSfn))
      next.leadTimesSfn = next.leadTimesSfn.slice(trimmed);
    items.set(key(input.Key), structuredClone(next));
    return {};
  });
  return {
    items,
    state: (targetId: string) => items.get(`TARGET#${targetId}|STATE`),
    audits: () => [...items.entries()].filter(([k]) => k.includes('|DECISION#')).map(([, v]) => v),
  };
}

/** One group target, batch-gpu-asg, scaled on GPU utilization: what the other-scaler replays use. */
export const conflictGroupPolicy = (onConflictingScaler: 'refuse' | 'suspend') => `version: 1
targets:
  - id: batch-gpu
    kind: ec2-asg
    region: us-east-1
    autoScalingGroupName: batch-gpu-asg
    scaling: { minCapacity: 1, maxCapacity: 10 }
    signals:
      - { metric: gpuUtilization, target: 70 }
    damping: { scaleOutBreaches: 1 }
    onConflictingScaler: ${onConflictingScaler}
`;

/**
 * One Auto Scaling group as EC2 Auto Scaling keeps it: SetDesiredCapacity and SuspendProcesses
 * change what the next DescribeAutoScalingGroups returns; its instances stay `ready` InService.
 */
export function fakeGroup(
  asg: Stub,
  name: string,
  init: { desired: number; ready: number; policies: ScalingPolicy[] },
) {
  const group = { desired: init.desired, suspended: new Set<string>(), policies: init.policies };
  asg.on(DescribeAutoScalingGroupsCommand).callsFake(async () => ({
    AutoScalingGroups: [
      {
        AutoScalingGroupName: name,
        DesiredCapacity: group.desired,
        Instances: Array.from({ length: init.ready }, (_, i) => ({
          InstanceId: `i-${i}`,
          LifecycleState: 'InService',
        })),
        SuspendedProcesses: [...group.suspended].map((ProcessName) => ({
          ProcessName,
          SuspensionReason: '',
        })),
      },
    ],
  }));
  asg.on(DescribePoliciesCommand).callsFake(async () => ({ ScalingPolicies: group.policies }));
  asg.on(SuspendProcessesCommand).callsFake(async (input) => {
    for (const p of input.ScalingProcesses ?? []) group.suspended.add(p);
    return {};
  });
  asg.on(SetDesiredCapacityCommand).callsFake(async (input) => {
    group.desired = input.DesiredCapacity;
    return {};
  });
  return group;
}

export interface Harness {
  evaluate: (
    raw: unknown,
    now: number,
    invocation?: Invocation,
  ) => ReturnType<ReturnType<typeof createEvaluator>>;
  /** Every SDK call since the last take, in order, as "Service.Command". */
  takeCalls: () => string[];
  mocks: {
    cw: Stub;
    sm: Stub;
    aas: Stub;
    asg: Stub;
    ddb: Stub;
    sfn: Stub;
    ssm: Stub;
  };
  table: ReturnType<typeof fakeTable>;
  telemetry: CapturedTelemetry;
  parameters: Map<string, string>;
  metricValues: MetricValues;
  /** The minute (period start) the metric datapoints are stamped with. */
  setMetricMinute: (iso: string) => void;
}

const SERVICE: [string, string][] = [
  ['cw', 'CloudWatch'],
  ['sm', 'SageMaker'],
  ['aas', 'ApplicationAutoScaling'],
  ['asg', 'AutoScaling'],
  ['ddb', 'DynamoDB'],
  ['sfn', 'StepFunctions'],
  ['ssm', 'SSM'],
];

/** One mock per client class for the whole test file (mockClient stubs the class prototype). */
const MOCKS = {
  cw: mockClient(CloudWatchClient),
  sm: mockClient(SageMakerClient),
  aas: mockClient(ApplicationAutoScalingClient),
  asg: mockClient(AutoScalingClient),
  ddb: mockClient(DynamoDBDocumentClient),
  sfn: mockClient(SFNClient),
  ssm: mockClient(SSMClient),
} as Harness['mocks'];

export function harness(
  options: {
    deps?: Partial<EvaluatorDeps>;
    endpoint?: { current: number; desired: number; status?: string };
    /** Changes the SDK clients before the ports are built (bench/tick.bench.ts adds latency). */
    clients?: (clients: Clients) => Clients;
  } = {},
): Harness {
  const mocks = MOCKS;
  for (const m of Object.values(mocks)) m.reset();
  const table = fakeTable(mocks.ddb);
  const parameters = new Map<string, string>([
    [CONFIG.POLICY_PARAMETER_NAME, REPLAY_POLICY],
    [CONFIG.KILL_SWITCH_PARAMETER_NAME, 'off'],
  ]);
  mocks.ssm.on(GetParameterCommand).callsFake(async (input) => {
    const value = parameters.get(input.Name);
    if (value === undefined) throw Object.assign(new Error('not found'), { name: 'ParameterNotFound' });
    return { Parameter: { Name: input.Name, Value: value } };
  });
  mocks.ssm.on(GetParametersByPathCommand).callsFake(async (input) => parametersByPath(parameters, input));
  const metricValues: MetricValues = {
    InvocationsPerInstance: 84,
    GPUUtilization: 70,
    ModelLatency: 1_000_000,
  };
  let minute = new Date('2025-06-02T11:59:00Z');
  mocks.cw.on(GetMetricDataCommand).callsFake(async (input) => ({
    MetricDataResults: (input.MetricDataQueries as MetricDataQuery[]).map((q) => {
      const value = metricValues[q.MetricStat!.Metric!.MetricName!];
      return value === undefined
        ? { Id: q.Id, Timestamps: [], Values: [], StatusCode: 'Complete' }
        : { Id: q.Id, Timestamps: [minute], Values: [value], StatusCode: 'Complete' };
    }),
  }));
  const endpoint = { status: 'InService', ...(options.endpoint ?? { current: 2, desired: 2 }) };
  mocks.sm.on(DescribeEndpointCommand).callsFake(async () => ({
    EndpointStatus: endpoint.status,
    ProductionVariants: [
      {
        VariantName: 'AllTraffic',
        CurrentInstanceCount: endpoint.current,
        DesiredInstanceCount: endpoint.desired,
      },
    ],
  }));
  mocks.aas.on(DescribeScalableTargetsCommand).resolves({ ScalableTargets: [] });
  mocks.aas.on(DescribeScalingPoliciesCommand).resolves({ ScalingPolicies: [] });
  mocks.sfn.on(StartExecutionCommand).callsFake(async (input) => ({
    executionArn: `${CONFIG.SCALE_STATE_MACHINE_ARN.replace(':stateMachine:', ':execution:')}:${input.name}`,
    startDate: new Date(),
  }));

  const clients = createClients({
    region: 'us-east-1',
    credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' },
  });
  const ports = awsPorts(options.clients ? options.clients(clients) : clients, CONFIG.STATE_TABLE_NAME);
  const telemetry = captureTelemetry();
  let ids = 0;
  const evaluate = createEvaluator({
    config: CONFIG,
    ports,
    telemetry,
    policy: ssmPolicySource(
      ports.parameters,
      CONFIG.POLICY_PARAMETER_NAME,
      CONFIG.POLICY_CACHE_SECONDS,
      telemetry,
    ),
    newId: () => `d${++ids}`,
    backoff: async () => {},
    ...options.deps,
  });
  let seen = 0;
  const takeCalls = () => {
    const all = SERVICE.flatMap(([k, service]) =>
      mocks[k as keyof Harness['mocks']].calls().map((c) => ({
        // sinon numbers every spy call across all stubs: the global order of the SDK calls.
        id: (c as unknown as { callId: number }).callId,
        name: `${service}.${(c.args[0] as object).constructor.name.replace(/Command$/, '')}`,
      })),
    ).sort((a, b) => a.id - b.id);
    const fresh = all.slice(seen).map((c) => c.name);
    seen = all.length;
    return fresh;
  };
  return {
    evaluate,
    takeCalls,
    mocks,
    table,
    telemetry,
    parameters,
    metricValues,
    setMetricMinute: (iso) => {
      minute = new Date(iso);
    },
  };
}
