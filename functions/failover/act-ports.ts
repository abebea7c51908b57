/**
 * The act function's environment and adapters: the same capacity adapters the evaluator and the
 * scale-target state machine use (SageMaker reads and its two capacity writes, EC2 Auto Scaling),
 * the three routing adapters (clients built once per container, at first use), and the
 * CloudWatch read of the failover health evaluation (shared/signals/failover-observe.ts).
 */
import * as z from 'zod';
import type { ClientOptions, Clients } from '../../shared/aws/clients.ts';
import { cloudWatchMetrics } from '../../shared/aws/cloudwatch.ts';
// DescribeAutoScalingGroups and SetDesiredCapacity, no policy reads or suspension (grant check).
import { groupCapacityAdapter as autoScalingAdapter } from '../../shared/aws/group-capacity-writes.ts';
import { globalAcceleratorClient, globalAcceleratorDials } from '../../shared/aws/routing-accelerator.ts';
import { arcClusterClients, arcRoutingControls } from '../../shared/aws/routing-arc.ts';
import { route53Client, route53WeightedRecords } from '../../shared/aws/routing-route53.ts';
import { sageMakerAdapter } from '../../shared/aws/sagemaker.ts';
import { sageMakerWrites } from '../../shared/aws/sagemaker-writes.ts';
import { ssmParameters } from '../../shared/aws/ssm.ts';
import { resolveFailoverGroups } from '../../shared/failover/group.ts';
import { parseEnvironment, envName as required } from '../../shared/invocation/config.ts';
import { readKillSwitch } from '../../shared/invocation/kill-switch.ts';
import { readPolicy } from '../../shared/policy-store/read.ts';
import { healthQueries, observation, type RegionRead } from '../../shared/signals/failover-observe.ts';
import type { ActPorts, CheckInput, TargetRef } from './act.ts';

export const ActConfigSchema = z.object({
  POLICY_PARAMETER_NAME: required('the SSM parameter holding the policy YAML (the check reads its targets)'),
  KILL_SWITCH_PARAMETER_NAME: required('the SSM parameter whose value "on" stops all actions'),
  /** Empty: no SageMaker target may be prescaled (the role holds no SageMaker write). */
  MANAGED_ENDPOINT_PREFIX: z.string().default(''),
  MANAGED_AUTO_SCALING_GROUP_PREFIX: z.string().default(''),
  METRIC_NAMESPACE: z.string().min(1).default('Governor'),
  AWS_REGION: z.string().min(1).default('us-east-1'),
});
export type ActConfig = z.infer<typeof ActConfigSchema>;

export function parseActConfig(env: Record<string, string | undefined>): ActConfig {
  return parseEnvironment(ActConfigSchema, env);
}

const once = <T>(make: () => T): (() => T) => {
  let made: T | undefined;
  return () => {
    made ??= make();
    return made;
  };
};

export function awsActPorts(clients: Clients, options: ClientOptions, config: ActConfig): ActPorts {
  const sageMaker = sageMakerAdapter(clients.sageMaker);
  const writes = sageMakerWrites(clients.sageMaker);
  const groups = autoScalingAdapter(clients.autoScaling);
  const metrics = cloudWatchMetrics(clients.cloudWatch);
  const parameters = ssmParameters(clients.home.ssm);
  const arcClients = once(() => arcClusterClients(options));
  const capacity = async (region: string, t: TargetRef) => {
    if (t.kind === 'sagemaker-variant')
      return sageMaker.variantCapacity(region, t.endpointName, t.variantName);
    if (t.kind === 'sagemaker-inference-component')
      return sageMaker.componentCapacity(region, t.inferenceComponentName);
    const found = (await groups.describeGroups(region, [t.autoScalingGroupName])).get(t.autoScalingGroupName);
    if (!found) throw new Error(`Auto Scaling group "${t.autoScalingGroupName}" does not exist in ${region}`);
    return found.capacity;
  };
  return {
    capacity,
    setCapacity: (region, t, desired) =>
      t.kind === 'sagemaker-variant'
        ? writes.setVariantCapacity(region, t.endpointName, t.variantName, desired)
        : t.kind === 'sagemaker-inference-component'
          ? writes.setComponentCopies(region, t.inferenceComponentName, desired)
          : groups.setDesiredCapacity(region, t.autoScalingGroupName, desired),
    weightedRecords: once(() => route53WeightedRecords(route53Client(options))),
    routingControls: (endpoints) => arcRoutingControls(arcClients(), endpoints),
    trafficDials: once(() => globalAcceleratorDials(globalAcceleratorClient(options))),
    readings: (check, now) => readHealth(config, parameters, metrics, check, now),
    killSwitch: () => readKillSwitch((n) => parameters.get(n), config.KILL_SWITCH_PARAMETER_NAME),
    policy: async () => {
      const merged = await readPolicy(parameters, config.POLICY_PARAMETER_NAME);
      if (!merged.ok) throw new Error(`no valid policy: ${merged.problems.join('; ')}`);
      return { groups: resolveFailoverGroups(merged.policy), targets: merged.policy.targets };
    },
  };
}

/**
 * The receiving regions' newest error rate and p95, read as the health evaluation reads them
 * (the policy's group that holds the check's targets; one GetMetricData per region). A policy
 * that no longer holds the targets gives no reading: missing data, never a regression.
 */
async function readHealth(
  config: ActConfig,
  parameters: ReturnType<typeof ssmParameters>,
  metrics: ReturnType<typeof cloudWatchMetrics>,
  check: CheckInput,
  now: number,
) {
  const merged = await readPolicy(parameters, config.POLICY_PARAMETER_NAME);
  if (!merged.ok) throw new Error(`no valid policy: ${merged.problems.join('; ')}`);
  const group = resolveFailoverGroups(merged.policy).find((g) =>
    check.targets.every((id) => g.members.some((m) => m.targetId === id)),
  );
  if (!group) return [];
  const queries = healthQueries(group, merged.policy.targets, config.METRIC_NAMESPACE);
  const minute = Math.floor(now / 60_000) * 60_000;
  const window = { start: minute - check.staleAfterSeconds * 1000 - 60_000, end: minute };
  const reads: Record<string, RegionRead> = {};
  for (const region of check.regions) {
    const inRegion = queries.filter((q) => q.region === region);
    reads[region] = {
      results: inRegion.length > 0 ? await metrics.getMetricData(region, inRegion, window) : null,
    };
  }
  const observed = observation(group, queries, reads, now).regions;
  return check.regions.map((region) => ({
    region,
    ...(observed[region]?.errorRatePercent ? { errorRatePercent: observed[region].errorRatePercent } : {}),
    ...(observed[region]?.p95LatencyMs ? { p95LatencyMs: observed[region].p95LatencyMs } : {}),
  }));
}
