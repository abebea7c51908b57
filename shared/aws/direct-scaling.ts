/**
 * An ExecutionsPort that applies a SageMaker capacity change directly, with the same calls the
 * scale-target state machine's apply step makes (UpdateEndpointWeightsAndCapacities,
 * UpdateInferenceComponentRuntimeConfig), but without its waiting and verification. For
 * `npm run local` and the moto integration test when no state machine runs; the deployed
 * function always starts the state machine.
 */
import type { ScaleTargetInput } from '../control/records.ts';
import type { SageMakerPort } from './sagemaker.ts';
import type { ExecutionsPort } from './sfn.ts';

export function directScaling(sageMaker: SageMakerPort, region: string): ExecutionsPort {
  const apply = (input: ScaleTargetInput) =>
    input.kind === 'sagemaker-variant'
      ? sageMaker.setVariantCapacity(
          region,
          input.endpointName,
          input.variantName ?? 'AllTraffic',
          input.desiredCapacity,
        )
      : sageMaker.setComponentCopies(region, input.inferenceComponentName ?? '', input.desiredCapacity);
  return {
    async startScaleTarget(_stateMachineArn, input) {
      const result = await apply(input);
      if (result.status === 'busy')
        throw new Error(`applied directly, but SageMaker refused: ${result.message}`);
      return { executionArn: null, duplicate: false };
    },
  };
}
