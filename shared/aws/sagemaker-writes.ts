/**
 * The two SageMaker calls that change capacity: the same calls the scale-target state machine's
 * apply step makes, without its generation check, waiting and verification. Used by local runs
 * (`npm run local`, `governor invoke` against moto without a state machine, through
 * ./direct-scaling.ts) and by the failover act function's prescale, which only raises capacity
 * and re-reads the kill switch first (functions/failover/act.ts). The evaluate function never
 * imports it: its capacity changes go through the scale-target state machine
 * (tests/template/grants.test.ts pins that the evaluate function's code sends no SageMaker write).
 */
import {
  type SageMakerClient,
  UpdateEndpointWeightsAndCapacitiesCommand,
  UpdateInferenceComponentRuntimeConfigCommand,
} from '@aws-sdk/client-sagemaker';
import type { ApplyResult } from './capacity.ts';
import { isBusyError } from './sagemaker-busy.ts';

export interface SageMakerWrites {
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

export function sageMakerWrites(clientFor: (region: string) => SageMakerClient): SageMakerWrites {
  return {
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
