/**
 * Application Auto Scaling adapter: finds other scalers on SageMaker targets, so Governor never
 * fights them.
 *
 * Detection is batched DescribeScalableTargets per region, 50 resource ids a call (a scaling
 * policy cannot exist without a scalable target), then the policies of the registered targets
 * whose dynamic scaling is not already suspended. DescribeScalingPolicies takes one ResourceId
 * (no list), or none: then it pages through every SageMaker policy in the region, 10 a page.
 * A forecasting deployment registers every target (scheduled actions need a scalable target),
 * so asking one by one was one call per target per tick; observe.ts asks one by one for a few
 * and sweeps the namespace (policiesInNamespace) for more: ceil(P / 10) calls, P the region's
 * SageMaker scaling policies, whatever the number of targets. Suspending them (onConflictingScaler: suspend) is
 * the scale-target state machine's step "Suspend the other scaler", right before it sends the
 * change: RegisterScalableTarget with SuspendedState DynamicScalingInSuspended and
 * DynamicScalingOutSuspended true. Application Auto Scaling checks that the caller may change
 * the target itself, so the role that suspends must hold the SageMaker update actions; the
 * state machine's holds them already, and the evaluate function's holds none.
 *
 * The forecast function's scheduled actions are in ./scheduled-actions.ts, not here: the
 * evaluate function imports this module, and the template's grant check (calls granted, grants
 * used) follows imports file by file, so calls here would be owed to the evaluate role too.
 */
import {
  type ApplicationAutoScalingClient,
  DescribeScalableTargetsCommand,
  DescribeScalingPoliciesCommand,
  type ScalableTarget,
  type ScalingPolicy,
} from '@aws-sdk/client-application-auto-scaling';
import { chunks, mapBounded } from '../invocation/pool.ts';
import { MalformedResponseError } from './capacity.ts';
import type { ScalableRef } from './scalable-target.ts';

export { type ScalableRef, scalableRef } from './scalable-target.ts';

/** Whether a registered target still scales on its own (dynamic scaling not fully suspended). */
export const scalesDynamically = (t: ScalableTarget): boolean =>
  !(t.SuspendedState?.DynamicScalingInSuspended && t.SuspendedState?.DynamicScalingOutSuspended);

/** The key of a resource and dimension in policiesInNamespace's map. */
export const refKey = (ref: ScalableRef): string => `${ref.resourceId}|${ref.dimension}`;

/**
 * A page of the namespace's policies into `into` (names by refKey). A policy without its
 * resource, dimension or name is rejected: read as "no policy", it would let Governor fight it.
 */
export function indexPolicies(policies: readonly ScalingPolicy[], into: Map<string, string[]>): void {
  for (const p of policies) {
    if (!p.ResourceId || !p.ScalableDimension || !p.PolicyName) {
      throw new MalformedResponseError(
        `DescribeScalingPolicies: a policy without ${!p.PolicyName ? 'PolicyName' : !p.ResourceId ? 'ResourceId' : 'ScalableDimension'} (${p.PolicyName ?? p.PolicyARN ?? 'unnamed'})`,
      );
    }
    const key = refKey({ resourceId: p.ResourceId, dimension: p.ScalableDimension });
    into.set(key, [...(into.get(key) ?? []), p.PolicyName]);
  }
}

export interface ScalersPort {
  /** Resource ids (of refs) registered and scaling dynamically. */
  activeScalableTargets(region: string, refs: readonly ScalableRef[]): Promise<Set<string>>;
  policyNames(region: string, ref: ScalableRef): Promise<string[]>;
  /**
   * Every SageMaker scaling policy in the region, names by refKey: ceil(P / 10) calls one after
   * the other (each page's token). Optional: in-memory fakes may answer policyNames only.
   */
  policiesInNamespace?(region: string): Promise<Map<string, string[]>>;
  /** Unused since the state machine suspends (kept optional for in-memory fakes that have it). */
  suspendDynamicScaling?(region: string, ref: ScalableRef): Promise<void>;
}

/** DescribeScalableTargets filters by at most 50 resource ids per call. */
const IDS_PER_CALL = 50;
/**
 * DescribeScalingPolicies returns at most 10 policies a page: MaxResults "can be between 1 and 10"
 * (Application Auto Scaling API reference, and its model's documentation of the member; the model
 * itself gives the shape no range). 50, sent until issue 18, is refused.
 */
const POLICIES_PER_PAGE = 10;
/**
 * DescribeScalableTargets chunks in flight at once: 500 targets are 10 calls, about 0.1 s each,
 * so 4 at a time take 0.3 s instead of 1 s, at 4 concurrent requests against the account's
 * Application Auto Scaling rate.
 */
const CHUNKS_IN_FLIGHT = 4;
/** Guards against a service that keeps answering with a NextToken: 200 pages, 10,000 policies. */
const MAX_SWEEP_PAGES = 200;

export function appAutoScalingAdapter(
  clientFor: (region: string) => ApplicationAutoScalingClient,
): ScalersPort {
  return {
    async activeScalableTargets(region, refs) {
      const active = new Set<string>();
      const wanted = new Set(refs.map((r) => `${r.resourceId}|${r.dimension}`));
      const ids = [...new Set(refs.map((r) => r.resourceId))];
      await mapBounded(chunks(ids, IDS_PER_CALL), CHUNKS_IN_FLIGHT, async (ResourceIds) => {
        let token: string | undefined;
        do {
          const out = await clientFor(region).send(
            new DescribeScalableTargetsCommand({
              ServiceNamespace: 'sagemaker',
              ResourceIds,
              NextToken: token,
            }),
          );
          for (const t of out.ScalableTargets ?? []) {
            if (wanted.has(`${t.ResourceId}|${t.ScalableDimension}`) && scalesDynamically(t))
              active.add(t.ResourceId!);
          }
          token = out.NextToken;
        } while (token);
      });
      return active;
    },
    async policiesInNamespace(region) {
      const found = new Map<string, string[]>();
      let token: string | undefined;
      for (let page = 0; page < MAX_SWEEP_PAGES; page++) {
        const out = await clientFor(region).send(
          new DescribeScalingPoliciesCommand({
            ServiceNamespace: 'sagemaker',
            MaxResults: POLICIES_PER_PAGE,
            NextToken: token,
          }),
        );
        indexPolicies(out.ScalingPolicies ?? [], found);
        token = out.NextToken;
        if (!token) return found;
      }
      throw new Error(`DescribeScalingPolicies still had a NextToken after ${MAX_SWEEP_PAGES} pages`);
    },
    async policyNames(region, ref) {
      const names: string[] = [];
      let token: string | undefined;
      do {
        const out = await clientFor(region).send(
          new DescribeScalingPoliciesCommand({
            ServiceNamespace: 'sagemaker',
            ResourceId: ref.resourceId,
            ScalableDimension: ref.dimension,
            NextToken: token,
          }),
        );
        for (const p of out.ScalingPolicies ?? []) if (p.PolicyName) names.push(p.PolicyName);
        token = out.NextToken;
      } while (token);
      return names;
    },
  };
}
