/**
 * Every policy of one backtest run, in the order the table shows them: Governor first, then the
 * baselines, then the limit. Each call builds fresh policies (they keep state while they run).
 */
import type { TargetPolicy } from '../../policy/schema.ts';
import { AWS_DEFAULTS, awsTargetTrackingPolicy } from './aws-target-tracking.ts';
import { governorPolicy } from './governor.ts';
import { HPA_DEFAULTS, k8sHpaPolicy } from './k8s-hpa.ts';
import { oraclePolicy } from './oracle.ts';
import { staticPeakPolicy } from './static-peak.ts';
import type { Policy, PolicyContext } from './types.ts';

export const POLICY_NAMES = [
  'governor',
  'aws-target-tracking',
  'aws-target-tracking-at-slo',
  'k8s-hpa',
  'static-peak',
  'oracle',
] as const;
export type PolicyName = (typeof POLICY_NAMES)[number];

/** AWS's recommended target for SageMaker: max RPS x 0.5 x 60, i.e. half the saturation rate. */
export const AWS_RECOMMENDED_FRACTION_OF_SATURATION = 0.5;

export function buildPolicies(ctx: PolicyContext, target: TargetPolicy): Policy[] {
  const { scenario } = ctx;
  const recommended = AWS_RECOMMENDED_FRACTION_OF_SATURATION * scenario.muSat;
  return [
    governorPolicy({
      target,
      unitScale: scenario.policyUnitScale,
      warmPoolSize: scenario.warmPoolInstances ?? 0,
    }),
    awsTargetTrackingPolicy({ name: 'aws-target-tracking', target: recommended, ...AWS_DEFAULTS }),
    awsTargetTrackingPolicy({ name: 'aws-target-tracking-at-slo', target: scenario.mu, ...AWS_DEFAULTS }),
    k8sHpaPolicy({ name: 'k8s-hpa', target: recommended, ...HPA_DEFAULTS }, scenario.initialInstances),
    staticPeakPolicy(ctx),
    oraclePolicy(ctx),
  ];
}
