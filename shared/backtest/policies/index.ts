/**
 * Every policy of one backtest run, in the order the table shows them: Governor first, then the
 * baselines, then the limit. Each call builds fresh policies (they keep state while they run).
 */
import { DEFAULT_LEAD_TIME_MINUTES } from '../../policy/forecast-schema.ts';
import { plannedRequestsPerInstance, type TargetPolicy } from '../../policy/schema.ts';
import { AWS_DEFAULTS, awsTargetTrackingPolicy } from './aws-target-tracking.ts';
import { awsConcurrencyTrackingPolicy } from './aws-target-tracking-concurrency.ts';
import { governorPolicy } from './governor.ts';
import { HPA_DEFAULTS, k8sHpaPolicy } from './k8s-hpa.ts';
import { Lookahead, type LookaheadOptions } from './lookahead.ts';
import { oraclePolicy } from './oracle.ts';
import { staticPeakPolicy } from './static-peak.ts';
import type { Policy, PolicyContext } from './types.ts';

export const POLICY_NAMES = [
  'governor',
  'governor-reactive',
  'aws-target-tracking',
  'aws-target-tracking-at-slo',
  'aws-target-tracking-concurrency',
  'k8s-hpa',
  'static-peak',
  'oracle',
] as const;
export type PolicyName = (typeof POLICY_NAMES)[number];

/** AWS's recommended target for SageMaker: max RPS x 0.5 x 60, i.e. half the saturation rate. */
export const AWS_RECOMMENDED_FRACTION_OF_SATURATION = 0.5;

/**
 * The look-ahead's options for a target whose policy enables a forecast, a warm pool or measured noise.
 * Lead time starts at the policy's (forecast.leadTimeMinutes) and follows the scale-outs the
 * governor policy measures in the simulated fleet, as it does in AWS. Request figures are
 * divided by k (policyUnitScale) to put the policy's units back into the trace's.
 */
export function lookaheadOptions(target: TargetPolicy, ctx: PolicyContext): LookaheadOptions | undefined {
  const { scenario } = ctx;
  const minutes = ctx.work.length;
  const f = target.forecast;
  if (!f?.enabled && !target.warmPool?.enabled && !target.noise?.enabled) return undefined;
  const planned = plannedRequestsPerInstance(target);
  const k = scenario.policyUnitScale;
  return {
    forecast: {
      ...(f ?? {
        quantile: 'p90',
        leadTimeMinutes: DEFAULT_LEAD_TIME_MINUTES,
        historyDays: 14,
        refreshMinutes: 60,
        dayStartMinute: 0,
        scheduledActions: false,
      }),
      enabled: f?.enabled ?? false,
    },
    ...(target.warmPool?.enabled ? { warmPool: target.warmPool } : {}),
    ...(target.noise?.enabled ? { noise: target.noise } : {}),
    kind: target.kind,
    leadMinutes: f?.leadTimeMinutes ?? DEFAULT_LEAD_TIME_MINUTES,
    coldStartMinutes: scenario.coldStartMinutes,
    requestsPerInstance: planned !== null ? planned / k : scenario.mu,
    instanceCapacity: scenario.mu,
    minutes,
    ...(ctx.fits ? { fits: ctx.fits } : {}),
  };
}

function lookaheadFor(target: TargetPolicy, ctx: PolicyContext): Lookahead | undefined {
  const options = lookaheadOptions(target, ctx);
  return options ? new Lookahead(options) : undefined;
}

export function buildPolicies(ctx: PolicyContext, target: TargetPolicy): Policy[] {
  const { scenario } = ctx;
  const recommended = AWS_RECOMMENDED_FRACTION_OF_SATURATION * scenario.muSat;
  const lookahead = lookaheadFor(target, ctx);
  const reactive = { ...target, forecast: undefined, warmPool: undefined, noise: undefined };
  return [
    governorPolicy({
      target,
      unitScale: scenario.policyUnitScale,
      warmPoolSize: scenario.warmPoolInstances ?? 0,
      ...(lookahead ? { lookahead } : {}),
    }),
    ...(lookahead
      ? [
          governorPolicy({
            name: 'governor-reactive',
            target: reactive,
            unitScale: scenario.policyUnitScale,
            warmPoolSize: scenario.warmPoolInstances ?? 0,
          }),
        ]
      : []),
    awsTargetTrackingPolicy({ name: 'aws-target-tracking', target: recommended, ...AWS_DEFAULTS }),
    awsTargetTrackingPolicy({ name: 'aws-target-tracking-at-slo', target: scenario.mu, ...AWS_DEFAULTS }),
    awsConcurrencyTrackingPolicy(scenario, AWS_RECOMMENDED_FRACTION_OF_SATURATION),
    k8sHpaPolicy({ name: 'k8s-hpa', target: recommended, ...HPA_DEFAULTS }, scenario.initialInstances),
    staticPeakPolicy(ctx),
    oraclePolicy(ctx),
  ];
}
