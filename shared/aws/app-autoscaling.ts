/**
 * Application Auto Scaling adapter: finds other scalers on SageMaker targets, so Governor never
 * fights them.
 *
 * Detection is one batched DescribeScalableTargets per region (a scaling policy cannot exist
 * without a scalable target), then DescribeScalingPolicies only for registered targets whose
 * dynamic scaling is not already suspended. Suspending them (onConflictingScaler: suspend) is
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
  /** Unused since the state machine suspends (kept optional for in-memory fakes that have it). */
  suspendDynamicScaling?(region: string, ref: ScalableRef): Promise<void>;
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
  };
}
