/** Policies for the control-plane tests: built through the real schema, so defaults apply. */
import { policyOrThrow } from '#shared/policy/load.ts';
import type { PolicyFile } from '#shared/policy/schema.ts';

export const variantTarget = (over: Record<string, unknown> = {}) => ({
  id: 'chat-llm',
  kind: 'sagemaker-variant',
  region: 'us-east-1',
  endpointName: 'chat-llm-prod',
  variantName: 'AllTraffic',
  scaling: { minCapacity: 1, maxCapacity: 20 },
  signals: [
    { metric: 'invocationsPerInstance', target: 100 },
    { metric: 'p95LatencyMs', sloMs: 2000 },
  ],
  damping: { scaleOutBreaches: 1, scaleInBreaches: 3, scaleInStabilizationSeconds: 180 },
  ...over,
});

export const componentTarget = (over: Record<string, unknown> = {}) => ({
  id: 'embedder',
  kind: 'sagemaker-inference-component',
  region: 'us-east-1',
  endpointName: 'shared-gpu',
  inferenceComponentName: 'embedder-ic',
  scaling: {
    minCapacity: 0,
    maxCapacity: 8,
    scaleToZero: true,
    activation: { metric: 'invocations', threshold: 0 },
  },
  signals: [{ metric: 'concurrencyPerInstance', target: 4 }],
  ...over,
});

export const groupTarget = (over: Record<string, unknown> = {}) => ({
  id: 'batch-gpu',
  kind: 'ec2-asg',
  region: 'us-east-1',
  autoScalingGroupName: 'batch-gpu-asg',
  scaling: { minCapacity: 1, maxCapacity: 10 },
  signals: [{ metric: 'gpuUtilization', target: 70 }],
  damping: { scaleOutBreaches: 1 },
  ...over,
});

export const policyOf = (...targets: Record<string, unknown>[]): PolicyFile =>
  policyOrThrow({ version: 1, targets });

export const threeTargets = () => policyOf(variantTarget(), componentTarget(), groupTarget());
