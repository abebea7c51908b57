/**
 * SageMaker adapter: live capacity of endpoint variants and inference components, and the two
 * calls that change it (the same calls the scale-target state machine's tasks make; `npm run
 * local` uses them when no state machine is available). SDK output is converted by small pure
 * functions that reject missing or malformed fields instead of reading them as zero.
 */
import {
  DescribeEndpointCommand,
  type DescribeEndpointCommandOutput,
  DescribeInferenceComponentCommand,
  type DescribeInferenceComponentCommandOutput,
  type SageMakerClient,
  UpdateEndpointWeightsAndCapacitiesCommand,
  UpdateInferenceComponentRuntimeConfigCommand,
} from '@aws-sdk/client-sagemaker';
import { type ApplyResult, type Capacity, countField, MalformedResponseError } from './capacity.ts';
import { errorName } from './clients.ts';

const count = countField;

const text = (value: unknown, field: string): string => {
  if (typeof value !== 'string' || value === '') throw new MalformedResponseError(`${field} is missing`);
  return value;
};

/** DescribeEndpoint output to the capacity of one variant. */
export function variantCapacityFrom(
  out: Pick<DescribeEndpointCommandOutput, 'EndpointStatus' | 'ProductionVariants'>,
  variantName: string,
): Capacity {
  const status = text(out.EndpointStatus, 'DescribeEndpoint EndpointStatus');
  const variant = (out.ProductionVariants ?? []).find((v) => v.VariantName === variantName);
  if (!variant) throw new MalformedResponseError(`DescribeEndpoint has no variant "${variantName}"`);
  const at = `DescribeEndpoint ProductionVariants[${variantName}]`;
  return {
    desired: count(variant.DesiredInstanceCount, `${at}.DesiredInstanceCount`),
    ready: count(variant.CurrentInstanceCount, `${at}.CurrentInstanceCount`),
    status,
  };
}

/** DescribeInferenceComponent output to its copy counts. */
export function componentCapacityFrom(
  out: Pick<DescribeInferenceComponentCommandOutput, 'InferenceComponentStatus' | 'RuntimeConfig'>,
): Capacity {
  const at = 'DescribeInferenceComponent RuntimeConfig';
  return {
    desired: count(out.RuntimeConfig?.DesiredCopyCount, `${at}.DesiredCopyCount`),
    ready: count(out.RuntimeConfig?.CurrentCopyCount, `${at}.CurrentCopyCount`),
    status: text(out.InferenceComponentStatus, 'DescribeInferenceComponent InferenceComponentStatus'),
  };
}

/**
 * SageMaker refuses a capacity change while the resource is updating with a ValidationException
 * ("Cannot update in-progress endpoint"): that is a deferral to the next tick, not a failure.
 */
export function isBusyError(error: unknown): boolean {
  if (errorName(error) !== 'ValidationException') return false;
  const message = error instanceof Error ? error.message : '';
  return /in-progress|in progress|updating|creating/i.test(message);
}

export interface SageMakerPort {
  variantCapacity(region: string, endpointName: string, variantName: string): Promise<Capacity>;
  componentCapacity(region: string, name: string): Promise<Capacity>;
  setVariantCapacity(
    region: string,
    endpointName: string,
    variantName: string,
    desired: number,
  ): Promise<ApplyResult>;
  setComponentCopies(region: string, name: string, desired: number): Promise<ApplyResult>;
}

async function applying(call: () => Promise<unknown>): Promise<ApplyResult> {
  try {
    await call();
    return { status: 'applied' };
  } catch (error) {
    if (isBusyError(error)) return { status: 'busy', message: (error as Error).message };
    throw error;
  }
}

export function sageMakerAdapter(clientFor: (region: string) => SageMakerClient): SageMakerPort {
  return {
    variantCapacity: async (region, EndpointName, variantName) =>
      variantCapacityFrom(
        await clientFor(region).send(new DescribeEndpointCommand({ EndpointName })),
        variantName,
      ),
    componentCapacity: async (region, InferenceComponentName) =>
      componentCapacityFrom(
        await clientFor(region).send(new DescribeInferenceComponentCommand({ InferenceComponentName })),
      ),
    setVariantCapacity: (region, EndpointName, VariantName, DesiredInstanceCount) =>
      applying(() =>
        clientFor(region).send(
          new UpdateEndpointWeightsAndCapacitiesCommand({
            EndpointName,
            DesiredWeightsAndCapacities: [{ VariantName, DesiredInstanceCount }],
          }),
        ),
      ),
    setComponentCopies: (region, InferenceComponentName, CopyCount) =>
      applying(() =>
        clientFor(region).send(
          new UpdateInferenceComponentRuntimeConfigCommand({
            InferenceComponentName,
            DesiredRuntimeConfig: { CopyCount },
          }),
        ),
      ),
  };
}
