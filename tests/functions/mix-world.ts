/**
 * The mix function's world for the runner tests (tests/functions/mix.test.ts and
 * mix-retirements.test.ts): in-memory ports, a versioned PLAN store with DynamoDB's conditions, a
 * group that answers as told, and 5-minute ticks.
 *
 * The world: chat-asg (ec2-asg; 2 committed g5, spot over 3 pools, tests/mix/harness.ts prices;
 * its group names no zone unless a test sets `w.zones`)
 * and chat-sm (a SageMaker variant with a committed base and a budget, no spot). Their forecast
 * floors say 10 instances for the next 4 hours.
 */
import { parseMixConfig } from '#functions/mix/config.ts';
import type { MixPorts } from '#functions/mix/ports.ts';
import type { MixRecord } from '#functions/mix/record.ts';
import { createMixRunner } from '#functions/mix/run.ts';
import type { StoredMixItem } from '#shared/aws/mix-item.ts';
import type { MixApplyResult } from '#shared/aws/mixed-instances.ts';
import type { SpotState } from '#shared/interruptions/state.ts';
import type { MixPlan } from '#shared/mix/types.ts';
import { POOLS } from '../mix/harness.ts';
import { eventFile } from './support.ts';

export const T0 = Date.parse('2025-06-02T12:00:00Z');
export const at = (minutes: number) => T0 + minutes * 60_000 + 20_000;
export const tick = (minutes: number) => ({
  ...(eventFile('scheduler-tick') as object),
  id: `mix-${minutes}`,
  time: new Date(T0 + minutes * 60_000).toISOString(),
});

const forecast = { quantile: 'p90', requestsPerInstance: 100, leadTimeMinutes: 10 };
export const POLICY = {
  version: 1,
  targets: [
    {
      id: 'chat-asg',
      kind: 'ec2-asg',
      region: 'us-east-1',
      autoScalingGroupName: 'chat-asg',
      scaling: { minCapacity: 2, maxCapacity: 40 },
      signals: [{ metric: 'gpuUtilization', target: 70 }],
      forecast,
      capacityMix: {
        pools: POOLS,
        committed: { instances: 2, instanceType: 'g5.2xlarge', usdPerHour: 0.76 },
        spot: { maxPercent: 60 },
      },
    },
    {
      id: 'chat-sm',
      kind: 'sagemaker-variant',
      region: 'us-east-1',
      endpointName: 'chat-sm',
      scaling: { minCapacity: 1, maxCapacity: 20 },
      signals: [{ metric: 'invocationsPerInstance', target: 100 }],
      forecast,
      capacityMix: {
        pools: [{ instanceType: 'ml.g5.2xlarge', onDemandUsdPerHour: 1.515 }],
        committed: { instances: 2, instanceType: 'ml.g5.2xlarge', usdPerHour: 0.95 },
        maxUsdPerHour: 20,
      },
    },
    // No capacityMix: never planned, never read.
    {
      id: 'plain',
      kind: 'sagemaker-variant',
      region: 'us-east-1',
      endpointName: 'plain',
      scaling: { minCapacity: 1, maxCapacity: 4 },
      signals: [{ metric: 'invocationsPerInstance', target: 100 }],
    },
  ],
};

/** The forecast function's floor schedule: `need` instances at every step of the next 4 hours. */
export const floorItem = (targetId: string, need: number, computedAt = T0) => ({
  pk: `TARGET#${targetId}`,
  sk: 'STATE',
  forecastFloor: {
    quantile: 'p90',
    computedAt,
    startsAt: computedAt,
    stepMinutes: 5,
    leadTimeMinutes: 10,
    capacities: Array.from({ length: 48 }, () => need),
  },
});

export type GroupAnswer = MixApplyResult | Error;

/** In-memory ports: a versioned PLAN store with DynamoDB's conditions, a group that answers as told. */
export function world(options: { mode?: 'shadow' | 'active'; retirements?: MixPorts['retirements'] } = {}) {
  const parameters = new Map([
    ['/governor/policy', JSON.stringify(POLICY)],
    ['/governor/kill-switch', 'off'],
  ]);
  const states = new Map<string, Record<string, unknown> | undefined>([
    ['chat-asg', floorItem('chat-asg', 10)],
    ['chat-sm', floorItem('chat-sm', 10)],
  ]);
  const plans = new Map<string, StoredMixItem>();
  const spot = new Map<string, { spot: SpotState; version: number }>();
  const audit: Record<string, unknown>[] = [];
  const applied: { group: string; plan: MixPlan }[] = [];
  const reads: string[] = [];
  const w = {
    parameters,
    states,
    plans,
    spot,
    audit,
    applied,
    reads,
    /** What the next apply answers (default: applied, or unchanged when the plan is the last one). */
    group: [] as GroupAnswer[],
    putFails: null as Error | null,
    /** Before the next put of this target, another writer stores its own state. */
    raceNextPut: null as string | null,
    requests: 60_000 as number | null,
    recordsFail: null as Error | null,
    counted: [] as [string, number][],
    /**
     * The group's AvailabilityZones, or the error its read fails with. Default: none named, so
     * the plans are a pool per type, the figures these tests pin (tests/functions/mix-zones.test.ts
     * has groups in zones).
     */
    zones: [] as string[] | Error,
    zoneReads: 0,
  };
  let lastApplied: string | null = null;
  const ports: MixPorts = {
    parameters: {
      get: async (name) => parameters.get(name) ?? null,
      under: async () => [],
    },
    retirements: options.retirements ?? {
      read: async () => {
        throw new Error('not used: nothing is retiring');
      },
      terminate: async () => {
        throw new Error('not used: nothing is retiring');
      },
    },
    states: {
      readMany: async (ids) => {
        reads.push('states');
        return new Map(ids.map((id) => [id, states.get(id)]));
      },
    },
    items: {
      get: async (id) => structuredClone(plans.get(id) ?? null),
      getMany: async (ids) => {
        reads.push('plans');
        return new Map(
          ids.flatMap((id) => (plans.has(id) ? [[id, structuredClone(plans.get(id)!)] as const] : [])),
        );
      },
      put: async (id, item, expected) => {
        if (w.putFails) throw w.putFails;
        if (w.raceNextPut === id) {
          w.raceNextPut = null;
          plans.set(id, { ...item, version: (plans.get(id)?.version ?? 0) + 1 });
        }
        if ((plans.get(id)?.version ?? 0) !== expected) return 'conflict';
        plans.set(id, { ...structuredClone(item), version: expected + 1 });
        return 'written';
      },
    },
    legacySpot: {
      get: async (id) => spot.get(id) ?? null,
      getMany: async (ids) => {
        reads.push('spot');
        return new Map(ids.flatMap((id) => (spot.has(id) ? [[id, spot.get(id)!] as const] : [])));
      },
    },
    groups: {
      // The group's zones, read before planning when the policy lists none (functions/mix/zones.ts).
      current: async (_region, group) => {
        w.zoneReads++;
        if (w.zones instanceof Error) throw w.zones;
        return {
          groupName: group,
          launchTemplate: { LaunchTemplateName: 'chat' },
          launchConfigurationName: null,
          policy: null,
          hasWarmPool: false,
          availabilityZones: [...w.zones],
        };
      },
      apply: async (_region, group, plan) => {
        const answer = w.group.shift();
        if (answer instanceof Error) throw answer;
        if (answer) return answer;
        const key = JSON.stringify(plan.mixedInstancesPolicy);
        if (key === lastApplied) return { status: 'unchanged' };
        lastApplied = key;
        applied.push({ group, plan });
        return { status: 'applied', policy: {} };
      },
    },
    history: {
      demand: async (_region, queries, window) => {
        reads.push('history');
        return queries.map((q) => ({
          Id: q.id,
          StatusCode: 'Complete' as const,
          Timestamps: w.requests === null ? [] : [new Date(window.start)],
          Values: w.requests === null ? [] : [w.requests],
        }));
      },
    },
    records: {
      put: async (item) => {
        if (w.recordsFail) throw w.recordsFail;
        audit.push(item);
      },
    },
    // No target here has a variantFallback (tests/functions/mix-fallback.test.ts has them).
    fallbacks: {
      get: async () => {
        throw new Error('not used: no variantFallback');
      },
      put: async () => {
        throw new Error('not used: no variantFallback');
      },
    },
    endpoints: {
      read: async () => {
        throw new Error('not used: no variantFallback');
      },
      write: async () => {
        throw new Error('not used: no variantFallback');
      },
    },
  };
  const lines: { level: string; message: string }[] = [];
  const records: MixRecord[] = [];
  let ids = 0;
  const run = createMixRunner({
    config: parseMixConfig({
      POLICY_PARAMETER_NAME: '/governor/policy',
      STATE_TABLE_NAME: 'governor-state',
      KILL_SWITCH_PARAMETER_NAME: '/governor/kill-switch',
      GOVERNOR_MODE: options.mode ?? 'active',
    }),
    ports,
    telemetry: {
      info: (message) => lines.push({ level: 'info', message }),
      warn: (message) => lines.push({ level: 'warn', message }),
      error: (message) => lines.push({ level: 'error', message }),
      record: (r) => void records.push(r),
      count: (metric, value) => void w.counted.push([metric, value]),
    },
    newId: () => `m${++ids}`,
  });
  const runAt = (minutes: number, leftMs?: () => number) =>
    run(tick(minutes), at(minutes), { account: '123456789012', ...(leftMs ? { leftMs } : {}) });
  const last = (targetId: string) => records.filter((r) => r.targetId === targetId).at(-1)!;
  return { w, ports, runAt, records, lines, last };
}
