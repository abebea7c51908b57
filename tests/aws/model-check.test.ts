/**
 * The AWS model check (tests/support/aws-model.ts) against botocore's own models: what it finds in
 * an SDK call's input, rule by rule, and that it knows every client the project depends on. The
 * suite-wide wiring (tests/support/aws-model-setup.ts) runs the same checkCall over every call the
 * tests make or record.
 */
import { readFileSync } from 'node:fs';
import {
  DescribeScalingPoliciesCommand,
  PutScalingPolicyCommand,
} from '@aws-sdk/client-application-auto-scaling';
import { GetMetricDataCommand, PutMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { UpdateEndpointWeightsAndCapacitiesCommand } from '@aws-sdk/client-sagemaker';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, inject, it } from 'vitest';
import { callOf, checkCall, Models, modelFile, SERVICE_FOLDERS } from '../support/aws-model.ts';

const dataDir = inject('botocoreData');
const models = dataDir ? new Models(dataDir) : null;
const t0 = new Date('2025-06-09T12:00:00Z');
const SCALING_POLICY = {
  ServiceNamespace: 'sagemaker',
  ResourceId: 'endpoint/chat/variant/AllTraffic',
  ScalableDimension: 'sagemaker:variant:DesiredInstanceCount',
} as const;

const problems = (command: unknown) =>
  checkCall(models!, callOf(command)!)!.map((v) => `${v.call} ${v.path}: ${v.problem}`);

describe.skipIf(models === null)('checkCall against botocore’s service models', () => {
  it.each([
    {
      case: 'a call that conforms has no violation',
      command: new GetMetricDataCommand({
        StartTime: t0,
        EndTime: t0,
        MetricDataQueries: [
          {
            Id: 'd0',
            MetricStat: {
              Metric: { Namespace: 'AWS/SageMaker', MetricName: 'Invocations' },
              Period: 60,
              Stat: 'Sum',
            },
          },
        ],
      }),
      found: [],
    },
    {
      case: 'a required member missing',
      command: new PutMetricDataCommand({ MetricData: [] } as never),
      found: ['cloudwatch.PutMetricData Namespace: required by PutMetricDataInput, missing'],
    },
    {
      case: 'a value outside its enum',
      command: new DescribeScalingPoliciesCommand({ ServiceNamespace: 'sagemakr' as never }),
      found: [
        'application-autoscaling.DescribeScalingPolicies ServiceNamespace: "sagemakr" is not one of ServiceNamespace\'s values',
      ],
    },
    {
      case: 'a number under the shape’s min, nested in a list',
      command: new GetMetricDataCommand({
        StartTime: t0,
        EndTime: t0,
        MetricDataQueries: [{ Id: 'd0', MetricStat: { Metric: {}, Period: 0, Stat: 'Sum' } }],
      }),
      found: [
        "cloudwatch.GetMetricData MetricDataQueries[0].MetricStat.Period: value 0 is under the model's min 1",
      ],
    },
    {
      case: 'a number outside the range the member’s documentation gives (no min/max in the shape)',
      command: new DescribeScalingPoliciesCommand({ ServiceNamespace: 'sagemaker', MaxResults: 50 }),
      found: [
        "application-autoscaling.DescribeScalingPolicies MaxResults: value 50 is outside 1-10, the range the model's documentation of this member gives",
      ],
    },
    {
      case: 'a list shorter than its min, and a string longer than its max',
      command: new UpdateEndpointWeightsAndCapacitiesCommand({
        EndpointName: 'e'.repeat(64),
        DesiredWeightsAndCapacities: [],
      }),
      found: [
        "sagemaker.UpdateEndpointWeightsAndCapacities EndpointName: length 64 is over the model's max 63",
        `sagemaker.UpdateEndpointWeightsAndCapacities EndpointName: "${'e'.repeat(64)}" does not match EndpointName's pattern [a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}`,
        "sagemaker.UpdateEndpointWeightsAndCapacities DesiredWeightsAndCapacities: length 0 is under the model's min 1",
      ],
    },
    {
      case: 'a string that does not match its pattern, matched whole as AWS does',
      command: new UpdateEndpointWeightsAndCapacitiesCommand({
        EndpointName: 'chat_llm',
        DesiredWeightsAndCapacities: [{ VariantName: 'AllTraffic', DesiredInstanceCount: 2 }],
      }),
      found: [
        'sagemaker.UpdateEndpointWeightsAndCapacities EndpointName: "chat_llm" does not match EndpointName\'s pattern [a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}',
      ],
    },
    {
      case: 'a Java POSIX class in a pattern (\\p{Print}) read as Java reads it: printable ASCII passes',
      command: new PutScalingPolicyCommand({ ...SCALING_POLICY, PolicyName: 'tt-0' }),
      found: [],
    },
    {
      case: 'a Java POSIX class in a pattern (\\p{Print}) read as Java reads it: a line break fails',
      command: new PutScalingPolicyCommand({ ...SCALING_POLICY, PolicyName: 'tt\n0' }),
      found: [
        'application-autoscaling.PutScalingPolicy PolicyName: "tt\\n0" does not match PolicyName\'s pattern \\p{Print}+',
      ],
    },
    {
      case: 'a member the shape does not have, and a wrong type deep in a list',
      command: new PutMetricDataCommand({
        Namespace: 'Governor',
        MetricData: [
          { MetricName: 'Decisions', Value: '3' as never, Dimensions: [{ Name: 'TargetId' } as never] },
        ],
        Bogus: true,
      } as never),
      found: [
        'cloudwatch.PutMetricData MetricData[0].Value: DatapointValue is double, got 3',
        'cloudwatch.PutMetricData MetricData[0].Dimensions[0].Value: required by Dimension, missing',
        'cloudwatch.PutMetricData Bogus: PutMetricDataInput has no member Bogus',
      ],
    },
    {
      case: 'a document-client call: native item values pass, the rest is checked',
      command: new PutCommand({
        TableName: 'x',
        Item: { pk: 'a', n: 1 },
        ReturnValues: 'EVERYTHING' as never,
      }),
      found: ['dynamodb.PutItem ReturnValues: "EVERYTHING" is not one of ReturnValue\'s values'],
    },
  ])('$case', ({ command, found }) => {
    expect(problems(command)).toEqual(found);
  });

  it('knows the model of every AWS SDK client the project depends on', () => {
    const deps = Object.keys(
      (JSON.parse(readFileSync('package.json', 'utf8')) as { dependencies: Record<string, string> })
        .dependencies,
    ).filter((d) => d.startsWith('@aws-sdk/client-'));
    expect(deps.length).toBeGreaterThanOrEqual(10);
    expect(Object.keys(SERVICE_FOLDERS)).toHaveLength(deps.length);
    for (const folder of Object.values(SERVICE_FOLDERS))
      expect(modelFile(dataDir, folder), folder).not.toBeNull();
  });
});
