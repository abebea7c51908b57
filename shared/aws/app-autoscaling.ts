/**
 * Application Auto Scaling adapter: finds other scalers on SageMaker targets, so Governor never
 * fights them, and suspends them when the policy says so.
 *
 * Detection is one batched DescribeScalableTargets per region (a scaling policy cannot exist
 * without a scalable target), then DescribeScalingPolicies only for registered targets whose
 * dynamic scaling is not already suspended. Suspension is RegisterScalableTarget with
 * SuspendedState DynamicScalingInSuspended and DynamicScalingOutSuspended true: documented and
 * reversible (register again with both false); it leaves min, max and policies in place.
 *
 * The forecast function's scheduled actions are in ./scheduled-actions.ts, not here: the
 * evaluate function imports this module, and the template's grant check (calls granted, grants
 * used) follows imports file by file, so calls here would be owed to the evaluate role too.
 */
import {
  type ApplicationAutoScalingClient,
  DescribeScalableTargetsCommand,
  DescribeScalingPoliciesCommand,
  RegisterScalableTargetCommand,
  type ScalableTarget,
} from '@aws-sdk/client-application-auto-scaling';
import type { ScalableRef } from './scalable-target.ts';

export { type ScalableRef, scalableRef } from './scalable-target.ts';

/** Whether a registered target still scales on its own (dynamic scaling not fully suspended). */
export const scalesDynamically = (t: ScalableTarget): boolean =>
  !(t.SuspendedState?.DynamicScalingInSuspended && t.SuspendedState?.DynamicScalingOutSuspended);

export interface ScalersPort {
  /** Resource ids (of refs) registered and scaling dynamically. */
  activeScalableTargets(region: string, refs: readonly ScalableRef[]): Promise<Set<string>>;
  policyNames(region: string, ref: ScalableRef): Promise<string[]>;
  suspendDynamicScaling(region: string, ref: ScalableRef): Promise<void>;
}

/** DescribeScalableTargets filters by at most 50 resource ids per call. */
const IDS_PER_CALL = 50;

export function appAutoScalingAdapter(
  clientFor: (region: string) => ApplicationAutoScalingClient,
): ScalersPort {
  return {
    async activeScalableTargets(region, refs) {
      const active = new Set<string>();
      const wanted = new Set(refs.map((r) => `${r.resourceId}|${r.dimension}`));
      const ids = [...new Set(refs.map((r) => r.resourceId))];
      for (let i = 0; i < ids.length; i += IDS_PER_CALL) {
        let token: string | undefined;
        do {
          const out = await clientFor(region).send(
            new DescribeScalableTargetsCommand({
              ServiceNamespace: 'sagemaker',
              ResourceIds: ids.slice(i, i + IDS_PER_CALL),
              NextToken: token,
            }),
          );
          for (const t of out.ScalableTargets ?? []) {
            if (wanted.has(`${t.ResourceId}|${t.ScalableDimension}`) && scalesDynamically(t))
              active.add(t.ResourceId!);
          }
          token = out.NextToken;
        } while (token);
      }
      return active;
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
    async suspendDynamicScaling(region, ref) {
      await clientFor(region).send(
        new RegisterScalableTargetCommand({
          ServiceNamespace: 'sagemaker',
          ResourceId: ref.resourceId,
          ScalableDimension: ref.dimension,
          SuspendedState: { DynamicScalingInSuspended: true, DynamicScalingOutSuspended: true },
        }),
      );
    },
  };
}
