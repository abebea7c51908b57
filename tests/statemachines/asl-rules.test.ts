/**
 * The state machine definitions follow the project's ASL rules (shared/deploy/asl.ts): valid for
 * asl-validator, no ARNs but service integrations, every Task with TimeoutSeconds, Retry and
 * Catch, state names that read as sentences; and each rule catches what it names.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  actionsNeeded,
  allStates,
  checkDefinition,
  iamActionForResource,
  placeholders,
  readsAsSentence,
  substitute,
} from '#shared/deploy/asl.ts';

const files = readdirSync('statemachines')
  .filter((f) => f.endsWith('.asl.json'))
  .map((f) => `statemachines/${f}`);
const load = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;

describe('the definitions in statemachines/', () => {
  it('include scale-target', () => {
    expect(files).toContain('statemachines/scale-target.asl.json');
  });

  it.each(files.map((file) => ({ file })))('$file breaks no rule', ({ file }) => {
    expect(checkDefinition(load(file))).toEqual([]);
  });

  it('scale-target needs exactly the SageMaker, SSM, DynamoDB, CloudWatch and scaler-suspending calls it makes', () => {
    expect([...actionsNeeded(load('statemachines/scale-target.asl.json')).keys()].sort()).toEqual([
      'application-autoscaling:RegisterScalableTarget',
      'cloudwatch:PutMetricData',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
      'sagemaker:DescribeEndpoint',
      'sagemaker:DescribeInferenceComponent',
      'sagemaker:UpdateEndpointWeightsAndCapacities',
      'sagemaker:UpdateInferenceComponentRuntimeConfig',
      'ssm:GetParameters',
    ]);
  });

  it('scale-target uses the three placeholders the template fills', () => {
    const text = readFileSync('statemachines/scale-target.asl.json', 'utf8');
    expect([...placeholders(text)].sort()).toEqual([
      'KillSwitchParameterName',
      'MetricNamespace',
      'StateTableName',
    ]);
    const values = { KillSwitchParameterName: '/k', MetricNamespace: 'Governor', StateTableName: 't' };
    expect(placeholders(substitute(text, values)).size).toBe(0);
  });
});

/** A small valid machine to break one rule at a time. */
const base = () => ({
  StartAt: 'Read the endpoint status',
  States: {
    'Read the endpoint status': {
      Type: 'Task',
      Resource: 'arn:aws:states:::aws-sdk:sagemaker:describeEndpoint',
      Parameters: { EndpointName: 'e' },
      TimeoutSeconds: 30,
      Retry: [{ ErrorEquals: ['States.TaskFailed'] }],
      Catch: [{ ErrorEquals: ['States.ALL'], Next: 'Stop on a failure' }],
      End: true,
    },
    'Stop on a failure': { Type: 'Fail', Error: 'X' },
  },
});
type Machine = ReturnType<typeof base> & Record<string, unknown>;
const task = (m: Machine) => m.States['Read the endpoint status'] as Record<string, unknown>;

describe('each rule catches what it names', () => {
  it('accepts the unbroken machine', () => {
    expect(checkDefinition(base())).toEqual([]);
  });

  it.each([
    {
      case: 'a Task without TimeoutSeconds',
      breakIt: (m: Machine) => delete task(m).TimeoutSeconds,
      expected: /TimeoutSeconds/,
    },
    {
      case: 'a Task without Retry',
      breakIt: (m: Machine) => delete task(m).Retry,
      expected: /needs a Retry/,
    },
    {
      case: 'a Task with an empty Catch',
      breakIt: (m: Machine) => (task(m).Catch = []),
      expected: /needs a Catch/,
    },
    {
      case: 'a table ARN in Parameters',
      breakIt: (m: Machine) =>
        (task(m).Parameters = { TableArn: 'arn:aws:dynamodb:us-east-1:123456789012:table/t' }),
      expected: /holds an ARN/,
    },
    {
      case: 'a Lambda function ARN as Resource',
      breakIt: (m: Machine) => (task(m).Resource = 'arn:aws:lambda:us-east-1:123456789012:function:f'),
      expected: /not a service integration/,
    },
    {
      case: 'a camelCase state name',
      breakIt: (m: Machine) => {
        m.States = { ...m.States, readEndpoint: { Type: 'Pass', End: true } } as never;
      },
      expected: /read as a sentence/,
    },
    {
      case: 'a Task without Catch inside a Map',
      breakIt: (m: Machine) => {
        const inner = base();
        delete (inner.States['Read the endpoint status'] as Record<string, unknown>).Catch;
        m.States = {
          ...m.States,
          'Check every variant': {
            Type: 'Map',
            ItemProcessor: { ProcessorConfig: { Mode: 'INLINE' }, ...inner },
            End: true,
          },
        } as never;
      },
      expected: /Check every variant > Read the endpoint status: a Task needs a Catch/,
    },
    {
      case: 'a transition to a missing state',
      breakIt: (m: Machine) => (task(m).Next = 'Nowhere'),
      expected: /definition/,
    },
    {
      case: 'IsPresent: false, which aws-local-stepfunctions never matches (AWS does)',
      breakIt: (m: Machine) => {
        task(m).Next = 'Is the error there?';
        delete task(m).End;
        (m.States as Record<string, unknown>)['Is the error there?'] = {
          Type: 'Choice',
          Choices: [{ And: [{ Variable: '$.error', IsPresent: false }], Next: 'Stop on a failure' }],
          Default: 'Stop on a failure',
        };
      },
      expected: /Is the error there\?: IsPresent: false on \$\.error: write Not: \{ IsPresent: true \}/,
    },
  ])('flags $case', ({ breakIt, expected }) => {
    const m = base() as Machine;
    breakIt(m);
    const problems = checkDefinition(m).map((p) => `${p.where}: ${p.message}`);
    expect(problems.join('\n')).toMatch(expected);
  });
});

describe('integration resources and their IAM actions', () => {
  it.each([
    { resource: 'arn:aws:states:::aws-sdk:sagemaker:describeEndpoint', action: 'sagemaker:DescribeEndpoint' },
    { resource: 'arn:aws:states:::aws-sdk:cloudwatch:putMetricData', action: 'cloudwatch:PutMetricData' },
    { resource: 'arn:aws:states:::aws-sdk:sfn:startExecution', action: 'states:StartExecution' },
    {
      resource: 'arn:aws:states:::aws-sdk:applicationautoscaling:describeScalableTargets',
      action: 'application-autoscaling:DescribeScalableTargets',
    },
    { resource: 'arn:aws:states:::dynamodb:putItem', action: 'dynamodb:PutItem' },
    { resource: 'arn:aws:states:::lambda:invoke', action: 'lambda:InvokeFunction' },
    { resource: 'arn:aws:states:::states:startExecution.sync:2', action: 'states:StartExecution' },
    { resource: 'arn:aws:lambda:us-east-1:123456789012:function:f', action: null },
  ])('$resource needs $action', ({ resource, action }) => {
    expect(iamActionForResource(resource)).toBe(action);
  });
});

describe('state names', () => {
  it.each([
    { name: 'Read the endpoint status', ok: true },
    { name: 'Did SageMaker give a reason?', ok: true },
    { name: 'Capacity changed', ok: true },
    { name: 'ReadEndpoint', ok: false },
    { name: 'read the endpoint', ok: false },
    { name: 'Read_endpoint status', ok: false },
    { name: 'Check endpointStatus now', ok: false },
  ])('"$name" reads as a sentence: $ok', ({ name, ok }) => {
    expect(readsAsSentence(name)).toBe(ok);
  });

  it('covers states nested in Map and Parallel states', () => {
    const names = allStates(load('statemachines/scale-target.asl.json')).map((s) => s.where);
    expect(names).toContain("List the variants' instance counts > Keep the variant's count");
  });
});
