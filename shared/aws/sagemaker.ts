/**
 * SageMaker adapter of the evaluate function: live capacity of endpoint variants and inference
 * components. It changes nothing: in AWS every SageMaker capacity change goes through the
 * scale-target state machine, which checks the kill switch and the decision's generation just
 * before it sends it. The two calls that change capacity live in ./sagemaker-writes.ts, which the
 * evaluate function does not import, so its role holds no SageMaker write (the template's grant
 * check follows imports file by file). SDK output is converted by small pure functions that
 * reject missing or malformed fields instead of reading them as zero.
 */
import {
  DescribeEndpointCommand,
  type DescribeEndpointCommandOutput,
  DescribeInferenceComponentCommand,
  type DescribeInferenceComponentCommandOutput,
  type SageMakerClient,
} from '@aws-sdk/client-sagemaker';
import { type ApplyResult, type Capacity, countField, MalformedResponseError } from './capacity.ts';

const count = countField;

const text = (value: unknown, field: string): string => {
  if (typeof value !== 'string' || value === '') throw new MalformedResponseError(`${field} is missing`);
  return value;
};

/** What DescribeEndpoint says of one endpoint: its status and every variant's counts. */
export type EndpointReading = Pick<DescribeEndpointCommandOutput, 'EndpointStatus' | 'ProductionVariants'>;

/** DescribeEndpoint output to the capacity of one variant. */
export function variantCapacityFrom(out: EndpointReading, variantName: string): Capacity {
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

export interface SageMakerPort {
  variantCapacity(region: string, endpointName: string, variantName: string): Promise<Capacity>;
  componentCapacity(region: string, name: string): Promise<Capacity>;
  /**
   * Direct changes, for local runs without a state machine only (directScaling): in-memory
   * fakes may carry them; the AWS adapter never does (see ./sagemaker-writes.ts).
   */
  setVariantCapacity?(
    region: string,
    endpointName: string,
    variantName: string,
    desired: number,
  ): Promise<ApplyResult>;
  setComponentCopies?(region: string, name: string, desired: number): Promise<ApplyResult>;
}

/** Where the AWS adapter keeps its clients, so directScaling can build the writes beside it. */
export const SAGEMAKER_CLIENTS: unique symbol = Symbol('sagemaker clients');

export type SageMakerReads = SageMakerPort & {
  readonly [SAGEMAKER_CLIENTS]: (region: string) => SageMakerClient;
};

export function sageMakerAdapter(clientFor: (region: string) => SageMakerClient): SageMakerReads {
  const { describeEndpoint } = endpointReads(clientFor);
  return {
    [SAGEMAKER_CLIENTS]: clientFor,
    variantCapacity: async (region, endpointName, variantName) =>
      variantCapacityFrom(await describeEndpoint(region, endpointName), variantName),
    componentCapacity: async (region, InferenceComponentName) =>
      componentCapacityFrom(
        await clientFor(region).send(new DescribeInferenceComponentCommand({ InferenceComponentName })),
      ),
  };
}

/**
 * One DescribeEndpoint for every variant of the endpoint at once: the evaluator reads each
 * endpoint once per tick however many of its variants are targets (variantCapacityFrom picks
 * each). A port of its own (optional in functions/evaluate/ports.ts), so SageMakerPort and its
 * in-memory fakes stay as they are.
 */
export interface EndpointsPort {
  describeEndpoint(region: string, endpointName: string): Promise<EndpointReading>;
}

export function endpointReads(clientFor: (region: string) => SageMakerClient): EndpointsPort {
  return {
    describeEndpoint: (region, EndpointName) =>
      clientFor(region).send(new DescribeEndpointCommand({ EndpointName })),
  };
}

export type { ApplyResult };
