/**
 * template.yaml keeps the capacity mix's contract: the mix function (its build, environment parsed
 * by its own config schema, the 5-minute tick its runner accepts, its grants: MIX# items only,
 * group writes on the managed prefix, launches only from launch templates tagged
 * governor:managed), the spot-events function and its event path (three EventBridge rules whose
 * patterns let the interruption fixtures through, a queue only they may send to, a dead-letter
 * queue, an event source mapping that reports batch item failures), and the alarms and dashboard
 * reading the metrics those functions emit.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseMixConfig } from '#functions/mix/config.ts';
import { planFigures } from '#functions/mix/telemetry.ts';
import { parseSpotEventsConfig } from '#functions/spot-events/config.ts';
import { matchesPattern } from '#shared/deploy/event-pattern.ts';
import { identityStatements } from '#shared/deploy/iam.ts';
import { checkWriteScopes } from '#shared/deploy/iam-scopes.ts';
import { parseEvent } from '#shared/events/parse.ts';
import { screenOrigin, screenTick } from '#shared/events/routing.ts';
import { changed, type Loose, props, resolved, resource, template } from './load.ts';

const fixture = (name: string): Loose =>
  JSON.parse(readFileSync(`tests/interruptions/fixtures/${name}.json`, 'utf8'));

/** Env values as a deployed function sees them (default parameters; a resource's Ref is its name). */
const envOf = (id: string) =>
  Object.fromEntries(
    Object.entries(
      resolved(template, { ManagedAutoScalingGroupPrefix: 'gpu-' }).Resources[id].Properties.Environment
        .Variables as Loose,
    ).map(([k, v]) => [k, typeof v === 'string' ? v : `${k.toLowerCase()}-of-the-stack`]),
  );

const statementsOf = (role: string, t: Loose = template) =>
  identityStatements(t as never).filter((s) => s.principal === role);
const withAction = (role: string, action: string) =>
  statementsOf(role).filter((s) => s.actions.includes(action));
const managed = resolved(template, { ManagedAutoScalingGroupPrefix: 'gpu-' });
const unmanaged = resolved(template, {});

describe('the mix function', () => {
  it('is built by esbuild as ESM from functions/mix/handler.ts for nodejs24.x on arm64, one run at a time', () => {
    const fn = resource('MixFunction') as Loose;
    expect(fn.Metadata.BuildProperties.EntryPoints).toEqual(['functions/mix/handler.ts']);
    expect(fn.Properties).toMatchObject({
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      Handler: 'handler.handler',
      ReservedConcurrentExecutions: 1,
    });
  });

  it('gets every variable its config schema reads, the same policy, switch and table as the evaluate function', () => {
    const env = props('MixFunction').Environment as Loose;
    const vars = env.Variables as Loose;
    expect(vars).toMatchObject({
      POLICY_PARAMETER_NAME: { Ref: 'PolicyParameter' },
      STATE_TABLE_NAME: { Ref: 'StateTable' },
      KILL_SWITCH_PARAMETER_NAME: { Ref: 'KillSwitchParameter' },
      GOVERNOR_MODE: { Ref: 'Mode' },
    });
    const config = parseMixConfig(envOf('MixFunction'));
    expect([config.MAX_TICK_AGE_SECONDS, config.AUDIT_TTL_DAYS]).toEqual([300, 30]);
  });

  it('runs every 5 minutes on an event its runner accepts as a fresh tick from its own account and region, retried no longer than it accepts one', () => {
    const schedule = props('MixSchedule') as Loose;
    expect(schedule.ScheduleExpression).toBe('rate(5 minutes)');
    expect(schedule.Target.Arn).toEqual({ 'Fn::GetAtt': ['MixFunction', 'Arn'] });
    const input = String(schedule.Target.Input['Fn::Sub'])
      .replace('${AWS::AccountId}', '123456789012')
      .replace('${AWS::Region}', 'us-east-1')
      .replace('<aws.scheduler.execution-id>', 'e1')
      .replace('<aws.scheduler.scheduled-time>', '2026-01-05T12:00:00Z')
      .replace('<aws.scheduler.schedule-arn>', 'arn:aws:scheduler:us-east-1:123456789012:schedule/default/x');
    const event = parseEvent(JSON.parse(input));
    const now = Date.parse('2026-01-05T12:00:05Z');
    const max = parseMixConfig(envOf('MixFunction')).MAX_TICK_AGE_SECONDS;
    expect(screenOrigin(event, { account: '123456789012', region: 'us-east-1' })).toBeNull();
    expect(screenTick(event, now, { maxAgeSeconds: max, futureSeconds: 60 })).toBeNull();
    expect(schedule.Target.RetryPolicy.MaximumEventAgeInSeconds).toBeLessThanOrEqual(max);
    expect((props('MixFunction').EventInvokeConfig as Loose).MaximumEventAgeInSeconds).toBeLessThanOrEqual(
      max,
    );
  });

  it('reads TARGET#, MIX# and COMMIT# items (the commitments read) and writes only MIX# items (its plans and records)', () => {
    expect(
      statementsOf('MixFunctionRole')
        .filter((s) => s.actions.some((a) => a.startsWith('dynamodb:')))
        .map((s) => [s.actions, s.condition]),
    ).toEqual([
      [
        ['dynamodb:GetItem', 'dynamodb:BatchGetItem'],
        { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['TARGET#*', 'MIX#*', 'COMMIT#*'] } },
      ],
      [['dynamodb:PutItem'], { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['MIX#*'] } }],
    ]);
  });

  it.each(['MixFunctionRole', 'SpotEventsFunctionRole'])(
    '%s may update only the managed groups, and launch only from launch templates tagged governor:managed=<stack>',
    (role) => {
      const prefix = {
        'Fn::Sub':
          'arn:${AWS::Partition}:autoscaling:*:${AWS::AccountId}:autoScalingGroup:*:autoScalingGroupName/${ManagedAutoScalingGroupPrefix}*',
      };
      expect(withAction(role, 'autoscaling:UpdateAutoScalingGroup').map((s) => s.resources)).toEqual([
        [prefix],
      ]);
      const launches = withAction(role, 'ec2:RunInstances');
      expect(launches.map((s) => s.condition)).toEqual([
        { StringEquals: { 'aws:ResourceTag/governor:managed': { Ref: 'AWS::StackName' } } },
        {
          ArnLike: {
            'ec2:LaunchTemplate': {
              'Fn::Sub': 'arn:${AWS::Partition}:ec2:*:${AWS::AccountId}:launch-template/*',
            },
          },
        },
      ]);
      expect(withAction(role, 'iam:PassRole').map((s) => [s.resources, s.condition])).toEqual([
        [
          [{ 'Fn::Sub': 'arn:${AWS::Partition}:iam::${AWS::AccountId}:role/${ManagedInstanceRolePrefix}*' }],
          { StringEquals: { 'iam:PassedToService': 'ec2.amazonaws.com' } },
        ],
      ]);
    },
  );

  it('reads and weights only the managed endpoints (the variant fallback), and nothing of SageMaker without an endpoint prefix', () => {
    const scope = (kind: string) => ({
      'Fn::Sub': `arn:\${AWS::Partition}:sagemaker:*:\${AWS::AccountId}:${kind}/\${ManagedEndpointPrefix}*`,
    });
    for (const action of [
      'sagemaker:DescribeEndpoint',
      'sagemaker:DescribeEndpointConfig',
      'sagemaker:UpdateEndpointWeightsAndCapacities',
    ])
      expect(withAction('MixFunctionRole', action).map((s) => s.resources)).toEqual([
        [scope('endpoint'), scope('endpoint-config')],
      ]);
    const sageMaker = statementsOf('MixFunctionRole', unmanaged).flatMap((s) =>
      s.actions.filter((a) => a.startsWith('sagemaker:')),
    );
    expect(sageMaker).toEqual([]);
  });

  it('grants no group write, no launch and no role without a managed group prefix, and no PassRole without a role prefix', () => {
    const actions = (t: Loose, role: string) =>
      statementsOf(role, t).flatMap((s) => s.actions.filter((a) => !a.startsWith('dynamodb:')));
    expect(actions(unmanaged, 'MixFunctionRole').filter((a) => /autoscaling|ec2:|iam:/.test(a))).toEqual([]);
    expect(actions(managed, 'MixFunctionRole')).not.toContain('iam:PassRole');
    const withRoles = resolved(template, {
      ManagedAutoScalingGroupPrefix: 'gpu-',
      ManagedInstanceRolePrefix: 'gpu-',
    });
    expect(actions(withRoles, 'MixFunctionRole')).toContain('iam:PassRole');
  });
});

describe('the spot-events path', () => {
  const SPOT_RESOURCES = [
    'SpotEventsDeadLetterQueue',
    'SpotEventsQueue',
    'SpotEventsQueuePolicy',
    'SpotInterruptionRule',
    'SpotLaunchFailureRule',
    'SpotHealthRule',
    'SpotEventsLogGroup',
    'SpotEventsFunctionRole',
    'SpotEventsFunction',
    'SpotEventsSource',
    'SpotBreakerOpenedAlarm',
    'SpotEventsDeadLettersAlarm',
    'RetirementsOverdueAlarm',
  ];

  it('exists only when Governor manages Auto Scaling groups', () => {
    for (const id of SPOT_RESOURCES) expect(resource(id).Condition, id).toBe('ManagesAutoScalingGroups');
    expect(Object.keys(managed.Resources)).toEqual(expect.arrayContaining(SPOT_RESOURCES));
    expect(
      Object.keys(unmanaged.Resources).filter((id) => id.startsWith('Spot') || id.startsWith('Retirements')),
    ).toEqual([]);
  });

  it('gets every variable its config schema reads', () => {
    expect(resource('SpotEventsFunction').Metadata).toMatchObject({
      BuildProperties: { EntryPoints: ['functions/spot-events/handler.ts'] },
    });
    expect(parseSpotEventsConfig(envOf('SpotEventsFunction')).POLICY_CACHE_SECONDS).toBe(60);
  });

  it.each([
    { fixture: 'spot-interruption-warning', rule: 'SpotInterruptionRule' },
    { fixture: 'rebalance-recommendation', rule: 'SpotInterruptionRule' },
    { fixture: 'launch-unsuccessful-spot', rule: 'SpotLaunchFailureRule' },
    { fixture: 'health-retirement', rule: 'SpotHealthRule' },
  ])('lets $fixture through $rule alone', ({ fixture: name, rule }) => {
    const rules = ['SpotInterruptionRule', 'SpotLaunchFailureRule', 'SpotHealthRule'];
    const matching = rules.filter((id) =>
      matchesPattern(managed.Resources[id].Properties.EventPattern, fixture(name)),
    );
    expect(matching).toEqual([rule]);
  });

  it("keeps another group's failed launch out (the managed prefix), and sends every rule to the queue", () => {
    const other = { ...fixture('launch-unsuccessful-spot') };
    other.detail = { ...other.detail, AutoScalingGroupName: 'web-asg' };
    expect(matchesPattern(managed.Resources.SpotLaunchFailureRule.Properties.EventPattern, other)).toBe(
      false,
    );
    for (const id of ['SpotInterruptionRule', 'SpotLaunchFailureRule', 'SpotHealthRule'])
      expect(props(id).Targets).toEqual([
        { Id: 'spot-events', Arn: { 'Fn::GetAtt': ['SpotEventsQueue', 'Arn'] } },
      ]);
  });

  it('lets only the three rules send to the queue, each named by aws:SourceArn', () => {
    const [statement] = (props('SpotEventsQueuePolicy').PolicyDocument as Loose).Statement as Loose[];
    expect(statement).toMatchObject({
      Principal: { Service: 'events.amazonaws.com' },
      Action: 'sqs:SendMessage',
      Condition: {
        ArnEquals: {
          'aws:SourceArn': ['SpotInterruptionRule', 'SpotLaunchFailureRule', 'SpotHealthRule'].map((id) => ({
            'Fn::GetAtt': [id, 'Arn'],
          })),
        },
      },
    });
  });

  it('polls in batches of 100 reporting failed items, redrives after 5 receives, and hides a message 6 x the timeout', () => {
    expect(props('SpotEventsSource')).toMatchObject({
      EventSourceArn: { 'Fn::GetAtt': ['SpotEventsQueue', 'Arn'] },
      FunctionName: { Ref: 'SpotEventsFunction' },
      BatchSize: 100,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: 2 },
    });
    const queue = props('SpotEventsQueue') as Loose;
    expect(queue.RedrivePolicy).toEqual({
      deadLetterTargetArn: { 'Fn::GetAtt': ['SpotEventsDeadLetterQueue', 'Arn'] },
      maxReceiveCount: 5,
    });
    expect(queue.VisibilityTimeout).toBeGreaterThanOrEqual(6 * Number(props('SpotEventsFunction').Timeout));
    expect([queue.SqsManagedSseEnabled, props('SpotEventsDeadLetterQueue').SqsManagedSseEnabled]).toEqual([
      true,
      true,
    ]);
  });

  it('lets the function keep only MIX# items and read only the queue it polls', () => {
    expect(withAction('SpotEventsFunctionRole', 'dynamodb:PutItem').map((s) => s.condition)).toEqual([
      { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['MIX#*'] } },
    ]);
    expect(withAction('SpotEventsFunctionRole', 'sqs:ReceiveMessage').map((s) => s.resources)).toEqual([
      [{ 'Fn::GetAtt': ['SpotEventsQueue', 'Arn'] }],
    ]);
  });
});

describe('the alarms and the dashboard of the capacity mix', () => {
  const alarm = (id: string) => (props(id).Metrics as Loose[])[0]!.Expression as string;

  it('alarms when a plan is capped by its budget in two runs in a row, on the metric the mix function emits per target', () => {
    expect(alarm('BudgetCappedAlarm')).toBe('SELECT MAX(BudgetCapped) FROM SCHEMA(Governor, TargetId)');
    expect(props('BudgetCappedAlarm')).toMatchObject({
      EvaluationPeriods: 2,
      DatapointsToAlarm: 2,
      Threshold: 1,
    });
    expect(String(props('BudgetCappedAlarm').AlarmDescription)).toMatch(/^The SLO is now at risk for money/);
    expect(readFileSync('functions/mix/telemetry.ts', 'utf8')).toMatch(/addDimension\('TargetId'/);
  });

  it('alarms on the spot breaker with the metric and dimension the spot-events function emits', () => {
    expect(alarm('SpotBreakerOpenedAlarm')).toBe(
      'SELECT SUM(SpotBreakerOpened) FROM SCHEMA(Governor, service)',
    );
    expect(readFileSync('functions/spot-events/telemetry.ts', 'utf8')).toMatch(
      /SERVICE_DIMENSION = \{ service: 'governor' \}/,
    );
  });

  it('alarms on retirements overdue with the metric the mix function emits every run, [service] = governor', async () => {
    expect(alarm('RetirementsOverdueAlarm')).toBe(
      'SELECT SUM(RetirementsOverdue) FROM SCHEMA(Governor, service)',
    );
    expect(props('RetirementsOverdueAlarm')).toMatchObject({
      Threshold: 1,
      TreatMissingData: 'notBreaching',
    });
    const lines: string[] = [];
    const write = process.stdout.write;
    process.stdout.write = ((chunk: string) => lines.push(String(chunk)) > 0) as typeof write;
    try {
      const { Logger } = await import('@aws-lambda-powertools/logger');
      const { Metrics } = await import('@aws-lambda-powertools/metrics');
      const { powertoolsMixTelemetry } = await import('#functions/mix/telemetry.ts');
      powertoolsMixTelemetry(new Logger(), new Metrics({ namespace: 'Governor' })).count?.(
        'RetirementsOverdue',
        2,
      );
    } finally {
      process.stdout.write = write;
    }
    const emf = JSON.parse(lines.join('').trim().split('\n').at(-1)!);
    expect(emf._aws.CloudWatchMetrics[0]).toMatchObject({ Namespace: 'Governor', Dimensions: [['service']] });
    expect([emf.service, emf.RetirementsOverdue]).toEqual(['governor', 2]);
  });

  it('sends both, and the mix function errors, to the alarm topic', () => {
    for (const id of [
      'BudgetCappedAlarm',
      'SpotBreakerOpenedAlarm',
      'MixErrorsAlarm',
      'RetirementsOverdueAlarm',
    ])
      expect(props(id).AlarmActions).toEqual([{ Ref: 'AlarmTopic' }]);
  });

  it('draws unit cost and the planned mix from every metric the mix function emits', () => {
    const body = String((props('Dashboard').DashboardBody as Loose)['Fn::Sub']);
    const names = Object.keys(
      planFigures({
        plan: { usdPerHour: 1, spot: 1, onDemand: 1, shapedBy: [] },
        costPer1kRequestsUsd: 1,
      } as never),
    );
    expect(names.sort()).toEqual(
      [
        'BudgetCapped',
        'CostPer1kRequestsUsd',
        'PlannedOnDemandInstances',
        'PlannedSpotInstances',
        'PlannedUsdPerHour',
      ].sort(),
    );
    for (const metric of names)
      expect(body).toContain(`SELECT MAX(${metric}) FROM SCHEMA(Governor, TargetId) GROUP BY TargetId`);
  });
});

describe('the launch rule catches what it names', () => {
  it('flags RunInstances through any launch template when the role may not use them only by their tag', async () => {
    const t = changed((t) => {
      const list = t.Resources.SpotEventsFunctionRole.Properties.Policies[0].PolicyDocument
        .Statement as Loose[];
      list.splice(
        list.findIndex((s) => s.Sid === 'LaunchFromManagedTemplates'),
        1,
      );
    });
    const problems = await checkWriteScopes(identityStatements(t));
    expect(problems.map((p) => p.message).join('\n')).toMatch(
      /ec2:RunInstances writes to every resource .*instance\/\*.*its condition tests ec2:launchtemplate/,
    );
    expect(await checkWriteScopes(identityStatements(template))).toEqual([]);
  });
});
