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

/**
 * Why an inference component may not be set to 0 copies, or null when it may (issue 18). AWS
 * scales an endpoint's instances to zero only when its production variant's managed instance
 * scaling allows it: "In the endpoint configuration, for the production variant
 * ManagedInstanceScaling object, you've set the MinInstanceCount parameter to 0"
 * (https://docs.aws.amazon.com/sagemaker/latest/dg/endpoint-auto-scaling-zero-instances.html).
 * Without it, 0 copies leave the instances running, billed, while the model serves nothing.
 * `variantName`: the component's variant (DescribeInferenceComponent's VariantName).
 */
export function zeroCopiesRefusal(
  out: EndpointReading,
  endpointName: string,
  variantName: string,
): string | null {
  const variant = (out.ProductionVariants ?? []).find((v) => v.VariantName === variantName);
  if (!variant)
    throw new MalformedResponseError(`DescribeEndpoint ${endpointName} has no variant "${variantName}"`);
  const m = variant.ManagedInstanceScaling;
  if (m?.Status === 'ENABLED' && m.MinInstanceCount === 0) return null;
  const has = !m
    ? 'has no ManagedInstanceScaling'
    : m.Status !== 'ENABLED'
      ? `has ManagedInstanceScaling ${m.Status ?? 'without a Status'}`
      : `has ManagedInstanceScaling MinInstanceCount ${m.MinInstanceCount ?? 'unset'}`;
  return `not scaled to 0 copies: variant ${variantName} of endpoint ${endpointName} ${has}, so its instances would stay (and bill) with no copy on them; give the endpoint config's variant ManagedInstanceScaling Status ENABLED and MinInstanceCount 0 (AWS's requirement for scaling to zero), or set scaling.minCapacity 1 and scaleToZero false`;
}

export interface SageMakerPort {
  variantCapacity(region: string, endpointName: string, variantName: string): Promise<Capacity>;
  componentCapacity(region: string, name: string): Promise<Capacity>;
  /**
   * Read back before an inference component is set to 0 copies (zeroCopiesRefusal): its variant
   * (DescribeInferenceComponent) and that variant's managed instance scaling (DescribeEndpoint).
   * In-memory fakes may leave it out: then nothing is checked.
   */
  zeroCopiesRefusal?(region: string, componentName: string): Promise<string | null>;
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

export type SageMakerReads = SageMakerPort &
  Required<Pick<SageMakerPort, 'zeroCopiesRefusal'>> & {
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
    async zeroCopiesRefusal(region, InferenceComponentName) {
      const ic = await clientFor(region).send(
        new DescribeInferenceComponentCommand({ InferenceComponentName }),
      );
      const endpointName = text(ic.EndpointName, 'DescribeInferenceComponent EndpointName');
      const variantName = text(ic.VariantName, 'DescribeInferenceComponent VariantName');
      return zeroCopiesRefusal(await describeEndpoint(region, endpointName), endpointName, variantName);
    },
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
