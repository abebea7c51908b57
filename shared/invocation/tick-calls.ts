/**
 * How many AWS calls one evaluation makes, as a formula of the policy's shape: the contract the
 * evaluator's reads (functions/evaluate/observe.ts) keep, and the figure docs/scale.md derives
 * the ceiling of one deployment from. tests/scale/tick-calls.test.ts counts every SDK call of a
 * tick of 50 and 500 targets and compares it with this, so a change that brings back a call per
 * target where a batched or shared one exists fails there.
 *
 * Per region r, with Q_r metric queries, E_r endpoints, C_r inference components, S_r SageMaker
 * resources (A_r of them registered with Application Auto Scaling and scaling dynamically),
 * G_r groups, and P_r / PG_r the region's SageMaker / EC2 Auto Scaling scaling policies:
 *   GetMetricData               ceil(Q_r / 500)
 *   DescribeEndpoint            E_r (one per endpoint, whatever its number of variant targets)
 *   DescribeInferenceComponent  C_r
 *   DescribeScalableTargets     ceil(S_r / 50)
 *   DescribeScalingPolicies     A_r if A_r <= 4, else ceil(P_r / 10) (at least 1)
 *   DescribeAutoScalingGroups   ceil(G_r / 50)
 *   DescribePolicies            G_r if G_r <= 4, else ceil(PG_r / 100) (at least 1)
 * and once: GetParameter 1 (the kill switch; 2 when the policy cache is cold), when the cache is
 * cold GetParametersByPath max(1, ceil(parts / 10)) (the policy's parts, 10 a page: one call
 * that finds none when there are no parts), for N targets of which M have a capacityMix,
 * BatchGetItem ceil((N + M) / 100) when N + M >= 2 (their state items and the M PLAN items of
 * the capacity mix, in the same calls; one target without a mix: GetItem 1), and, for the F
 * failover groups with a member among the targets,
 * BatchGetItem ceil(F / 100) more (their FAILOVER# items: one call per tick, never one per
 * target; none without a failover block).
 *
 * Worked example (tests/scale, "500 variants"): 500 single-variant endpoints with 3 signals
 * each, all registered, 20 with a policy: 1 + ceil(1500 / 500) + 500 + ceil(500 / 50) +
 * ceil(20 / 10) + ceil(500 / 100) = 1 + 3 + 500 + 10 + 2 + 5 = 521 reads, of which only the
 * 500 DescribeEndpoint grow with the targets. Then per target its writes: the claim (UpdateItem,
 * when the plan keeps state), its action when it acts, and the decision record (PutItem).
 */

import type { TargetPolicy } from '../policy/schema.ts';
import { buildQueries, MAX_QUERIES_PER_CALL } from '../signals/queries.ts';

/**
 * Up to this many resources (or groups) in a region are asked about one by one: at most 4
 * calls, side by side. More sweep the region's policies instead, ceil(P / 10) (ceil(PG / 100))
 * calls, fewer unless the region holds over 40 SageMaker (400 group) scaling policies.
 */
export const ONE_BY_ONE_MAX = 4;
/** GetParametersByPath returns at most 10 parameters a page. */
export const POLICY_PARTS_PER_PAGE = 10;
/**
 * From this many keys (state items, plus the PLAN items of targets with a capacityMix), they are
 * read with BatchGetItem (one target without a mix: GetItem, 1 call either way).
 */
export const BATCH_STATE_FROM = 2;
export const SCALABLE_TARGET_IDS_PER_CALL = 50;
/** DescribeScalingPolicies' MaxResults is 1 to 10 (shared/aws/app-autoscaling.ts). */
export const SCALING_POLICIES_PER_PAGE = 10;
export const GROUP_NAMES_PER_CALL = 50;
export const GROUP_POLICIES_PER_PAGE = 100;
export const STATE_KEYS_PER_CALL = 100;

/** What the formula needs to know of a region beyond the policy. */
export interface RegionFacts {
  /** The targets' SageMaker resources registered with Application Auto Scaling and scaling dynamically. */
  activeResources: number;
  /** SageMaker scaling policies in the region, Governor's targets' or not (a sweep reads them all). */
  sageMakerPolicies: number;
  /** EC2 Auto Scaling policies in the region. */
  groupPolicies: number;
}

export type TickCalls = Record<string, number>;

const up = (n: number, per: number) => Math.ceil(n / per);
const perResource = (n: number, policies: number, per: number) =>
  n <= ONE_BY_ONE_MAX ? n : Math.max(1, up(policies, per));

function regionReads(targets: readonly TargetPolicy[], facts: RegionFacts): TickCalls {
  const endpoints = new Set<string>();
  const resources = new Set<string>();
  let components = 0;
  let groups = 0;
  for (const t of targets) {
    if (t.kind === 'sagemaker-variant') {
      endpoints.add(t.endpointName);
      resources.add(`endpoint/${t.endpointName}/variant/${t.variantName}`);
    } else if (t.kind === 'sagemaker-inference-component') {
      components++;
      resources.add(`inference-component/${t.inferenceComponentName}`);
    } else groups++;
  }
  return {
    'CloudWatch.GetMetricData': up(buildQueries(targets).length, MAX_QUERIES_PER_CALL),
    'SageMaker.DescribeEndpoint': endpoints.size,
    'SageMaker.DescribeInferenceComponent': components,
    'ApplicationAutoScaling.DescribeScalableTargets': up(resources.size, SCALABLE_TARGET_IDS_PER_CALL),
    'ApplicationAutoScaling.DescribeScalingPolicies': perResource(
      facts.activeResources,
      facts.sageMakerPolicies,
      SCALING_POLICIES_PER_PAGE,
    ),
    'AutoScaling.DescribeAutoScalingGroups': up(groups, GROUP_NAMES_PER_CALL),
    'AutoScaling.DescribePolicies': perResource(groups, facts.groupPolicies, GROUP_POLICIES_PER_PAGE),
  };
}

/** The reads of one evaluation of `targets` (no lost claims): calls by "Service.Operation", zeros left out. */
export function tickReads(
  targets: readonly TargetPolicy[],
  factsOf: (region: string) => RegionFacts,
  options: { policyCached: boolean; policyParts?: number; failoverGroups?: number },
): TickCalls {
  const groups = up(options.failoverGroups ?? 0, STATE_KEYS_PER_CALL);
  // State items and the capacity mix's PLAN items share the batched read.
  const keys = targets.length + targets.filter((t) => t.capacityMix !== undefined).length;
  const batched = keys >= BATCH_STATE_FROM;
  const total: TickCalls = {
    'SSM.GetParameter': options.policyCached ? 1 : 2,
    'SSM.GetParametersByPath': options.policyCached
      ? 0
      : Math.max(1, up(options.policyParts ?? 0, POLICY_PARTS_PER_PAGE)),
    'DynamoDB.BatchGet': (batched ? up(keys, STATE_KEYS_PER_CALL) : 0) + groups,
    'DynamoDB.Get': batched ? 0 : targets.length,
  };
  const regions = new Map<string, TargetPolicy[]>();
  for (const t of targets) regions.set(t.region, [...(regions.get(t.region) ?? []), t]);
  for (const [region, list] of regions) {
    for (const [call, n] of Object.entries(regionReads(list, factsOf(region))))
      total[call] = (total[call] ?? 0) + n;
  }
  return Object.fromEntries(Object.entries(total).filter(([, n]) => n > 0));
}
