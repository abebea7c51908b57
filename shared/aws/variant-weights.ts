/**
 * The SageMaker adapter of the variant fallback (shared/mix/variant-fallback.ts), used by the mix
 * function. Two calls:
 *  - read(region, endpoint): DescribeEndpoint (status, FailureReason, LastModifiedTime, every
 *    variant's current and desired instance counts and current weight) and DescribeEndpointConfig
 *    of its config (each variant's InstanceType: DescribeEndpoint does not show it), as one
 *    EndpointView. Counts are whole numbers of 0 or more and weights numbers of 0 or more, or
 *    MalformedResponseError naming the field: never read as 0.
 *  - write(region, endpoint, writes): one UpdateEndpointWeightsAndCapacities with every listed
 *    variant's DesiredWeight and DesiredInstanceCount, so weights and counts change together;
 *    at least one variant (the model's min 1), else an error and no call.
 *    An endpoint mid-update answers 'busy' (the next run decides again).
 * A failed call throws one line naming the IAM action, the endpoint and the grant to check.
 */
import {
  DescribeEndpointCommand,
  type DescribeEndpointCommandOutput,
  DescribeEndpointConfigCommand,
  type DescribeEndpointConfigCommandOutput,
  type SageMakerClient,
  UpdateEndpointWeightsAndCapacitiesCommand,
} from '@aws-sdk/client-sagemaker';
import { capacityFailureOf, type EndpointView, type VariantWrite } from '../mix/fallback-types.ts';
import { countField, MalformedResponseError } from './capacity.ts';
import { errorName } from './clients.ts';
import { isBusyError } from './sagemaker-busy.ts';

export type WeightsWriteResult = { status: 'applied' } | { status: 'busy'; message: string };

export interface VariantWeightsPort {
  read(region: string, endpointName: string): Promise<EndpointView>;
  write(region: string, endpointName: string, writes: readonly VariantWrite[]): Promise<WeightsWriteResult>;
}

/** A SageMaker call failed after the SDK's retries: one line naming the IAM action and endpoint. */
export class VariantWeightsCallError extends Error {
  override name = 'VariantWeightsCallError';
}

const weightField = (value: unknown, field: string): number => {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
    throw new MalformedResponseError(
      `${field} is ${value === undefined ? 'missing' : JSON.stringify(value)}`,
    );
  return value;
};

/** DescribeEndpoint and DescribeEndpointConfig output to the fallback's view of the endpoint. */
export function endpointViewFrom(
  endpoint: Pick<
    DescribeEndpointCommandOutput,
    'EndpointStatus' | 'FailureReason' | 'LastModifiedTime' | 'ProductionVariants'
  >,
  config: Pick<DescribeEndpointConfigCommandOutput, 'ProductionVariants'> | null,
): EndpointView {
  if (!endpoint.EndpointStatus)
    throw new MalformedResponseError('DescribeEndpoint EndpointStatus is missing');
  const types = new Map(
    (config?.ProductionVariants ?? []).map((v) => [v.VariantName, v.InstanceType ?? null]),
  );
  const variants = (endpoint.ProductionVariants ?? []).map((v) => {
    if (!v.VariantName)
      throw new MalformedResponseError('DescribeEndpoint ProductionVariants[].VariantName is missing');
    const at = `DescribeEndpoint ProductionVariants[${v.VariantName}]`;
    return {
      variantName: v.VariantName,
      instanceType: types.get(v.VariantName) ?? null,
      currentInstances: countField(v.CurrentInstanceCount, `${at}.CurrentInstanceCount`),
      desiredInstances: countField(v.DesiredInstanceCount, `${at}.DesiredInstanceCount`),
      currentWeight: weightField(v.CurrentWeight, `${at}.CurrentWeight`),
    };
  });
  // One FailureReason stays until the next update: the time it was last modified tells two apart.
  const key = `${endpoint.LastModifiedTime?.toISOString() ?? 'unknown'}|${endpoint.FailureReason ?? ''}`;
  return {
    status: endpoint.EndpointStatus,
    variants,
    capacityFailure: capacityFailureOf(endpoint.FailureReason, key),
  };
}

async function call<T>(action: string, region: string, resource: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (action === 'UpdateEndpointWeightsAndCapacities' && isBusyError(error)) throw error;
    const detail = (error instanceof Error ? error.message : String(error)).split('\n')[0];
    throw new VariantWeightsCallError(
      `sagemaker:${action} on ${resource} in ${region} failed (${errorName(error) || 'error'}: ${detail}); check the role has sagemaker:${action} on ${resource.replace(' ', '/')} (ManagedEndpointPrefix)`,
      { cause: error },
    );
  }
}

export function variantWeightsAdapter(clientFor: (region: string) => SageMakerClient): VariantWeightsPort {
  return {
    async read(region, EndpointName) {
      const client = clientFor(region);
      const endpoint = await call('DescribeEndpoint', region, `endpoint ${EndpointName}`, () =>
        client.send(new DescribeEndpointCommand({ EndpointName })),
      );
      const EndpointConfigName = endpoint.EndpointConfigName;
      if (!EndpointConfigName)
        throw new MalformedResponseError('DescribeEndpoint EndpointConfigName is missing');
      const config = await call(
        'DescribeEndpointConfig',
        region,
        `endpoint-config ${EndpointConfigName}`,
        () => client.send(new DescribeEndpointConfigCommand({ EndpointConfigName })),
      );
      return endpointViewFrom(endpoint, config);
    },
    async write(region, EndpointName, writes) {
      // The model's DesiredWeightAndCapacityList has min 1: an empty update is refused by
      // SageMaker, and the fallback always writes every listed variant, so none is a bug.
      if (writes.length === 0)
        throw new Error(`UpdateEndpointWeightsAndCapacities of ${EndpointName} needs at least one variant`);
      try {
        await call('UpdateEndpointWeightsAndCapacities', region, `endpoint ${EndpointName}`, () =>
          clientFor(region).send(
            new UpdateEndpointWeightsAndCapacitiesCommand({
              EndpointName,
              DesiredWeightsAndCapacities: writes.map((w) => ({
                VariantName: w.variantName,
                DesiredWeight: w.desiredWeight,
                DesiredInstanceCount: w.desiredInstances,
              })),
            }),
          ),
        );
        return { status: 'applied' };
      } catch (error) {
        if (isBusyError(error)) return { status: 'busy', message: (error as Error).message };
        throw error;
      }
    },
  };
}
