/**
 * Every EC2 Auto Scaling policy in a region, by group: the evaluator's sweep when it manages
 * more groups than it is worth asking about one by one. DescribePolicies takes one group name,
 * or none: then it pages through every policy of every group in the region, up to 100 a page.
 * G groups asked one by one are G calls a tick; the sweep is ceil(P / 100), P the region's
 * policies, whatever G is. Each policy is converted and checked as ./autoscaling.ts converts
 * one group's (groupPolicyFrom); a policy that names no group is rejected, not dropped.
 *
 * Kept apart from ./autoscaling.ts so that module's GroupsPort stays as it is: in-memory fakes
 * implement it, and this sweep is optional (functions/evaluate/ports.ts).
 */
import {
  type AutoScalingClient,
  DescribePoliciesCommand,
  type ScalingPolicy,
} from '@aws-sdk/client-auto-scaling';
import type { GroupPolicy } from '../apply/conflicts.ts';
import { groupPolicyFrom } from './autoscaling.ts';
import { MalformedResponseError } from './capacity.ts';

/** DescribePolicies returns at most 100 policies a page. */
const POLICIES_PER_PAGE = 100;
/** Guards against a service that keeps answering with a NextToken: 100 pages, 10,000 policies. */
const MAX_PAGES = 100;

export interface GroupPoliciesPort {
  /** Every policy of every group in the region by group name; a group absent from it has none. */
  allGroupPolicies(region: string): Promise<Map<string, GroupPolicy[]>>;
}

/** A page of the region's policies into `into`, by group name. */
export function indexGroupPolicies(
  policies: readonly ScalingPolicy[],
  into: Map<string, GroupPolicy[]>,
): void {
  for (const p of policies) {
    const group = p.AutoScalingGroupName;
    if (!group) {
      throw new MalformedResponseError(
        `DescribePolicies: policy ${p.PolicyName ?? '(unnamed)'} has no AutoScalingGroupName`,
      );
    }
    into.set(group, [...(into.get(group) ?? []), groupPolicyFrom(p, group)]);
  }
}

export function groupPoliciesAdapter(clientFor: (region: string) => AutoScalingClient): GroupPoliciesPort {
  return {
    async allGroupPolicies(region) {
      const found = new Map<string, GroupPolicy[]>();
      let token: string | undefined;
      for (let page = 0; page < MAX_PAGES; page++) {
        const out = await clientFor(region).send(
          new DescribePoliciesCommand({ MaxRecords: POLICIES_PER_PAGE, NextToken: token }),
        );
        if (!Array.isArray(out.ScalingPolicies))
          throw new MalformedResponseError('DescribePolicies ScalingPolicies is missing');
        indexGroupPolicies(out.ScalingPolicies, found);
        token = out.NextToken;
        if (!token) return found;
      }
      throw new Error(`DescribePolicies still had a NextToken after ${MAX_PAGES} pages`);
    },
  };
}
