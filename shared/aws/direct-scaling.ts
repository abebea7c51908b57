/**
 * An ExecutionsPort that applies a SageMaker capacity change directly, with the same calls the
 * scale-target state machine's apply step makes (UpdateEndpointWeightsAndCapacities,
 * UpdateInferenceComponentRuntimeConfig), but without its kill-switch and generation checks,
 * waiting and verification. For `npm run local` and the moto integration test when no state
 * machine runs; the deployed function always starts the state machine, and its role may not
 * make these calls.
 *
 * `sageMaker` is the evaluate function's port: an in-memory fake that carries its own set
 * methods, or the AWS adapter, whose clients build the writes here (./sagemaker-writes.ts).
 */
import type { ScaleTargetInput } from '../apply/records.ts';
import { SAGEMAKER_CLIENTS, type SageMakerPort, type SageMakerReads } from './sagemaker.ts';
import { type SageMakerWrites, sageMakerWrites } from './sagemaker-writes.ts';
import type { ExecutionsPort } from './sfn.ts';

function writesOf(sageMaker: SageMakerPort): SageMakerWrites {
  const { setVariantCapacity, setComponentCopies } = sageMaker;
  if (setVariantCapacity && setComponentCopies) return { setVariantCapacity, setComponentCopies };
  const clients = (sageMaker as Partial<SageMakerReads>)[SAGEMAKER_CLIENTS];
  if (!clients)
    throw new Error('directScaling: this SageMaker port can neither change capacity nor reach a client');
  return sageMakerWrites(clients);
}

export function directScaling(sageMaker: SageMakerPort, region: string): ExecutionsPort {
  const writes = writesOf(sageMaker);
  const apply = (input: ScaleTargetInput) =>
    input.kind === 'sagemaker-variant'
      ? writes.setVariantCapacity(
          region,
          input.endpointName,
          input.variantName ?? 'AllTraffic',
          input.desiredCapacity,
        )
      : writes.setComponentCopies(region, input.inferenceComponentName ?? '', input.desiredCapacity);
  return {
    async startScaleTarget(_stateMachineArn, input) {
      const result = await apply(input);
      if (result.status === 'busy')
        throw new Error(`applied directly, but SageMaker refused: ${result.message}`);
      return { executionArn: null, duplicate: false };
    },
  };
}
