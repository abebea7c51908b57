/**
 * template.yaml keeps the contract the runtime codes against: the evaluate function's build,
 * runtime and environment (parsed by the function's own config schema), the state table's
 * keys and TTL, the kill switch, the events the schedule and the alarm rule deliver (parsed by
 * the function's own event schema), the state machine's input (built by the function's own
 * code) and the metric namespace the alarms read.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseActConfig } from '#functions/failover/act-ports.ts';
import { parseFailoverConfig } from '#functions/failover/config.ts';
import { parseForecastConfig } from '#functions/forecast/config.ts';
import { scaleTargetInput } from '#shared/apply/records.ts';
import { placeholders } from '#shared/deploy/asl.ts';
import { matchesPattern } from '#shared/deploy/event-pattern.ts';
import { parseEvent } from '#shared/events/parse.ts';
import { ALARM_PREFIX, screenOrigin, screenTick } from '#shared/events/routing.ts';
import { parseConfig } from '#shared/invocation/config.ts';
import { policyOrThrow, validatePolicy } from '#shared/policy/load.ts';
import { endpoint, fakeAws, run, Script, writtenItem } from '../statemachines/harness.ts';
import { type Loose, props, resolved, resource, template } from './load.ts';

const evaluate = props('EvaluateFunction') as Loose;
const env = evaluate.Environment.Variables as Loose;
const parameters = template.Parameters as Loose;
const json = (file: string) => JSON.parse(readFileSync(file, 'utf8'));

/** A schedule's Input as EventBridge Scheduler sends it: the stack's Fn::Sub, then its own placeholders. */
function scheduledInput(schedule: Loose, execution: string, time: string) {
  const template = String(schedule.Target.Input['Fn::Sub']);
  return JSON.parse(
    template
      .replace('${AWS::AccountId}', '123456789012')
      .replace('${AWS::Region}', 'us-east-1')
      .replace('<aws.scheduler.execution-id>', execution)
      .replace('<aws.scheduler.scheduled-time>', time)
      .replace('<aws.scheduler.schedule-arn>', 'arn:aws:scheduler:us-east-1:123456789012:schedule/default/x'),
  );
}
const HOME = { account: '123456789012', region: 'us-east-1' };

describe('the evaluate function', () => {
  it('is built by esbuild as ESM from functions/evaluate/handler.ts for nodejs24.x on arm64', () => {
    expect(resource('EvaluateFunction').Metadata).toMatchObject({
      BuildMethod: 'esbuild',
      BuildProperties: {
        Format: 'esm',
        OutExtension: ['.js=.mjs'],
        Target: 'es2024',
        EntryPoints: ['functions/evaluate/handler.ts'],
      },
    });
    expect(evaluate).toMatchObject({
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      Handler: 'handler.handler',
    });
    expect(readFileSync('functions/evaluate/handler.ts', 'utf8')).toMatch(/export const handler = middy\(/);
  });

  it('gets every variable its config schema reads, and the schema accepts them', () => {
    const resolved = Object.fromEntries(
      Object.entries(env).map(([k, v]) => [k, typeof v === 'string' ? v : `resolved-${k}`]),
    );
    const config = parseConfig({ ...resolved, GOVERNOR_MODE: 'shadow', AWS_REGION: 'us-east-1' });
    expect(config).toMatchObject({
      MAX_EVENT_AGE_SECONDS: 300,
      AUDIT_TTL_DAYS: 30,
      POLICY_CACHE_SECONDS: 60,
    });
    expect(env).toMatchObject({
      POLICY_PARAMETER_NAME: { Ref: 'PolicyParameter' },
      KILL_SWITCH_PARAMETER_NAME: { Ref: 'KillSwitchParameter' },
      STATE_TABLE_NAME: { Ref: 'StateTable' },
      SCALE_STATE_MACHINE_ARN: { Ref: 'ScaleTargetStateMachine' },
      GOVERNOR_MODE: { Ref: 'Mode' },
      POWERTOOLS_SERVICE_NAME: 'governor',
      POWERTOOLS_METRICS_NAMESPACE: 'Governor',
    });
  });

  it('starts in shadow mode unless the operator chooses active', () => {
    expect(parameters.Mode).toMatchObject({ Default: 'shadow', AllowedValues: ['shadow', 'active'] });
  });

  it('may suspend, resume and set only the managed groups, and only with a group prefix', () => {
    const statements = (props('EvaluateFunctionRole').Policies as Loose[])[0]!.PolicyDocument
      .Statement as Loose[];
    const bySid = (sid: string) => statements.find((s) => s['Fn::If']?.[1]?.Sid === sid)!['Fn::If'];
    const set = bySid('SetManagedGroupCapacity');
    const suspend = bySid('SuspendOtherScalersOnGroups');
    expect(suspend[0]).toBe('ManagesAutoScalingGroups');
    expect(suspend[1]).toMatchObject({
      Action: ['autoscaling:SuspendProcesses', 'autoscaling:ResumeProcesses'],
      Resource: set[1].Resource,
    });
    expect(suspend[2]).toEqual({ Ref: 'AWS::NoValue' });
  });
});

describe('the forecast function', () => {
  const forecast = props('ForecastFunction') as Loose;
  const forecastEnv = forecast.Environment.Variables as Loose;

  it('is built by esbuild as ESM from functions/forecast/handler.ts for nodejs24.x on arm64, one run at a time', () => {
    expect(resource('ForecastFunction').Metadata).toMatchObject({
      BuildMethod: 'esbuild',
      BuildProperties: {
        Format: 'esm',
        OutExtension: ['.js=.mjs'],
        Target: 'es2024',
        EntryPoints: ['functions/forecast/handler.ts'],
      },
    });
    expect(forecast).toMatchObject({
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      Handler: 'handler.handler',
      ReservedConcurrentExecutions: 1,
      DeadLetterQueue: { Type: 'SQS', TargetArn: { 'Fn::GetAtt': ['DeadLetterQueue', 'Arn'] } },
      LoggingConfig: { LogGroup: { Ref: 'ForecastLogGroup' } },
    });
    expect(readFileSync('functions/forecast/handler.ts', 'utf8')).toMatch(/export const handler = middy\(/);
  });

  it('gets every variable its config schema reads, the same policy and table as the evaluate function', () => {
    const resolved = Object.fromEntries(
      Object.entries(forecastEnv).map(([k, v]) => [k, typeof v === 'string' ? v : `resolved-${k}`]),
    );
    expect(
      parseForecastConfig({ ...resolved, GOVERNOR_MODE: 'active', AWS_REGION: 'us-east-1' }),
    ).toMatchObject({
      AWS_REGION: 'us-east-1',
      GOVERNOR_MODE: 'active',
    });
    expect(forecastEnv).toMatchObject({
      POLICY_PARAMETER_NAME: env.POLICY_PARAMETER_NAME,
      STATE_TABLE_NAME: env.STATE_TABLE_NAME,
      POWERTOOLS_METRICS_NAMESPACE: env.POWERTOOLS_METRICS_NAMESPACE,
      // Shadow mode and the kill switch withhold its scheduled actions and warm pools too.
      GOVERNOR_MODE: env.GOVERNOR_MODE,
      KILL_SWITCH_PARAMETER_NAME: env.KILL_SWITCH_PARAMETER_NAME,
    });
  });

  it('runs hourly on an event the function parses as a tick from its own account and region, with retries and the dead-letter queue', () => {
    const schedule = props('ForecastSchedule') as Loose;
    expect(schedule.ScheduleExpression).toBe('rate(1 hour)');
    expect(schedule.Target).toMatchObject({
      Arn: { 'Fn::GetAtt': ['ForecastFunction', 'Arn'] },
      DeadLetterConfig: { Arn: { 'Fn::GetAtt': ['DeadLetterQueue', 'Arn'] } },
    });
    const event = parseEvent(scheduledInput(schedule, 'e1', '2025-06-09T12:00:00Z'));
    expect(event).toEqual({
      kind: 'tick',
      id: 'e1',
      time: Date.parse('2025-06-09T12:00:00Z'),
      source: 'aws.scheduler',
      ...HOME,
    });
    expect(screenOrigin(event, HOME)).toBeNull();
  });

  it('is retried no longer than the function accepts a tick (MAX_TICK_AGE_SECONDS)', () => {
    const maxAge = Number(forecastEnv.MAX_TICK_AGE_SECONDS);
    expect(maxAge).toBe(600);
    expect(
      (props('ForecastSchedule') as Loose).Target.RetryPolicy.MaximumEventAgeInSeconds,
    ).toBeLessThanOrEqual(maxAge);
    expect(forecast.EventInvokeConfig.MaximumEventAgeInSeconds).toBeLessThanOrEqual(maxAge);
    expect(forecast.Timeout + 60).toBeLessThan(maxAge); // a retry after a failed run still counts
  });

  it('may write scheduled actions only on SageMaker capacity dimensions, and only with a managed prefix', () => {
    const statements = (props('ForecastFunctionRole').Policies as Loose[])[0]!.PolicyDocument
      .Statement as Loose[];
    const write = statements.find((s) => s['Fn::If']?.[1]?.Sid === 'WriteScheduledActionsOnSageMaker')!;
    expect(write['Fn::If'][0]).toBe('ManagesSageMaker');
    expect(write['Fn::If'][1].Condition).toEqual({
      StringEquals: {
        'application-autoscaling:service-namespace': 'sagemaker',
        'application-autoscaling:scalable-dimension': [
          'sagemaker:variant:DesiredInstanceCount',
          'sagemaker:inference-component:DesiredCopyCount',
        ],
        'aws:ResourceTag/governor:managed': { Ref: 'AWS::StackName' },
      },
    });
  });

  it('alarms when it fails in two consecutive hourly periods', () => {
    expect(props('ForecastErrorsAlarm')).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: 'Errors',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: 'ForecastFunction' } }],
      Period: 3600,
      EvaluationPeriods: 2,
      DatapointsToAlarm: 2,
    });
  });
});

describe('state and switches', () => {
  it('keeps state in a pay-per-request table keyed pk/sk with TTL on expiresAt, PITR and SSE', () => {
    expect(props('StateTable')).toMatchObject({
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      SSESpecification: { SSEEnabled: true },
    });
  });

  it('creates the kill switch off', () => {
    expect(props('KillSwitchParameter')).toMatchObject({ Type: 'String', Value: 'off' });
  });

  it('seeds the policy parameter with a policy the policy loader accepts', () => {
    expect(props('PolicyParameter').Value).toEqual({ Ref: 'PolicyDocument' });
    const result = validatePolicy(parse(parameters.PolicyDocument.Default));
    expect(result.ok ? [] : result.problems).toEqual([]);
  });
});

describe('the events that wake the function', () => {
  it('ticks every minute with an event the function parses as a tick from its own account and region', () => {
    // EvaluateShards at its default (1): one schedule, no shard (tests/template/shards.test.ts has 2 to 4).
    const schedule = resolved(template, {}).Resources.EvaluateSchedule.Properties as Loose;
    expect(schedule.ScheduleExpression).toBe('rate(1 minute)');
    const event = parseEvent(scheduledInput(schedule, 'd32c5kddcf5bb8c3', '2025-06-02T12:00:00Z'));
    expect(event).toEqual({
      kind: 'tick',
      id: 'd32c5kddcf5bb8c3',
      time: Date.parse('2025-06-02T12:00:00Z'),
      source: 'aws.scheduler',
      ...HOME,
    });
    expect(screenOrigin(event, HOME)).toBeNull();
    expect(screenOrigin(event, { ...HOME, account: '210987654321' })?.reason).toBe('ForeignAccount');
  });

  it('alarms when a decision record could not be written', () => {
    expect(props('AuditWriteFailuresAlarm')).toMatchObject({
      Metrics: [{ Expression: 'SELECT SUM(AuditWriteFailures) FROM SCHEMA(Governor, service)' }],
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      AlarmActions: [{ Ref: 'AlarmTopic' }],
    });
    expect(readFileSync('functions/evaluate/evaluate.ts', 'utf8')).toContain(
      "count?.('AuditWriteFailures', 1)",
    );
  });

  const pattern = (props('AlarmStateChangeRule') as Loose).EventPattern;
  it.each([
    { file: 'events/alarm-chat-llm-latency.json', delivered: true },
    { file: 'events/alarm-by-dimensions.json', delivered: true },
    { file: 'events/alarm-chat-llm-ok.json', delivered: false },
    { file: 'events/alarm-foreign.json', delivered: false },
    { file: 'events/scheduler-tick.json', delivered: false },
  ])('the alarm rule delivers $file: $delivered', ({ file, delivered }) => {
    expect(matchesPattern(pattern, json(file))).toBe(delivered);
  });

  it('matches alarm names with the prefix the function routes by', () => {
    expect(pattern.detail.alarmName).toEqual([{ prefix: ALARM_PREFIX }]);
  });

  it.each(
    Object.entries(template.Resources as Loose)
      .filter(([, r]) => r.Type === 'AWS::CloudWatch::Alarm')
      .map(([id, r]) => ({ id, name: String(r.Properties.AlarmName['Fn::Sub']) })),
  )('$id is named outside the routed prefix ($name)', ({ name }) => {
    expect(name.startsWith(ALARM_PREFIX)).toBe(false);
    expect(name).toMatch(/^GovernorControlPlane-\$\{AWS::StackName\}-/);
  });
});

describe('the scale-target state machine', () => {
  const machine = props('ScaleTargetStateMachine') as Loose;

  it('is deployed from the ASL file with the table, the kill switch and the metric namespace substituted', () => {
    expect(existsSync(machine.DefinitionUri)).toBe(true);
    expect(machine.DefinitionSubstitutions).toEqual({
      StateTableName: env.STATE_TABLE_NAME,
      KillSwitchParameterName: env.KILL_SWITCH_PARAMETER_NAME,
      MetricNamespace: env.POWERTOOLS_METRICS_NAMESPACE,
    });
    expect(machine.Logging.Destinations).toHaveLength(1);
  });

  it('runs the input the evaluate function builds, and records the outcome for its decision', async () => {
    const policy = policyOrThrow(parse(readFileSync('examples/policy.yaml', 'utf8')));
    const input = scaleTargetInput(
      policy.targets[0]!,
      '20250602T120000000Z-00c0ffee',
      3,
      1,
      '2025-06-02T12:00:00.000Z',
    );
    const aws = fakeAws({ describeEndpoint: new Script(endpoint('InService', 1), endpoint('InService', 3)) });
    const result = await run({ ...input }, aws);
    expect(result.status).toBe('SUCCEEDED');
    expect(writtenItem(aws)).toMatchObject({
      pk: `TARGET#${input.targetId}`,
      sk: `OUTCOME#${input.decisionId}`,
      status: 'applied',
    });
  });
});

describe('region failover (FailoverRegionRole)', () => {
  const FAILOVER_RESOURCES = [
    'FailoverLogGroup',
    'FailoverFunctionRole',
    'FailoverFunction',
    'FailoverSchedule',
    'FailoverActLogGroup',
    'FailoverActFunctionRole',
    'FailoverActFunction',
    'FailoverStateMachineLogGroup',
    'FailoverStateMachineRole',
    'FailoverStateMachine',
    'StandbyCapacityUnavailableAlarm',
    'FailoverFailuresAlarm',
    'FailoverErrorsAlarm',
  ];
  const standby = resolved(template, { FailoverRegionRole: 'standby' });
  const primary = resolved(template, {});
  const invokes = (t: Loose) =>
    (t.Resources.SchedulerRole.Properties.Policies[0].PolicyDocument.Statement as Loose[])
      .filter((s) => s.Action === 'lambda:InvokeFunction')
      .map((s) => s.Resource['Fn::GetAtt'][0]);

  it('creates no failover resource with the default parameters: a primary stack is the stack it was', () => {
    expect(parameters.FailoverRegionRole).toMatchObject({
      Default: 'primary',
      AllowedValues: ['primary', 'standby'],
    });
    expect(
      Object.keys(primary.Resources).filter((id) => id.includes('Failover') || id.includes('Standby')),
    ).toEqual([]);
    expect(invokes(primary)).toEqual(['EvaluateFunction', 'ForecastFunction', 'MixFunction']);
    for (const [name, output] of Object.entries(template.Outputs as Loose))
      if (name.startsWith('Failover')) expect(output.Condition, name).toBe('IsFailoverStandby');
    expect(primary.Resources.StateTable.Properties.TableName).toBeUndefined();
  });

  it('creates every failover resource in a standby stack, and lets the scheduler invoke the failover function', () => {
    for (const id of FAILOVER_RESOURCES) expect(resource(id).Condition, id).toBe('IsFailoverStandby');
    expect(Object.keys(standby.Resources)).toEqual(expect.arrayContaining(FAILOVER_RESOURCES));
    expect(invokes(standby)).toEqual([
      'EvaluateFunction',
      'ForecastFunction',
      'MixFunction',
      'FailoverFunction',
    ]);
  });

  it("leaves the state table's name to CloudFormation; a standby must name the primary's table, and reads its own region's heartbeat from its own", () => {
    expect(resource('StateTable').Properties).not.toHaveProperty('TableName');
    expect(parameters.FailoverPeerStateTableName.Default).toBe('');
    const rule = (template.Rules as Loose).StandbyNamesThePrimaryTable;
    expect(rule.RuleCondition).toEqual({ 'Fn::Equals': [{ Ref: 'FailoverRegionRole' }, 'standby'] });
    expect(rule.Assertions[0].Assert).toEqual({
      'Fn::Not': [{ 'Fn::Equals': [{ Ref: 'FailoverPeerStateTableName' }, ''] }],
    });
    const named = resolved(template, {
      FailoverRegionRole: 'standby',
      FailoverPeerStateTableName: 'primary-state',
    });
    const heartbeats = (
      named.Resources.FailoverFunctionRole.Properties.Policies[0].PolicyDocument.Statement as Loose[]
    ).find((st) => st.Sid === 'ReadMemberHeartbeats');
    expect(heartbeats?.Resource).toEqual([
      { 'Fn::Sub': 'arn:${AWS::Partition}:dynamodb:*:${AWS::AccountId}:table/primary-state' },
      { 'Fn::GetAtt': ['StateTable', 'Arn'] },
    ]);
  });

  it.each([
    { parameter: 'FailoverHostedZoneId', value: 'Z0123456789ABC', sid: 'SetWeightedRecords' },
    {
      parameter: 'FailoverRoutingControlArns',
      value: 'arn:aws:route53-recovery-control::123456789012:controlpanel/a1/routingcontrol/b2',
      sid: 'SetRoutingControls',
    },
    {
      parameter: 'FailoverEndpointGroupArns',
      value: 'arn:aws:globalaccelerator::123456789012:accelerator/a-1/listener/b2/endpoint-group/c3',
      sid: 'SetTrafficDials',
    },
  ])(
    'grants the act function its routing writes only when $parameter is given',
    ({ parameter, value, sid }) => {
      const sids = (t: Loose) =>
        (t.Resources.FailoverActFunctionRole.Properties.Policies[0].PolicyDocument.Statement as Loose[]).map(
          (s) => s.Sid,
        );
      expect(sids(standby)).not.toContain(sid);
      expect(sids(resolved(template, { FailoverRegionRole: 'standby', [parameter]: value }))).toContain(sid);
    },
  );

  it('ticks the failover function every minute with an event its own parser takes as a fresh tick from its account and region', () => {
    const schedule = props('FailoverSchedule') as Loose;
    expect(schedule.ScheduleExpression).toBe('rate(1 minute)');
    expect(schedule.Target).toMatchObject({
      Arn: { 'Fn::GetAtt': ['FailoverFunction', 'Arn'] },
      RoleArn: { 'Fn::GetAtt': ['SchedulerRole', 'Arn'] },
      DeadLetterConfig: { Arn: { 'Fn::GetAtt': ['DeadLetterQueue', 'Arn'] } },
    });
    const event = parseEvent(scheduledInput(schedule, 'f1', '2025-06-09T12:01:00Z'));
    expect(event).toEqual({
      kind: 'tick',
      id: 'f1',
      time: Date.parse('2025-06-09T12:01:00Z'),
      source: 'aws.scheduler',
      ...HOME,
    });
    expect(screenOrigin(event, HOME)).toBeNull();
    const maxAgeSeconds = Number(
      (props('FailoverFunction') as Loose).Environment.Variables.MAX_TICK_AGE_SECONDS,
    );
    expect(screenTick(event, event.time + 30_000, { maxAgeSeconds, futureSeconds: 60 })).toBeNull();
    expect(schedule.Target.RetryPolicy.MaximumEventAgeInSeconds).toBeLessThanOrEqual(maxAgeSeconds);
  });

  it.each([
    { id: 'FailoverFunction', parse: parseFailoverConfig },
    { id: 'FailoverActFunction', parse: parseActConfig },
  ])('gives $id every variable its config schema reads, and the schema accepts them', ({ id, parse }) => {
    const variables = (props(id) as Loose).Environment.Variables as Loose;
    const given = Object.fromEntries(
      Object.entries(variables).map(([k, v]) => [k, typeof v === 'string' ? v : `resolved-${k}`]),
    );
    expect(() =>
      parse({ ...given, GOVERNOR_MODE: 'shadow', FAILOVER_REGION_ROLE: 'standby', AWS_REGION: 'eu-west-1' }),
    ).not.toThrow();
    expect(variables).toMatchObject({
      POLICY_PARAMETER_NAME: env.POLICY_PARAMETER_NAME,
      KILL_SWITCH_PARAMETER_NAME: env.KILL_SWITCH_PARAMETER_NAME,
    });
  });

  it('starts the failover state machine the function is told of, in the same mode as the evaluate function', () => {
    const variables = (props('FailoverFunction') as Loose).Environment.Variables as Loose;
    expect(variables).toMatchObject({
      FAILOVER_STATE_MACHINE_ARN: { Ref: 'FailoverStateMachine' },
      STATE_TABLE_NAME: env.STATE_TABLE_NAME,
      PEER_STATE_TABLE_NAME: { Ref: 'FailoverPeerStateTableName' },
      GOVERNOR_MODE: env.GOVERNOR_MODE,
    });
  });

  it('alarms on a standby that cannot get its capacity, on failed failover executions and on a failing health evaluation', () => {
    expect(props('StandbyCapacityUnavailableAlarm')).toMatchObject({
      Metrics: [{ Expression: 'SELECT SUM(StandbyCapacityUnavailable) FROM Governor' }],
      AlarmActions: [{ Ref: 'AlarmTopic' }],
    });
    expect(readFileSync('statemachines/failover.asl.json', 'utf8')).toContain('StandbyCapacityUnavailable');
    const failures = JSON.stringify(props('FailoverFailuresAlarm'));
    for (const metric of ['ExecutionsFailed', 'ExecutionsTimedOut', 'ExecutionsAborted'])
      expect(failures).toContain(metric);
    expect(failures).toContain('{"Ref":"FailoverStateMachine"}');
    expect(props('FailoverErrorsAlarm')).toMatchObject({
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: 'FailoverFunction' } }],
    });
  });
});

describe('state machine definitions', () => {
  it.each(['ScaleTargetStateMachine', 'FailoverStateMachine'])(
    "%s's DefinitionSubstitutions fill every placeholder of its ASL, and the ASL names no ARN of the stack",
    (id) => {
      const machine = props(id) as Loose;
      const text = readFileSync(machine.DefinitionUri, 'utf8');
      expect(Object.keys(machine.DefinitionSubstitutions).sort()).toEqual([...placeholders(text)].sort());
      expect(text).not.toMatch(/arn:aws:(lambda|dynamodb|ssm|states):[a-z0-9-]+:\d{12}/);
    },
  );

  it('invokes the act function by the name CloudFormation gives it', () => {
    expect((props('FailoverStateMachine') as Loose).DefinitionSubstitutions).toMatchObject({
      FailoverActFunctionName: { Ref: 'FailoverActFunction' },
      StateTableName: env.STATE_TABLE_NAME,
      KillSwitchParameterName: env.KILL_SWITCH_PARAMETER_NAME,
      MetricNamespace: env.POWERTOOLS_METRICS_NAMESPACE,
    });
  });
});

describe('operations', () => {
  it.each([
    'EvaluateFunctionName',
    'ForecastFunctionName',
    'ScaleTargetStateMachineArn',
    'StateTableName',
    'DashboardUrl',
    'KillSwitchParameterName',
  ])('outputs %s', (name) => {
    expect(Object.keys(template.Outputs as Loose)).toContain(name);
  });

  it.each([
    'EvaluateLogGroup',
    'ForecastLogGroup',
    'ScaleTargetLogGroup',
    'FailoverLogGroup',
    'FailoverActLogGroup',
    'FailoverStateMachineLogGroup',
    'MixLogGroup',
    'SpotEventsLogGroup',
  ])('%s keeps logs for LogRetentionDays', (id) => {
    expect(props(id).RetentionInDays).toEqual({ Ref: 'LogRetentionDays' });
  });

  it('draws a dashboard whose body is valid JSON once CloudFormation substitutes it', () => {
    const body = String((props('Dashboard').DashboardBody as Loose)['Fn::Sub']).replace(/\$\{[^}]+\}/g, 'x');
    const titles = (JSON.parse(body).widgets as Loose[]).map((w) => w.properties.title).filter(Boolean);
    expect(titles).toEqual([
      'Desired capacity per target',
      'Current capacity per target',
      'Decisions by reason',
      'Action failures and capacity errors',
      'Invocation latency (ms) and successful invocations',
      'Scale-target executions',
      'Evaluate function',
      'Forecast floor and desired capacity per target',
      'Forecast demand band per target (requests per minute)',
      'Forecast function',
      'Unit cost per target (USD per 1,000 requests; planned USD per hour right)',
      'Planned mix per target (instances); budget caps and SageMaker variant fallback shifts right',
      'SLO attainment and error budget left per target (percent of the window)',
      'Burn rate per target and window (1 spends the budget over the window); headroom factor right',
    ]);
  });

  it('encrypts the dead-letter queue', () => {
    expect(props('DeadLetterQueue').SqsManagedSseEnabled).toBe(true);
  });

  it('draws the forecast band from the metrics the forecast function emits', () => {
    const body = String((props('Dashboard').DashboardBody as Loose)['Fn::Sub']);
    for (const metric of ['ForecastFloor', 'ForecastDemandP50', 'ForecastDemandP90'])
      expect(body).toContain(`SELECT MAX(${metric}) FROM SCHEMA(Governor, TargetId) GROUP BY TargetId`);
    expect(readFileSync('functions/forecast/telemetry.ts', 'utf8')).toMatch(
      /addDimension\('TargetId'[\s\S]*'ForecastFloor'[\s\S]*'ForecastDemandP50'[\s\S]*'ForecastDemandP90'/,
    );
  });
});
