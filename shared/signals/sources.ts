/**
 * Where each signal lives in CloudWatch, per target kind: namespace, metric name, dimensions,
 * statistic and the factor that puts the value in the policy's units. A signal's `cloudwatch`
 * override wins (values taken as they are). Names checked against the SageMaker and CloudWatch
 * agent documentation:
 * - `AWS/SageMaker`: InvocationsPerInstance (Sum per minute: requests per instance per minute),
 *   InvocationsPerCopy for inference components, ModelLatency (microseconds, so x 0.001 for ms;
 *   p95 / p99), ConcurrentRequestsPerModel / ConcurrentRequestsPerCopy (high-resolution,
 *   averaged over the minute), ApproximateBacklogSizePerInstance (asynchronous endpoints);
 * - `/aws/sagemaker/Endpoints`: GPUUtilization, GPUMemoryUtilization (percent, summed over the
 *   instance's GPUs: 0-400 on a 4-GPU instance, so set the target in the same units);
 * - `/aws/sagemaker/InferenceComponents`: GPUUtilizationNormalized, GPUMemoryUtilizationNormalized;
 * - `CWAgent` (CloudWatch agent on the group's instances, aggregated by AutoScalingGroupName):
 *   nvidia_smi_utilization_gpu.
 */
import type { MetricName, Signal, TargetPolicy } from '../policy/schema.ts';

export interface MetricSource {
  namespace: string;
  metricName: string;
  dimensions: Record<string, string>;
  statistic: string;
  /** Multiplies each datapoint into the policy's unit (0.001: microseconds to milliseconds). */
  scale: number;
}

/** A count read as its Sum per period, in its own unit. */
export const sumSource = (
  namespace: string,
  metricName: string,
  dimensions: Record<string, string>,
): MetricSource => ({ namespace, metricName, dimensions, statistic: 'Sum', scale: 1 });

const SM = 'AWS/SageMaker';
const US_TO_MS = 0.001;

type SourceTable = Partial<Record<MetricName, Omit<MetricSource, 'dimensions'> & { dims?: 'endpoint' }>>;

const VARIANT: SourceTable = {
  invocationsPerInstance: { namespace: SM, metricName: 'InvocationsPerInstance', statistic: 'Sum', scale: 1 },
  concurrencyPerInstance: {
    namespace: SM,
    metricName: 'ConcurrentRequestsPerModel',
    statistic: 'Average',
    scale: 1,
  },
  p95LatencyMs: { namespace: SM, metricName: 'ModelLatency', statistic: 'p95', scale: US_TO_MS },
  p99LatencyMs: { namespace: SM, metricName: 'ModelLatency', statistic: 'p99', scale: US_TO_MS },
  gpuUtilization: {
    namespace: '/aws/sagemaker/Endpoints',
    metricName: 'GPUUtilization',
    statistic: 'Average',
    scale: 1,
  },
  gpuMemoryUtilization: {
    namespace: '/aws/sagemaker/Endpoints',
    metricName: 'GPUMemoryUtilization',
    statistic: 'Average',
    scale: 1,
  },
  queueDepthPerInstance: {
    namespace: SM,
    metricName: 'ApproximateBacklogSizePerInstance',
    statistic: 'Average',
    scale: 1,
    dims: 'endpoint',
  },
};

const IC_NS = '/aws/sagemaker/InferenceComponents';
const COMPONENT: SourceTable = {
  invocationsPerInstance: { namespace: SM, metricName: 'InvocationsPerCopy', statistic: 'Sum', scale: 1 },
  concurrencyPerInstance: {
    namespace: SM,
    metricName: 'ConcurrentRequestsPerCopy',
    statistic: 'Average',
    scale: 1,
  },
  p95LatencyMs: { namespace: SM, metricName: 'ModelLatency', statistic: 'p95', scale: US_TO_MS },
  p99LatencyMs: { namespace: SM, metricName: 'ModelLatency', statistic: 'p99', scale: US_TO_MS },
  gpuUtilization: {
    namespace: IC_NS,
    metricName: 'GPUUtilizationNormalized',
    statistic: 'Average',
    scale: 1,
  },
  gpuMemoryUtilization: {
    namespace: IC_NS,
    metricName: 'GPUMemoryUtilizationNormalized',
    statistic: 'Average',
    scale: 1,
  },
};

const GROUP: SourceTable = {
  gpuUtilization: {
    namespace: 'CWAgent',
    metricName: 'nvidia_smi_utilization_gpu',
    statistic: 'Average',
    scale: 1,
  },
};

function targetDimensions(t: TargetPolicy, endpointOnly: boolean): Record<string, string> {
  switch (t.kind) {
    case 'sagemaker-variant':
      return endpointOnly
        ? { EndpointName: t.endpointName }
        : { EndpointName: t.endpointName, VariantName: t.variantName };
    case 'sagemaker-inference-component':
      return { InferenceComponentName: t.inferenceComponentName };
    case 'ec2-asg':
      return { AutoScalingGroupName: t.autoScalingGroupName };
  }
}

const TABLES: Record<TargetPolicy['kind'], SourceTable> = {
  'sagemaker-variant': VARIANT,
  'sagemaker-inference-component': COMPONENT,
  'ec2-asg': GROUP,
};

/** The CloudWatch source of one signal of one target, or null when there is none to default to. */
export function signalSource(t: TargetPolicy, s: Signal): MetricSource | null {
  if (s.cloudwatch) {
    const { namespace, metricName, dimensions, statistic } = s.cloudwatch;
    return { namespace, metricName, dimensions, statistic, scale: 1 };
  }
  const row = TABLES[t.kind][s.metric];
  if (!row) return null;
  const { dims, ...source } = row;
  return { ...source, dimensions: targetDimensions(t, dims === 'endpoint') };
}

/**
 * Sources of the activation total (scale from and to zero), summed per minute: the policy's
 * `activation.cloudwatch` when it names one, else an inference component's requests. An inference
 * component at zero copies rejects requests, which SageMaker counts as
 * NoCapacityInvocationFailures, so both counts together are the demand. Null: no source.
 */
export function activationSources(t: TargetPolicy): MetricSource[] | null {
  const a = t.scaling.activation;
  if (!a || !t.scaling.scaleToZero) return [];
  if (a.cloudwatch) {
    // The operator's total (a queue's backlog, a gateway's request count), taken as it is.
    const { namespace, metricName, dimensions, statistic } = a.cloudwatch;
    return [{ namespace, metricName, dimensions, statistic, scale: 1 }];
  }
  if (t.kind !== 'sagemaker-inference-component' || a.metric !== 'invocations') return null;
  const dimensions = targetDimensions(t, false);
  return ['Invocations', 'NoCapacityInvocationFailures'].map((metricName) => ({
    namespace: SM,
    metricName,
    dimensions,
    statistic: 'Sum',
    scale: 1,
  }));
}

/**
 * The source of the basis of a SageMaker target's per-instance readings: `Invocations` (Sum) with
 * the dimensions of its `invocationsPerInstance` source. SageMaker sends 1 / (instances in service
 * at the time of the request) as each request's InvocationsPerInstance sample (the API
 * reference, ScalingPolicyMetric), so Invocations / InvocationsPerInstance of one minute is the
 * number of instances that minute's per-instance values were averaged over (Reading.basis), not
 * the fleet as it stands when the datapoint is read a minute or two later. Null for an Auto
 * Scaling group, a target without the signal, or one whose signal reads an operator's metric
 * (a `cloudwatch` override: its relation to Invocations is unknown).
 */
export function basisSource(t: TargetPolicy): MetricSource | null {
  if (t.kind === 'ec2-asg') return null;
  const s = t.signals.find((x) => x.metric === 'invocationsPerInstance');
  if (!s || s.cloudwatch) return null;
  const perInstance = signalSource(t, s);
  return perInstance ? sumSource(perInstance.namespace, 'Invocations', perInstance.dimensions) : null;
}

/** CloudWatch statistics GetMetricData accepts: the five basic ones and percentile-style ones. */
const STATISTIC = /^(SampleCount|Average|Sum|Minimum|Maximum|(p|tm|wm|tc|ts)\d{1,2}(\.\d{1,2})?|p100)$/;

export interface SourceProblem {
  path: string;
  message: string;
}

/**
 * Runtime rules on top of the policy schema: every signal needs a CloudWatch source, and the
 * statistic of an override must be one CloudWatch accepts (one bad statistic fails the whole
 * batched GetMetricData call, so it is caught at load time instead).
 */
export function sourceProblems(targets: readonly (TargetPolicy | undefined)[]): SourceProblem[] {
  const problems: SourceProblem[] = [];
  targets.forEach((t, i) => {
    // A hole is a target that failed its own schema: its problems are already said.
    if (!t) return;
    t.signals.forEach((s, j) => {
      const at = `targets[${i}].signals[${j}]`;
      if (s.cloudwatch && !STATISTIC.test(s.cloudwatch.statistic)) {
        problems.push({
          path: `${at}.cloudwatch.statistic`,
          message: `"${s.cloudwatch.statistic}" is not a CloudWatch statistic: use Average, Sum, Minimum, Maximum, SampleCount or pNN`,
        });
      }
      if (signalSource(t, s) === null) {
        problems.push({
          path: `${at}.cloudwatch`,
          message: `is required for ${s.metric} on kind ${t.kind}: no built-in metric carries it, so name the namespace, metricName and dimensions`,
        });
      }
    });
    const cw = t.scaling.activation?.cloudwatch;
    if (cw && !STATISTIC.test(cw.statistic)) {
      problems.push({
        path: `targets[${i}].scaling.activation.cloudwatch.statistic`,
        message: `"${cw.statistic}" is not a CloudWatch statistic: use Average, Sum, Minimum, Maximum, SampleCount or pNN`,
      });
    }
    if (activationSources(t) === null) {
      problems.push({
        path: `targets[${i}].scaling.activation.cloudwatch`,
        message: `is required for activation metric "${t.scaling.activation?.metric}" on kind ${t.kind}: no built-in metric carries the total, so name the namespace, metricName and dimensions (only an inference component's "invocations" has one)`,
      });
    }
  });
  return problems;
}
