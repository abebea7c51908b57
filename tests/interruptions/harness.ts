/** Fixtures and event builders for the interruption tests; times are minutes from t0 (tests/mix/harness.ts). */
import { readFileSync } from 'node:fs';
import type { SpotEvent } from '#shared/interruptions/events.ts';
import { initialMixState, stepMix } from '#shared/mix/plan.ts';
import type { MixPlan, MixPolicy } from '#shared/mix/types.ts';
import { at, flat, mixPolicy } from '../mix/harness.ts';

export { at, mixPolicy, propertyRuns, t0 } from '../mix/harness.ts';

export const fixture = (name: string): string =>
  readFileSync(new URL(`./fixtures/${name}.json`, import.meta.url), 'utf8');

/** The plan the planner makes for a flat p90 (20 instances: spot in the three pools of the harness). */
export const planFor = (p90: number, policy: MixPolicy = mixPolicy()): MixPlan =>
  stepMix(initialMixState(), { forecast: flat(at(0), p90) }, policy, at(0)).plan!;

export const instance = (n: number) => `i-${n.toString(16).padStart(17, '0')}`;

const origin = (minute: number, id: string) => ({
  eventId: id,
  at: at(minute),
  account: '123456789012',
  region: 'us-east-1',
});

export const warning = (n: number, minute = 0, id = `w-${n}-${minute}`): SpotEvent => ({
  ...origin(minute, id),
  kind: 'interruption',
  instanceId: instance(n),
  action: 'terminate',
});

export const retirement = (n: number, minute = 0): SpotEvent => ({
  ...origin(minute, `h-${n}-${minute}`),
  kind: 'retirement',
  instanceId: instance(n),
  eventTypeCode: 'AWS_EC2_PERSISTENT_INSTANCE_RETIREMENT_SCHEDULED',
});

export const rebalance = (n: number, minute = 0): SpotEvent => ({
  ...origin(minute, `r-${n}-${minute}`),
  kind: 'rebalance',
  instanceId: instance(n),
});

export const shortage = (
  instanceType: string | null,
  minute = 0,
  id = `l-${instanceType}-${minute}`,
): SpotEvent => ({
  ...origin(minute, id),
  kind: 'launch-failed',
  groupName: 'gpu-asg',
  statusCode: 'Failed',
  message: 'Could not launch Spot Instances. InsufficientInstanceCapacity',
  shortage: { instanceType },
});
