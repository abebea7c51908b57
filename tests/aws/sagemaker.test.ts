import {
  DescribeEndpointCommand,
  DescribeInferenceComponentCommand,
  SageMakerClient,
  UpdateEndpointWeightsAndCapacitiesCommand,
  UpdateInferenceComponentRuntimeConfigCommand,
} from '@aws-sdk/client-sagemaker';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { componentCapacityFrom, sageMakerAdapter, variantCapacityFrom } from '#shared/aws/sagemaker.ts';
import { isBusyError } from '#shared/aws/sagemaker-busy.ts';
import { sageMakerWrites } from '#shared/aws/sagemaker-writes.ts';
import { awsError } from './fakes.ts';

const sm = mockClient(SageMakerClient);
const client = () => new SageMakerClient({ region: 'us-east-1' });
const adapter = { ...sageMakerAdapter(client), ...sageMakerWrites(client) };
beforeEach(() => sm.reset());

const variant = (over: Record<string, unknown> = {}) => ({
  VariantName: 'AllTraffic',
  CurrentInstanceCount: 3,
  DesiredInstanceCount: 5,
  ...over,
});

describe('variantCapacityFrom', () => {
  it('reads desired, ready and status of the named variant', () => {
    const out = {
      EndpointStatus: 'Updating' as const,
      ProductionVariants: [variant({ VariantName: 'Canary' }), variant()],
    };
    expect(variantCapacityFrom(out, 'AllTraffic')).toEqual({ desired: 5, ready: 3, status: 'Updating' });
  });

  it.each([
    {
      case: 'a missing CurrentInstanceCount',
      out: {
        EndpointStatus: 'InService',
        ProductionVariants: [variant({ CurrentInstanceCount: undefined })],
      },
      message: 'DescribeEndpoint ProductionVariants[AllTraffic].CurrentInstanceCount is missing',
    },
    {
      case: 'a negative DesiredInstanceCount',
      out: { EndpointStatus: 'InService', ProductionVariants: [variant({ DesiredInstanceCount: -1 })] },
      message: 'DescribeEndpoint ProductionVariants[AllTraffic].DesiredInstanceCount is -1',
    },
    {
      case: 'a fractional count',
      out: { EndpointStatus: 'InService', ProductionVariants: [variant({ CurrentInstanceCount: 2.5 })] },
      message: 'DescribeEndpoint ProductionVariants[AllTraffic].CurrentInstanceCount is 2.5',
    },
    {
      case: 'a missing status',
      out: { ProductionVariants: [variant()] },
      message: 'DescribeEndpoint EndpointStatus is missing',
    },
    {
      case: 'no such variant',
      out: { EndpointStatus: 'InService', ProductionVariants: [] },
      message: 'DescribeEndpoint has no variant "AllTraffic"',
    },
  ])('rejects $case instead of reading zero', ({ out, message }) => {
    expect(() => variantCapacityFrom(out as never, 'AllTraffic')).toThrow(message);
  });
});

describe('componentCapacityFrom', () => {
  it('reads copy counts and status', () => {
    expect(
      componentCapacityFrom({
        InferenceComponentStatus: 'InService',
        RuntimeConfig: { DesiredCopyCount: 2, CurrentCopyCount: 1 },
      }),
    ).toEqual({ desired: 2, ready: 1, status: 'InService' });
  });
  it('rejects a missing RuntimeConfig', () => {
    expect(() => componentCapacityFrom({ InferenceComponentStatus: 'InService' })).toThrow(
      'DescribeInferenceComponent RuntimeConfig.DesiredCopyCount is missing',
    );
  });
});

describe('SageMaker adapter', () => {
  it('reads a variant through DescribeEndpoint', async () => {
    sm.on(DescribeEndpointCommand, { EndpointName: 'chat-llm-prod' }).resolves({
      EndpointStatus: 'InService',
      ProductionVariants: [variant()],
    });
    expect(await adapter.variantCapacity('us-east-1', 'chat-llm-prod', 'AllTraffic')).toEqual({
      desired: 5,
      ready: 3,
      status: 'InService',
    });
  });

  it('reads a component through DescribeInferenceComponent', async () => {
    sm.on(DescribeInferenceComponentCommand).resolves({
      InferenceComponentStatus: 'Updating',
      RuntimeConfig: { DesiredCopyCount: 0, CurrentCopyCount: 0 },
    });
    expect(await adapter.componentCapacity('us-east-1', 'embedder-ic')).toEqual({
      desired: 0,
      ready: 0,
      status: 'Updating',
    });
    expect(sm.commandCalls(DescribeInferenceComponentCommand)[0]!.args[0].input).toEqual({
      InferenceComponentName: 'embedder-ic',
    });
  });

  it('sets a variant with UpdateEndpointWeightsAndCapacities, instance count only', async () => {
    sm.on(UpdateEndpointWeightsAndCapacitiesCommand).resolves({ EndpointArn: 'arn' });
    expect(await adapter.setVariantCapacity('us-east-1', 'chat-llm-prod', 'AllTraffic', 6)).toEqual({
      status: 'applied',
    });
    expect(sm.commandCalls(UpdateEndpointWeightsAndCapacitiesCommand)[0]!.args[0].input).toEqual({
      EndpointName: 'chat-llm-prod',
      DesiredWeightsAndCapacities: [{ VariantName: 'AllTraffic', DesiredInstanceCount: 6 }],
    });
  });

  it('sets a component with UpdateInferenceComponentRuntimeConfig', async () => {
    sm.on(UpdateInferenceComponentRuntimeConfigCommand).resolves({});
    await adapter.setComponentCopies('us-east-1', 'embedder-ic', 2);
    expect(sm.commandCalls(UpdateInferenceComponentRuntimeConfigCommand)[0]!.args[0].input).toEqual({
      InferenceComponentName: 'embedder-ic',
      DesiredRuntimeConfig: { CopyCount: 2 },
    });
  });

  it('an Updating endpoint (ValidationException) is busy, not a failure', async () => {
    sm.on(UpdateEndpointWeightsAndCapacitiesCommand).rejects(
      awsError(
        'ValidationException',
        'Cannot update in-progress endpoint "arn:aws:sagemaker:us-east-1:123456789012:endpoint/chat-llm-prod".',
      ),
    );
    expect(await adapter.setVariantCapacity('us-east-1', 'chat-llm-prod', 'AllTraffic', 6)).toMatchObject({
      status: 'busy',
    });
  });

  it.each([
    {
      case: 'another ValidationException',
      error: awsError('ValidationException', 'Value 0 for DesiredInstanceCount is less than 1'),
    },
    {
      case: 'a throttle that outlasted the retries',
      error: awsError('ThrottlingException', 'Rate exceeded'),
    },
    { case: 'a 500', error: awsError('InternalFailure', 'oops', 500) },
  ])('$case is thrown to the caller', async ({ error }) => {
    sm.on(UpdateEndpointWeightsAndCapacitiesCommand).rejects(error);
    await expect(adapter.setVariantCapacity('us-east-1', 'e', 'v', 2)).rejects.toMatchObject({
      name: error.name,
    });
  });

  it("the evaluate function's adapter has no way to change capacity: that is the state machine's", () => {
    const reads = sageMakerAdapter(client);
    expect(Object.keys(reads).sort()).toEqual(['componentCapacity', 'variantCapacity', 'zeroCopiesRefusal']);
  });

  it("reads back the component's variant, then its endpoint's managed scaling, before 0 copies", async () => {
    sm.on(DescribeInferenceComponentCommand).resolves({
      InferenceComponentName: 'chat-ic',
      EndpointName: 'chat-ep',
      VariantName: 'Gpu',
    } as never);
    sm.on(DescribeEndpointCommand).resolves({
      EndpointStatus: 'InService',
      ProductionVariants: [
        variant({ ManagedInstanceScaling: { Status: 'ENABLED', MinInstanceCount: 1 } }),
        variant({ VariantName: 'Gpu', ManagedInstanceScaling: { Status: 'ENABLED', MinInstanceCount: 0 } }),
      ],
    } as never);
    expect(await sageMakerAdapter(client).zeroCopiesRefusal('us-east-1', 'chat-ic')).toBeNull();
    expect(sm.commandCalls(DescribeInferenceComponentCommand)[0]!.args[0].input).toEqual({
      InferenceComponentName: 'chat-ic',
    });
    expect(sm.commandCalls(DescribeEndpointCommand)[0]!.args[0].input).toEqual({ EndpointName: 'chat-ep' });
  });

  it('refuses a component that names no variant rather than guess one', async () => {
    sm.on(DescribeInferenceComponentCommand).resolves({
      InferenceComponentName: 'chat-ic',
      EndpointName: 'chat-ep',
    } as never);
    await expect(sageMakerAdapter(client).zeroCopiesRefusal('us-east-1', 'chat-ic')).rejects.toThrow(
      /DescribeInferenceComponent VariantName is missing/,
    );
  });

  it.each([
    { message: 'Cannot update in-progress endpoint "x".', busy: true },
    { message: 'Inference component is in Updating status', busy: true },
    { message: 'Could not find endpoint "x".', busy: false },
  ])('isBusyError("$message") is $busy', ({ message, busy }) => {
    expect(isBusyError(awsError('ValidationException', message))).toBe(busy);
  });
});
