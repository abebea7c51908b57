/**
 * The variant fallback's SageMaker adapter (shared/aws/variant-weights.ts) on a mocked client:
 * the endpoint read as one view (types from its config, counts and weights checked, the capacity
 * FailureReason matched), the one UpdateEndpointWeightsAndCapacities with every variant, busy as
 * a result, and every failure as one line naming the IAM action and the endpoint.
 */
import {
  DescribeEndpointCommand,
  DescribeEndpointConfigCommand,
  SageMakerClient,
  UpdateEndpointWeightsAndCapacitiesCommand,
} from '@aws-sdk/client-sagemaker';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { endpointViewFrom, variantWeightsAdapter } from '#shared/aws/variant-weights.ts';
import { awsError } from './fakes.ts';

const sm = mockClient(SageMakerClient);
const adapter = variantWeightsAdapter(() => new SageMakerClient({ region: 'us-east-1' }));
beforeEach(() => sm.reset());

const MODIFIED = new Date('2025-06-02T11:58:00Z');
const CAPACITY =
  'Unable to provision requested ML compute capacity. Please retry using a different ML instance type.';
const described = (over: Record<string, unknown> = {}) => ({
  EndpointName: 'gov-chat',
  EndpointConfigName: 'gov-chat-config',
  EndpointStatus: 'InService' as const,
  LastModifiedTime: MODIFIED,
  ProductionVariants: [
    { VariantName: 'g5', CurrentInstanceCount: 4, DesiredInstanceCount: 4, CurrentWeight: 1 },
    { VariantName: 'g6', CurrentInstanceCount: 1, DesiredInstanceCount: 1, CurrentWeight: 0 },
  ],
  ...over,
});
const config = {
  ProductionVariants: [
    { VariantName: 'g5', InstanceType: 'ml.g5.2xlarge' as const, ModelName: 'm' },
    { VariantName: 'g6', InstanceType: 'ml.g6.2xlarge' as const, ModelName: 'm' },
  ],
};

/** One variant's weight and count: UpdateEndpointWeightsAndCapacities takes 1 or more. */
const ONE_WRITE = { variantName: 'g5', desiredInstances: 4, desiredWeight: 4 };

describe('endpointViewFrom', () => {
  it('reads status, counts, weights, types and a capacity FailureReason keyed by its time', () => {
    expect(endpointViewFrom(described({ FailureReason: CAPACITY }), config)).toEqual({
      status: 'InService',
      variants: [
        {
          variantName: 'g5',
          instanceType: 'ml.g5.2xlarge',
          currentInstances: 4,
          desiredInstances: 4,
          currentWeight: 1,
        },
        {
          variantName: 'g6',
          instanceType: 'ml.g6.2xlarge',
          currentInstances: 1,
          desiredInstances: 1,
          currentWeight: 0,
        },
      ],
      capacityFailure: { key: `2025-06-02T11:58:00.000Z|${CAPACITY}`, instanceType: null, message: CAPACITY },
    });
  });

  it('a FailureReason that is not about capacity is no capacity failure', () => {
    const out = endpointViewFrom(described({ FailureReason: 'did not pass the ping health check' }), config);
    expect(out.capacityFailure).toBeNull();
  });

  it.each([
    {
      case: 'a missing CurrentInstanceCount',
      variants: [{ VariantName: 'g5', DesiredInstanceCount: 4, CurrentWeight: 1 }],
      error: 'DescribeEndpoint ProductionVariants[g5].CurrentInstanceCount is missing',
    },
    {
      case: 'a missing CurrentWeight',
      variants: [{ VariantName: 'g5', CurrentInstanceCount: 4, DesiredInstanceCount: 4 }],
      error: 'DescribeEndpoint ProductionVariants[g5].CurrentWeight is missing',
    },
    {
      case: 'a negative weight',
      variants: [{ VariantName: 'g5', CurrentInstanceCount: 4, DesiredInstanceCount: 4, CurrentWeight: -1 }],
      error: 'DescribeEndpoint ProductionVariants[g5].CurrentWeight is -1',
    },
  ])('$case is refused, not read as 0', ({ variants, error }) => {
    expect(() => endpointViewFrom(described({ ProductionVariants: variants }), config)).toThrow(error);
  });
});

describe('variantWeightsAdapter', () => {
  it('reads the endpoint, then its config', async () => {
    sm.on(DescribeEndpointCommand).resolves(described());
    sm.on(DescribeEndpointConfigCommand).resolves(config);
    const view = await adapter.read('us-east-1', 'gov-chat');
    expect(view.variants.map((v) => v.instanceType)).toEqual(['ml.g5.2xlarge', 'ml.g6.2xlarge']);
    expect(sm.commandCalls(DescribeEndpointConfigCommand)[0]?.args[0].input).toEqual({
      EndpointConfigName: 'gov-chat-config',
    });
  });

  it('writes every variant weight and count in one call', async () => {
    sm.on(UpdateEndpointWeightsAndCapacitiesCommand).resolves({});
    const out = await adapter.write('us-east-1', 'gov-chat', [
      { variantName: 'g5', desiredInstances: 4, desiredWeight: 4 },
      { variantName: 'g6', desiredInstances: 2, desiredWeight: 2 },
    ]);
    expect(out).toEqual({ status: 'applied' });
    expect(sm.commandCalls(UpdateEndpointWeightsAndCapacitiesCommand).map((c) => c.args[0].input)).toEqual([
      {
        EndpointName: 'gov-chat',
        DesiredWeightsAndCapacities: [
          { VariantName: 'g5', DesiredWeight: 4, DesiredInstanceCount: 4 },
          { VariantName: 'g6', DesiredWeight: 2, DesiredInstanceCount: 2 },
        ],
      },
    ]);
  });

  it('an empty write is refused before any call: the model wants one variant at least', async () => {
    await expect(adapter.write('us-east-1', 'gov-chat', [])).rejects.toThrow(
      'UpdateEndpointWeightsAndCapacities of gov-chat needs at least one variant',
    );
    expect(sm.commandCalls(UpdateEndpointWeightsAndCapacitiesCommand)).toEqual([]);
  });

  it('an endpoint mid-update is busy, not a failure', async () => {
    sm.on(UpdateEndpointWeightsAndCapacitiesCommand).rejects(
      awsError('ValidationException', 'Cannot update in-progress endpoint "gov-chat".'),
    );
    expect(await adapter.write('us-east-1', 'gov-chat', [ONE_WRITE])).toEqual({
      status: 'busy',
      message: 'Cannot update in-progress endpoint "gov-chat".',
    });
  });

  it.each([
    {
      case: 'a denied DescribeEndpoint',
      prepare: () =>
        sm.on(DescribeEndpointCommand).rejects(awsError('AccessDeniedException', 'not authorized')),
      act: () => adapter.read('us-east-1', 'gov-chat'),
      line: 'sagemaker:DescribeEndpoint on endpoint gov-chat in us-east-1 failed (AccessDeniedException: not authorized); check the role has sagemaker:DescribeEndpoint on endpoint/gov-chat (ManagedEndpointPrefix)',
    },
    {
      case: 'a denied DescribeEndpointConfig',
      prepare: () => {
        sm.on(DescribeEndpointCommand).resolves(described());
        sm.on(DescribeEndpointConfigCommand).rejects(awsError('AccessDeniedException', 'not authorized'));
      },
      act: () => adapter.read('us-east-1', 'gov-chat'),
      line: 'sagemaker:DescribeEndpointConfig on endpoint-config gov-chat-config in us-east-1 failed (AccessDeniedException: not authorized); check the role has sagemaker:DescribeEndpointConfig on endpoint-config/gov-chat-config (ManagedEndpointPrefix)',
    },
    {
      case: 'a refused update',
      prepare: () =>
        sm
          .on(UpdateEndpointWeightsAndCapacitiesCommand)
          .rejects(awsError('ValidationException', 'Variant g7 not found')),
      act: () => adapter.write('us-east-1', 'gov-chat', [ONE_WRITE]),
      line: 'sagemaker:UpdateEndpointWeightsAndCapacities on endpoint gov-chat in us-east-1 failed (ValidationException: Variant g7 not found); check the role has sagemaker:UpdateEndpointWeightsAndCapacities on endpoint/gov-chat (ManagedEndpointPrefix)',
    },
  ])('$case throws one line naming the IAM action and the endpoint', async ({ prepare, act, line }) => {
    prepare();
    await expect(act()).rejects.toThrow(line);
  });
});
