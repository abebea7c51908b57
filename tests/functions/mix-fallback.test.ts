/**
 * The variant fallback through the mix runner (functions/mix/run.ts, target.ts, fallback.ts),
 * as 5-minute ticks: the real SageMaker adapter (shared/aws/variant-weights.ts) on a client
 * mocked with aws-sdk-client-mock, the state table in memory with DynamoDB's version condition.
 *
 * The world: endpoint gov-chat with variants g5 (the target's, ml.g5.2xlarge) and g6
 * (ml.g6.2xlarge, kept at 1 instance with weight 0); the forecast floor says 6 instances. g5
 * serves 4 and its last update failed: "Unable to provision requested ML compute capacity".
 */
import {
  DescribeEndpointCommand,
  DescribeEndpointConfigCommand,
  SageMakerClient,
  UpdateEndpointWeightsAndCapacitiesCommand,
} from '@aws-sdk/client-sagemaker';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { parseMixConfig } from '#functions/mix/config.ts';
import type { MixPorts } from '#functions/mix/ports.ts';
import type { MixRecord } from '#functions/mix/record.ts';
import { createMixRunner, MixRunError } from '#functions/mix/run.ts';
import { fallbackFigures } from '#functions/mix/telemetry.ts';
import type { StoredFallback } from '#shared/aws/fallback-store.ts';
import type { StoredMix } from '#shared/aws/mix-store.ts';
import { variantWeightsAdapter } from '#shared/aws/variant-weights.ts';
import { eventFile } from './support.ts';

const T0 = Date.parse('2025-06-02T12:00:00Z');
const at = (minutes: number) => T0 + minutes * 60_000 + 20_000;
const tick = (minutes: number) => ({
  ...(eventFile('scheduler-tick') as object),
  id: `mix-${minutes}`,
  time: new Date(T0 + minutes * 60_000).toISOString(),
});

const POLICY = {
  version: 1,
  targets: [
    {
      id: 'chat',
      kind: 'sagemaker-variant',
      region: 'us-east-1',
      endpointName: 'gov-chat',
      variantName: 'g5',
      scaling: { minCapacity: 1, maxCapacity: 20 },
      signals: [{ metric: 'invocationsPerInstance', target: 100 }],
      forecast: { quantile: 'p90', requestsPerInstance: 100, leadTimeMinutes: 10 },
      capacityMix: {
        pools: [
          { instanceType: 'ml.g5.2xlarge', onDemandUsdPerHour: 1.515 },
          { instanceType: 'ml.g6.2xlarge', onDemandUsdPerHour: 1.222 },
        ],
        variantFallback: {
          variants: [{ variantName: 'g6', instanceType: 'ml.g6.2xlarge' }],
          holdMinutes: 60,
        },
      },
    },
  ],
};

const CAPACITY =
  'Unable to provision requested ML compute capacity. Please retry using a different ML instance type.';
const FLOOR = {
  pk: 'TARGET#chat',
  sk: 'STATE',
  forecastFloor: {
    quantile: 'p90',
    computedAt: T0,
    startsAt: T0,
    stepMinutes: 5,
    leadTimeMinutes: 10,
    capacities: Array.from({ length: 48 }, () => 6),
  },
};

const sm = mockClient(SageMakerClient);
beforeEach(() => sm.reset());

/** What DescribeEndpoint answers: g5 and g6 as [current, desired, weight]. */
function endpointIs(
  g5: [number, number, number],
  g6: [number, number, number],
  failure?: string,
  minute = 0,
) {
  sm.on(DescribeEndpointCommand).resolves({
    EndpointName: 'gov-chat',
    EndpointConfigName: 'gov-chat-config',
    EndpointStatus: 'InService',
    LastModifiedTime: new Date(T0 + minute * 60_000 - 120_000),
    ...(failure ? { FailureReason: failure } : {}),
    ProductionVariants: [
      { VariantName: 'g5', CurrentInstanceCount: g5[0], DesiredInstanceCount: g5[1], CurrentWeight: g5[2] },
      { VariantName: 'g6', CurrentInstanceCount: g6[0], DesiredInstanceCount: g6[1], CurrentWeight: g6[2] },
    ],
  });
  sm.on(DescribeEndpointConfigCommand).resolves({
    ProductionVariants: [
      { VariantName: 'g5', InstanceType: 'ml.g5.2xlarge', ModelName: 'chat' },
      { VariantName: 'g6', InstanceType: 'ml.g6.2xlarge', ModelName: 'chat' },
    ],
  });
}

function world(options: { mode?: 'shadow' | 'active'; killSwitch?: string } = {}) {
  const parameters = new Map([
    ['/governor/policy', JSON.stringify(POLICY)],
    ['/governor/kill-switch', options.killSwitch ?? 'off'],
  ]);
  const plans = new Map<string, StoredMix>();
  const fallbacks = new Map<string, StoredFallback>();
  const records: MixRecord[] = [];
  const versioned = <S>(items: Map<string, { state: S; version: number }>) => ({
    get: async (id: string) => items.get(id) ?? null,
    getMany: async (ids: string[]) =>
      new Map(ids.flatMap((id) => (items.has(id) ? [[id, items.get(id)!] as const] : []))),
    put: async (id: string, state: S, expected: number) => {
      if ((items.get(id)?.version ?? 0) !== expected) return 'conflict' as const;
      items.set(id, { state: structuredClone(state), version: expected + 1 });
      return 'written' as const;
    },
  });
  const ports: MixPorts = {
    parameters: { get: async (name) => parameters.get(name) ?? null, under: async () => [] },
    retirements: {
      read: async () => {
        throw new Error('not used: nothing is retiring');
      },
      terminate: async () => {
        throw new Error('not used: nothing is retiring');
      },
    },
    states: { readMany: async (ids) => new Map(ids.map((id) => [id, id === 'chat' ? FLOOR : undefined])) },
    items: {
      get: async (id) => (plans.has(id) ? { ...plans.get(id)!, spot: null } : null),
      getMany: async (ids) =>
        new Map(
          ids.flatMap((id) => (plans.has(id) ? [[id, { ...plans.get(id)!, spot: null }] as const] : [])),
        ),
      put: (id, item, expected) => versioned(plans).put(id, item.state, expected),
    },
    legacySpot: { get: async () => null, getMany: async () => new Map() },
    groups: {
      current: async () => {
        throw new Error('no group here');
      },
      apply: async () => {
        throw new Error('no group here');
      },
    },
    history: { demand: async () => [] },
    records: { put: async () => {} },
    fallbacks: versioned(fallbacks),
    endpoints: variantWeightsAdapter(() => new SageMakerClient({ region: 'us-east-1' })),
  };
  const run = createMixRunner({
    config: parseMixConfig({
      POLICY_PARAMETER_NAME: '/governor/policy',
      STATE_TABLE_NAME: 'governor-state',
      KILL_SWITCH_PARAMETER_NAME: '/governor/kill-switch',
      GOVERNOR_MODE: options.mode ?? 'active',
    }),
    ports,
    telemetry: { info: () => {}, warn: () => {}, error: () => {}, record: (r) => void records.push(r) },
  });
  const runAt = (minutes: number) => run(tick(minutes), at(minutes), { account: '123456789012' });
  const last = () => records.at(-1)!;
  return { runAt, last, fallbacks };
}

const updates = () =>
  sm
    .commandCalls(UpdateEndpointWeightsAndCapacitiesCommand)
    .map((c) =>
      Object.fromEntries(
        (c.args[0].input.DesiredWeightsAndCapacities ?? []).map((v) => [
          v.VariantName,
          [v.DesiredInstanceCount, v.DesiredWeight],
        ]),
      ),
    );
const fb = (r: MixRecord) => [
  r.fallback?.action,
  r.fallback?.reasons[0],
  r.fallback?.write,
  r.fallback?.stored,
];

describe('the variant fallback in the mix function', () => {
  it('a capacity failure of the primary shifts the shortfall to g6 in one write, then stores it', async () => {
    const { runAt, last, fallbacks } = world();
    endpointIs([4, 4, 1], [1, 1, 0], CAPACITY);
    sm.on(UpdateEndpointWeightsAndCapacitiesCommand).resolves({});
    await runAt(0);
    const r = last();
    expect(fb(r)).toEqual(['shift', 'PrimaryCapacityShortage', 'applied', 'written']);
    expect(updates()).toEqual([{ g5: [4, 4], g6: [2, 2] }]);
    expect(r.fallback?.before.map((v) => [v.variantName, v.currentInstances, v.currentWeight])).toEqual([
      ['g5', 4, 1],
      ['g6', 1, 0],
    ]);
    expect(fallbacks.get('chat')).toMatchObject({
      version: 1,
      state: { active: { variantName: 'g6', instances: 2 } },
    });
    expect(r.outcome).toBe('planned');
    expect(fallbackFigures(r)).toEqual({ VariantFallbackShifts: 1 });
  });

  it('within holdMinutes it holds with no write; after them the capacity is asked back on g5', async () => {
    const { runAt, last, fallbacks } = world();
    endpointIs([4, 4, 1], [1, 1, 0], CAPACITY);
    sm.on(UpdateEndpointWeightsAndCapacitiesCommand).resolves({});
    await runAt(0);
    endpointIs([4, 4, 4], [2, 2, 2], undefined, 5);
    await runAt(30);
    expect(fb(last())).toEqual(['hold', 'FallbackHeld', 'none', 'unchanged']);
    expect(fallbackFigures(last())).toEqual({ VariantFallbackShifts: 0 });
    await runAt(60);
    expect(fb(last())).toEqual(['return', 'HoldElapsed', 'applied', 'written']);
    expect(updates()).toEqual([
      { g5: [4, 4], g6: [2, 2] },
      { g5: [6, 4], g6: [2, 2] },
    ]);
    expect(fallbacks.get('chat')?.version).toBe(2);
  });

  it.each([
    { case: 'shadow mode', options: { mode: 'shadow' as const }, write: 'shadow' },
    { case: 'the kill switch', options: { killSwitch: 'on' }, write: 'killed' },
  ])('$case decides and records the shift, writes nothing and stores nothing', async ({ options, write }) => {
    const { runAt, last, fallbacks } = world(options);
    endpointIs([4, 4, 1], [1, 1, 0], CAPACITY);
    await runAt(0);
    expect(fb(last())).toEqual(['shift', 'PrimaryCapacityShortage', write, 'not-written']);
    expect(last().fallback?.after).toEqual([
      { variantName: 'g5', desiredInstances: 4, desiredWeight: 4 },
      { variantName: 'g6', desiredInstances: 2, desiredWeight: 2 },
    ]);
    expect(sm.commandCalls(UpdateEndpointWeightsAndCapacitiesCommand)).toHaveLength(0);
    expect(fallbacks.size).toBe(0);
  });

  it('a failed write stores nothing, fails the run, and the next run shifts again', async () => {
    const { runAt, last, fallbacks } = world();
    endpointIs([4, 4, 1], [1, 1, 0], CAPACITY);
    sm.on(UpdateEndpointWeightsAndCapacitiesCommand).rejects(
      Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' }),
    );
    await expect(runAt(0)).rejects.toThrow(MixRunError);
    expect(fb(last())).toEqual(['shift', 'PrimaryCapacityShortage', 'failed', 'not-written']);
    expect(last().outcome).toBe('failed');
    expect(last().fallback?.detail).toMatch(
      /sagemaker:UpdateEndpointWeightsAndCapacities on endpoint gov-chat/,
    );
    expect(fallbacks.size).toBe(0);
    sm.on(UpdateEndpointWeightsAndCapacitiesCommand).resolves({});
    await runAt(5);
    expect(fb(last())).toEqual(['shift', 'PrimaryCapacityShortage', 'applied', 'written']);
  });

  it('an endpoint that is Updating is read and never written', async () => {
    const { runAt, last } = world();
    endpointIs([4, 4, 1], [1, 1, 0], CAPACITY);
    sm.on(DescribeEndpointCommand).resolves({
      EndpointStatus: 'Updating',
      EndpointConfigName: 'gov-chat-config',
      ProductionVariants: [],
    });
    await runAt(0);
    expect(fb(last())).toEqual(['hold', 'EndpointNotInService', 'none', 'unchanged']);
    expect(sm.commandCalls(UpdateEndpointWeightsAndCapacitiesCommand)).toHaveLength(0);
  });
});
