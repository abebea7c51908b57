/**
 * Event replays of the failover health evaluation (functions/failover/run.ts) through the real
 * AWS adapters, with every SDK client mocked (aws-sdk-client-mock): a primary failing starts a
 * failover execution; the kill switch, shadow mode, a foreign event, missing data and a duplicate
 * execution change nothing.
 */
import { readFileSync } from 'node:fs';
import { AutoScalingClient } from '@aws-sdk/client-auto-scaling';
import { CloudWatchClient, GetMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ListResourceRecordSetsCommand, Route53Client } from '@aws-sdk/client-route-53';
import { DescribeEndpointCommand, SageMakerClient } from '@aws-sdk/client-sagemaker';
import { ExecutionAlreadyExists, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import {
  GetParameterCommand,
  GetParametersByPathCommand,
  GetParametersCommand,
  SSMClient,
} from '@aws-sdk/client-ssm';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { parseFailoverConfig } from '#functions/failover/config.ts';
import { awsFailoverPorts } from '#functions/failover/ports.ts';
import { createFailoverEvaluator, type FailoverTelemetry } from '#functions/failover/run.ts';
import { createClients } from '#shared/aws/clients.ts';
import { resolveFailoverGroups } from '#shared/failover/group.ts';
import { initialFailoverState } from '#shared/failover/plan.ts';
import { policyOrThrow } from '#shared/policy/load.ts';
import { chatGroup, chatTargets, weightedRecords } from './failover-group.ts';

const TICK = JSON.parse(readFileSync('events/failover-tick.json', 'utf8'));
const FOREIGN = JSON.parse(readFileSync('events/failover-foreign.json', 'utf8'));
const NOW = Date.parse(TICK.time) + 5_000;
const MIN = 60_000;

const POLICY = {
  version: 1,
  targets: chatTargets(),
  failover: { groups: [chatGroup({ failPeriods: 3, failWindowPeriods: 5, p95LatencyMs: 1500 })] },
};
const GROUP = resolveFailoverGroups(policyOrThrow(POLICY))[0]!;
const YAML = JSON.stringify(POLICY); // YAML is a superset of JSON

const ssm = mockClient(SSMClient);
const cw = mockClient(CloudWatchClient);
const sm = mockClient(SageMakerClient);
mockClient(AutoScalingClient);
const sfn = mockClient(SFNClient);
const ddb = mockClient(DynamoDBDocumentClient);
mockClient(DynamoDBClient);
// The routing as it is (the reconciliation reads it every evaluation): 100/0, the planner's intent.
const r53 = mockClient(Route53Client);
const recordSets = weightedRecords;

/** The primary's state: failing for 2 periods before this one (a third breach fails it). */
const failingState = () => ({
  ...initialFailoverState(GROUP),
  health: {
    'us-east-1': [
      [NOW - 4 * MIN - (NOW % MIN), 'ok'],
      [NOW - 3 * MIN - (NOW % MIN), 'ok'],
      [NOW - 2 * MIN - (NOW % MIN), 'breach'],
      [NOW - 1 * MIN - (NOW % MIN), 'breach'],
    ],
    'us-west-2': [1, 2, 3, 4].map((k) => [NOW - k * MIN - (NOW % MIN), 'ok']).reverse(),
  },
});

function world(
  opts: { kill?: string; metrics?: 'ok' | 'missing'; stored?: Record<string, unknown> | undefined } = {},
) {
  for (const m of [ssm, cw, sm, sfn, ddb, r53]) m.reset();
  r53.on(ListResourceRecordSetsCommand).resolves(recordSets(100, 0));
  ssm.on(GetParameterCommand).resolves({ Parameter: { Name: '/governor/policy', Value: YAML } });
  ssm.on(GetParametersByPathCommand).resolves({ Parameters: [] });
  ssm
    .on(GetParametersCommand)
    .resolves({ Parameters: [{ Name: '/governor/kill-switch', Value: opts.kill ?? 'off' }] });
  ssm.on(GetParameterCommand, { Name: '/governor/kill-switch' }).resolves({
    Parameter: { Name: '/governor/kill-switch', Value: opts.kill ?? 'off' },
  });
  const minute = new Date(Math.floor(NOW / MIN) * MIN - MIN);
  cw.on(GetMetricDataCommand).callsFake(
    (input: {
      MetricDataQueries: {
        Id: string;
        MetricStat: { Metric: { MetricName: string; Dimensions: { Value: string }[] } };
      }[];
    }) => ({
      MetricDataResults:
        opts.metrics === 'missing'
          ? []
          : input.MetricDataQueries.map((q) => {
              const east = q.MetricStat.Metric.Dimensions.some((d) => d.Value === 'chat-east');
              const name = q.MetricStat.Metric.MetricName;
              const value =
                name === 'Invocations'
                  ? 1000
                  : name === 'Invocation5XXErrors'
                    ? east
                      ? 300
                      : 1
                    : name === 'ModelLatency'
                      ? 400_000
                      : 0;
              return { Id: q.Id, Timestamps: [minute], Values: [value], StatusCode: 'Complete' };
            }),
    }),
  );
  sm.on(DescribeEndpointCommand).callsFake((input: { EndpointName: string }) => ({
    EndpointName: input.EndpointName,
    EndpointStatus: 'InService',
    ProductionVariants: [
      {
        VariantName: 'AllTraffic',
        CurrentInstanceCount: input.EndpointName === 'chat-east' ? 8 : 1,
        DesiredInstanceCount: input.EndpointName === 'chat-east' ? 8 : 1,
      },
    ],
  }));
  ddb
    .on(GetCommand)
    .callsFake((input: { Key: { pk: string } }) =>
      input.Key.pk.startsWith('FAILOVER#')
        ? { Item: 'stored' in opts ? opts.stored : { state: failingState(), version: 7, mode: 'active' } }
        : { Item: { updatedAt: new Date(NOW - 30_000).toISOString() } },
    );
  ddb.on(PutCommand).resolves({});
  sfn
    .on(StartExecutionCommand)
    .resolves({ executionArn: 'arn:aws:states:us-west-2:123456789012:execution:f:x' });
}

function evaluator(env: Record<string, string> = {}, telemetry?: FailoverTelemetry) {
  const config = parseFailoverConfig({
    POLICY_PARAMETER_NAME: '/governor/policy',
    STATE_TABLE_NAME: 'standby-state',
    PEER_STATE_TABLE_NAME: 'primary-state',
    KILL_SWITCH_PARAMETER_NAME: '/governor/kill-switch',
    FAILOVER_STATE_MACHINE_ARN: 'arn:aws:states:us-west-2:123456789012:stateMachine:governor-failover',
    GOVERNOR_MODE: 'active',
    AWS_REGION: 'us-west-2',
    ...env,
  });
  const options = {
    region: 'us-west-2',
    credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'test' },
    maxAttempts: 1,
  };
  const clients = createClients(options);
  return createFailoverEvaluator({
    config,
    ports: awsFailoverPorts(
      clients,
      () => clients.home.dynamo,
      'standby-state',
      'primary-state',
      'us-west-2',
      options,
    ),
    telemetry: telemetry ?? { info: () => {}, error: () => {}, decision: () => {} },
    random: () => 0.5,
  });
}

const records = () =>
  ddb
    .commandCalls(PutCommand)
    .map((c) => c.args[0].input.Item as Record<string, unknown>)
    .filter((i) => String(i.sk).startsWith('DECISION#'));
const stateWrites = () =>
  ddb
    .commandCalls(PutCommand)
    .map((c) => c.args[0].input)
    .filter((i) => i.Item?.sk === 'STATE');

describe('the health evaluation', () => {
  beforeEach(() => world());

  it("reads each region's heartbeat from that region's stack: its own from its own table, the primary's from the peer table", async () => {
    await evaluator()(TICK, NOW, { account: '123456789012' });
    const beats = ddb
      .commandCalls(GetCommand)
      .map((c) => c.args[0].input)
      .filter((i) => String(i.Key?.pk).startsWith('TARGET#'))
      .map((i) => [i.Key?.pk, i.TableName]);
    expect(beats).toEqual(
      expect.arrayContaining([
        ['TARGET#chat-east', 'primary-state'],
        ['TARGET#chat-west', 'standby-state'],
      ]),
    );
  });

  it('starts the failover state machine with the prescale when the primary fails, named by the decision id', async () => {
    const report = await evaluator()(TICK, NOW, { account: '123456789012' });
    expect(report.groups).toMatchObject([{ groupId: 'chat', outcome: 'started', phase: 'prescaling' }]);
    const start = sfn.commandCalls(StartExecutionCommand)[0]!.args[0].input;
    expect(start.name).toBe(report.groups[0]!.decisionId);
    const input = JSON.parse(start.input!);
    expect(input.prescale).toEqual([
      expect.objectContaining({
        targetId: 'chat-west',
        region: 'us-west-2',
        target: expect.objectContaining({ kind: 'sagemaker-variant' }),
      }),
    ]);
    expect(input.steps).toEqual([]);
    expect(input.killSwitchValue).toBe('off');
    expect(records()).toEqual([
      expect.objectContaining({ outcome: 'started', reasons: expect.arrayContaining(['FailoverStarted']) }),
    ]);
    expect(stateWrites()[0]).toMatchObject({
      ConditionExpression: '#version = :expected',
      ExpressionAttributeValues: { ':expected': 7 },
    });
  });

  it('under the kill switch records killed, starts nothing and keeps the phase and weights', async () => {
    world({ kill: 'on' });
    const report = await evaluator()(TICK, NOW, { account: '123456789012' });
    expect(report.groups[0]!.outcome).toBe('killed');
    expect(sfn.commandCalls(StartExecutionCommand)).toEqual([]);
    expect((stateWrites()[0]!.Item!.state as { phase: string }).phase).toBe('steady');
  });

  it('in shadow mode records the decision and starts nothing', async () => {
    const report = await evaluator({ GOVERNOR_MODE: 'shadow' })(TICK, NOW, { account: '123456789012' });
    expect(report.groups[0]).toMatchObject({ outcome: 'shadow', phase: 'prescaling' });
    expect(sfn.commandCalls(StartExecutionCommand)).toEqual([]);
    expect(ssm.commandCalls(GetParametersCommand)).toEqual([]);
  });

  it('refuses a foreign event with no AWS call', async () => {
    const report = await evaluator()(FOREIGN, NOW, { account: '123456789012' });
    expect(report.ignored?.reason).toBe('ForeignSource');
    expect(ddb.calls()).toEqual([]);
    expect(cw.calls()).toEqual([]);
  });

  it('reads missing metrics as unknown, never failed: no failover starts', async () => {
    world({
      metrics: 'missing',
      stored: { state: { ...failingState(), health: {} }, version: 1, mode: 'active' },
    });
    const report = await evaluator()(TICK, NOW, { account: '123456789012' });
    expect(report.groups[0]!.phase).toBe('steady');
    expect(sfn.commandCalls(StartExecutionCommand)).toEqual([]);
    const health = records()[0]!.health as Record<string, { status: string }>;
    expect(health['us-east-1']!.status).toBe('unknown');
  });

  it('records a duplicate when an execution of the decision already exists', async () => {
    sfn.on(StartExecutionCommand).rejects(new ExecutionAlreadyExists({ message: 'exists', $metadata: {} }));
    const report = await evaluator()(TICK, NOW, { account: '123456789012' });
    expect(report.groups[0]!.outcome).toBe('duplicate');
    expect(records()[0]!.outcome).toBe('duplicate');
  });

  it('refuses a tick already applied to the group', async () => {
    world({ stored: { state: failingState(), version: 7, mode: 'active', lastEventId: TICK.id } });
    const report = await evaluator()(TICK, NOW, { account: '123456789012' });
    expect(report.groups[0]!.outcome).toBe('duplicate');
    expect(sfn.commandCalls(StartExecutionCommand)).toEqual([]);
  });

  it('records superseded and starts nothing when another run wrote the state first', async () => {
    ddb
      .on(PutCommand, { ConditionExpression: '#version = :expected' })
      .rejects(Object.assign(new Error('conditional'), { name: 'ConditionalCheckFailedException' }));
    const report = await evaluator()(TICK, NOW, { account: '123456789012' });
    expect(report.groups[0]!.outcome).toBe('superseded');
    expect(sfn.commandCalls(StartExecutionCommand)).toEqual([]);
  });
});

describe("the stack's routing grants, held against the policy every run (issue 18)", () => {
  beforeEach(() => world());
  const GRANTS = {
    FAILOVER_HOSTED_ZONE_ID: 'Z0123456789ABC',
    FAILOVER_RECORD_NAMES: 'chat.example.com',
    FAILOVER_RECORD_TYPES: 'A',
    FAILOVER_ROUTING_CONTROL_ARNS: '',
    FAILOVER_ENDPOINT_GROUP_ARNS: '',
  };
  const run = async (env: Record<string, string>) => {
    const errors: string[] = [];
    const metrics: [string, number][] = [];
    const report = await evaluator(env, {
      info: () => {},
      error: (m) => void errors.push(m),
      decision: () => {},
      grantMismatch: (g, n) => void metrics.push([g, n]),
    })(TICK, NOW, { account: '123456789012' });
    return { report, errors, metrics };
  };

  it('grants that cover the group: no line, RoutingGrantMismatch 0, and the run goes on', async () => {
    const { report, errors, metrics } = await run(GRANTS);
    expect(errors).toEqual([]);
    expect(metrics).toEqual([['chat', 0]]);
    expect(report.groups[0]!.outcome).toBe('started');
  });

  it('a record name the stack does not grant: one line naming the group, the field, the parameter and the fix, and the metric; the run still evaluates', async () => {
    const { report, errors, metrics } = await run({ ...GRANTS, FAILOVER_RECORD_NAMES: 'api.example.com' });
    expect(errors).toEqual([
      "RoutingGrantMismatch: group chat: routing.recordName chat.example.com (as IAM compares it, chat.example.com) is not in the stack's FailoverRecordNames (api.example.com): its route steps would be AccessDenied; add chat.example.com to FailoverRecordNames",
    ]);
    expect(metrics).toEqual([['chat', 1]]);
    expect(report.groups[0]!.outcome).toBe('started');
  });

  it('a stack deployed without the parameters (empty): the zone and the name are reported', async () => {
    const { metrics, errors } = await run({
      ...GRANTS,
      FAILOVER_HOSTED_ZONE_ID: '',
      FAILOVER_RECORD_NAMES: '',
    });
    expect(metrics).toEqual([['chat', 2]]);
    expect(errors[0]).toMatch(
      /routing\.hostedZoneId Z0123456789ABC is not the stack's FailoverHostedZoneId \(empty\)/,
    );
  });

  it('a function not told its grants (no variables) checks nothing', async () => {
    const { errors, metrics } = await run({});
    expect([errors, metrics]).toEqual([[], [['chat', 0]]]);
  });
});
