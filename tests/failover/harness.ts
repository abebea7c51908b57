/**
 * Builds failover groups through the real policy loader (defaults and rules apply as for an
 * operator's file) and observations from one word per region, and runs timelines minute by
 * minute (t0, t0 + 1 min, ...).
 */
import { type ResolvedGroup, resolveFailoverGroups } from '#shared/failover/group.ts';
import { initialFailoverState, stepFailover } from '#shared/failover/plan.ts';
import type {
  FailoverObservation,
  FailoverState,
  FailoverStepResult,
  RegionObservation,
  RoutingAction,
} from '#shared/failover/types.ts';
import { policyOrThrow } from '#shared/policy/load.ts';

export const T0 = Date.parse('2025-06-02T12:00:00Z');
export const MINUTE = 60_000;
export const at = (minutes: number): number => T0 + minutes * MINUTE;
export const EAST = 'us-east-1';
export const WEST = 'us-west-2';
export const EU = 'eu-west-1';

type Json = Record<string, unknown>;

const target = (id: string, region: string, max = 40): Json => ({
  id,
  kind: 'sagemaker-inference-component',
  region,
  endpointName: 'chat-prod',
  inferenceComponentName: `${id}-ic`,
  scaling: {
    minCapacity: 0,
    maxCapacity: max,
    scaleToZero: true,
    activation: { metric: 'invocations', threshold: 0 },
  },
  signals: [{ metric: 'invocationsPerInstance', target: 100 }],
});

/** Primary in us-east-1, pilot-light standby in us-west-2, Route 53 weights; `group` merges into the group. */
export function primaryStandby(group: Json = {}): ResolvedGroup {
  const policy = policyOrThrow({
    version: 1,
    targets: [target('chat-east', EAST), target('chat-west', WEST)],
    failover: {
      groups: [
        {
          id: 'chat',
          members: [
            { targetId: 'chat-east', role: 'primary' },
            { targetId: 'chat-west', role: 'standby', warmFloor: 0 },
          ],
          routing: {
            kind: 'route53-weighted',
            hostedZoneId: 'Z0123456789ABC',
            recordName: 'chat.example.com',
            setIdentifiers: { [EAST]: 'east', [WEST]: 'west' },
          },
          ...group,
        },
      ],
    },
  });
  return resolveFailoverGroups(policy)[0]!;
}

/** Three regions active-active at 50/30/20 through Global Accelerator. */
export function activeActive(group: Json = {}): ResolvedGroup {
  const listener = 'arn:aws:globalaccelerator::123456789012:accelerator/abcd/listener/l1';
  const policy = policyOrThrow({
    version: 1,
    targets: [target('chat-east', EAST), target('chat-west', WEST), target('chat-eu', EU)],
    failover: {
      groups: [
        {
          id: 'chat',
          mode: 'active-active',
          members: [
            { targetId: 'chat-east', weight: 50 },
            { targetId: 'chat-west', weight: 30 },
            { targetId: 'chat-eu', weight: 20 },
          ],
          routing: {
            kind: 'global-accelerator',
            listenerArn: listener,
            endpointGroups: {
              [EAST]: `${listener}/endpoint-group/e1`,
              [WEST]: `${listener}/endpoint-group/w1`,
              [EU]: `${listener}/endpoint-group/u1`,
            },
          },
          ...group,
        },
      ],
    },
  });
  return resolveFailoverGroups(policy)[0]!;
}

export type Look = 'ok' | 'breach' | 'down' | 'idle' | 'missing';

/**
 * A region's readings this minute: all fresh and within ('ok'), errors at 30 % ('breach') or
 * 100 % ('down': every request fails), no traffic signals but a fresh heartbeat and capacity-error
 * count ('idle': what an endpoint with no traffic publishes), or none at all ('missing').
 */
export function region(look: Look, now: number, extra: RegionObservation = {}): RegionObservation {
  if (look === 'missing') return { ...extra };
  const r = (value: number) => ({ value, timestamp: now - 30_000 });
  const errors = { ok: 0.2, breach: 30, down: 100 } as const;
  return {
    ...(look === 'idle' ? {} : { errorRatePercent: r(errors[look]) }),
    capacityErrors: r(0),
    heartbeat: { lastBeatAt: now - 20_000, readAt: now - 5_000 },
    ...extra,
  };
}

export interface World {
  looks: Record<string, Look>;
  /** Ready instances by region (default: whatever was last asked for, at once). */
  ready?: Record<string, number>;
  demand?: Record<string, number>;
}

export function observe(w: World, now: number): FailoverObservation {
  const regions: FailoverObservation['regions'] = {};
  for (const [name, look] of Object.entries(w.looks)) {
    regions[name] = region(look, now, {
      ...(w.ready?.[name] !== undefined
        ? { capacity: { desired: w.ready[name], ready: w.ready[name] } }
        : {}),
      ...(w.demand?.[name] !== undefined ? { demand: { recentPeakInstances: w.demand[name] } } : {}),
    });
  }
  return { regions };
}

/** Runs minutes [from, to) with `world(minute)`; returns every step's result. */
export function run(
  group: ResolvedGroup,
  world: (minute: number) => World,
  minutes: number,
  start: FailoverState = initialFailoverState(group),
): { results: FailoverStepResult[]; state: FailoverState } {
  let state = start;
  const results: FailoverStepResult[] = [];
  for (let m = 0; m < minutes; m++) {
    const r = stepFailover(state, observe(world(m), at(m)), group, at(m));
    results.push(r);
    state = r.state;
  }
  return { results, state };
}

export const routingChanges = (results: FailoverStepResult[]): RoutingAction[] =>
  results.flatMap((r) => r.actions.filter((a): a is RoutingAction => a.kind.startsWith('set-')));
export const failoversStarted = (results: FailoverStepResult[]) =>
  results.filter((r) => r.decision.reasons[0] === 'FailoverStarted');
export const propertyRuns = (): number => (process.env.CI ? 10_000 : 500);
