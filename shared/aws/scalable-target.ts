/**
 * The Application Auto Scaling identity of a SageMaker target: resource id and scalable
 * dimension. Kept apart from the adapters that call the service, so code that only needs the
 * name (the forecast function, the evaluate function) imports no API call it does not make:
 * the template's grant check follows imports file by file.
 */
import type { ScalableDimension } from '@aws-sdk/client-application-auto-scaling';
import type { TargetPolicy } from '../policy/schema.ts';

export interface ScalableRef {
  resourceId: string;
  dimension: ScalableDimension;
}

/** The Application Auto Scaling resource of a SageMaker target; null for an Auto Scaling group. */
export function scalableRef(t: TargetPolicy): ScalableRef | null {
  switch (t.kind) {
    case 'sagemaker-variant':
      return {
        resourceId: `endpoint/${t.endpointName}/variant/${t.variantName}`,
        dimension: 'sagemaker:variant:DesiredInstanceCount',
      };
    case 'sagemaker-inference-component':
      return {
        resourceId: `inference-component/${t.inferenceComponentName}`,
        dimension: 'sagemaker:inference-component:DesiredCopyCount',
      };
    case 'ec2-asg':
      return null;
  }
}
