/**
 * Issue 18, item 2: the mix function and the spot-events function share one versioned item
 * (MIX#<target>/PLAN: mix state and SPOT state), so neither can overwrite the other's shift.
 * Both real runners (createMixRunner, createSpotEventsHandler) on one in-memory item
 * (../interruptions/memory-stores.ts) and one group that keeps the last MixedInstancesPolicy
 * written; the spot batch is run at the scripted moment inside the mix run.
 *
 * Timelines (t = the mix tick; the failed spot launch names no type: every pool loses spot):
 *  - the shift lands between the mix run's read and its claim: the mix run writes no group,
 *    stores nothing, and says Superseded; the group keeps the shift.
 *  - the shift lands between the mix run's claim and its group write (its write overtakes the
 *    shift's): the mix run reads the item again and writes the newer plan in force; the group
 *    ends with the shift, which is the item's plan in force.
 */
import { describe, expect, it } from 'vitest';
import { parseMixConfig } from '#functions/mix/config.ts';
import type { MixPorts } from '#functions/mix/ports.ts';
import type { MixRecord } from '#functions/mix/record.ts';
import { createMixRunner } from '#functions/mix/run.ts';
import { createSpotEventsHandler } from '#functions/spot-events/run.ts';
import type { MixItemPort } from '#shared/aws/mix-item.ts';
import type { MixPlan } from '#shared/mix/types.ts';
import {
  ACCOUNT,
  KILL_NAME,
  POLICY_NAME,
  spotEventsConfig,
  spotPolicy,
  TABLE,
} from '../interruptions/aws-fakes.ts';
import { fixture } from '../interruptions/harness.ts';
import { memoryMixItems, planState, TARGET } from '../interruptions/memory-stores.ts';
import { eventFile } from './support.ts';

const T = Date.parse('2026-01-05T12:05:00Z');
const POLICY = (() => {
  const p = spotPolicy(40);
  return {
    ...p,
    targets: [
      { ...p.targets[0]!, forecast: { quantile: 'p90', requestsPerInstance: 100, leadTimeMinutes: 10 } },
    ],
  };
})();
const FLOOR = {
  pk: `TARGET#${TARGET}`,
  sk: 'STATE',
  forecastFloor: {
    quantile: 'p90',
    computedAt: T - 60_000,
    startsAt: T - 60_000,
    stepMinutes: 5,
    leadTimeMinutes: 10,
    // Far above the plan stored an hour ago (20): the mix run wants a new plan at once.
    capacities: Array.from({ length: 48 }, () => 30),
  },
};
const tick = { ...(eventFile('scheduler-tick') as object), id: 'mix-race', time: new Date(T).toISOString() };
const SHORTAGE = {
  Records: [
    {
      messageId: 'launch',
      body: JSON.stringify({
        ...JSON.parse(fixture('launch-unsuccessful-no-spot')),
        time: new Date(T).toISOString().replace('.000Z', 'Z'),
      }),
    },
  ],
};

function world() {
  const store = memoryMixItems({ plan: planState(POLICY, T) });
  const written: { by: string; plan: MixPlan }[] = [];
  const hooks = {
    beforeMixPut: null as null | (() => Promise<void>),
    beforeMixApply: null as null | (() => Promise<void>),
  };
  const group = (by: string) => ({
    current: async () => {
      throw new Error('not used');
    },
    apply: async (_r: string, _g: string, plan: MixPlan) => {
      if (by === 'mix' && hooks.beforeMixApply) {
        const h = hooks.beforeMixApply;
        hooks.beforeMixApply = null;
        await h();
      }
      written.push({ by, plan });
      return { status: 'applied' as const, policy: plan.mixedInstancesPolicy as never };
    },
  });
  const parameters = {
    get: async (n: string) => (n === POLICY_NAME ? JSON.stringify(POLICY) : n === KILL_NAME ? 'off' : null),
    under: async () => [],
  };
  const mixItems: MixItemPort = {
    get: store.port.get,
    getMany: store.port.getMany,
    put: async (id, item, v) => {
      if (hooks.beforeMixPut) {
        const h = hooks.beforeMixPut;
        hooks.beforeMixPut = null;
        await h();
      }
      return store.port.put(id, item, v);
    },
  };
  const spot = createSpotEventsHandler({
    config: spotEventsConfig(),
    ports: {
      parameters,
      groups: {
        health: async () => ({ desired: 10, inService: 10, maxSize: 20 }),
        groupsOf: async () => new Map(),
        replace: async () => ({ detached: [], failed: [] }),
      },
      capacity: { setDesiredCapacity: async () => ({ status: 'applied' }) },
      retirements: { terminate: async () => 'terminated' },
      mixedInstances: group('spot'),
      items: store.port,
      legacySpot: { getMany: async () => new Map() },
    },
    telemetry: { info: () => {}, error: () => {}, decision: () => {}, count: () => {} },
  });
  const records: MixRecord[] = [];
  const ports: MixPorts = {
    parameters,
    retirements: {
      read: async () => {
        throw new Error('not used: nothing is retiring');
      },
      terminate: async () => {
        throw new Error('not used: nothing is retiring');
      },
    },
    states: { readMany: async (ids) => new Map(ids.map((id) => [id, id === TARGET ? FLOOR : undefined])) },
    items: mixItems,
    legacySpot: { get: async () => null, getMany: async () => new Map() },
    groups: group('mix'),
    history: { demand: async () => [] },
    records: { put: async () => {} },
    fallbacks: {
      get: async () => null,
      put: async () => 'written',
    },
    endpoints: {
      read: async () => {
        throw new Error('not used');
      },
      write: async () => {
        throw new Error('not used');
      },
    },
  };
  const mix = createMixRunner({
    config: parseMixConfig({
      POLICY_PARAMETER_NAME: POLICY_NAME,
      STATE_TABLE_NAME: TABLE,
      KILL_SWITCH_PARAMETER_NAME: KILL_NAME,
      GOVERNOR_MODE: 'active',
    }),
    ports,
    telemetry: { info: () => {}, warn: () => {}, error: () => {}, record: (r) => void records.push(r) },
    newId: () => 'race',
  });
  const shiftNow = async () => {
    expect((await spot(SHORTAGE, T, { account: ACCOUNT })).batchItemFailures).toEqual([]);
  };
  return {
    store,
    written,
    hooks,
    records,
    runMix: () => mix(tick, T + 20_000, { account: ACCOUNT }),
    shiftNow,
  };
}

describe('the mix function and a spot shift on one versioned item', () => {
  it("a shift stored between the mix run's read and its claim wins: the mix run changes nothing and says Superseded", async () => {
    const w = world();
    w.hooks.beforeMixPut = w.shiftNow;
    await w.runMix();
    const r = w.records[0]!;
    expect([r.outcome, r.reasons[0], r.group, r.stored]).toEqual([
      'superseded',
      'Superseded',
      'withheld',
      'conflict',
    ]);
    expect(r.message).toMatch(
      /^Changed nothing: MIX#gpu was stored by another writer .* after this run read version 1/,
    );
    // Only the shift reached the group, and it is the item's plan in force: no spot anywhere.
    expect(w.written.map((x) => x.by)).toEqual(['spot']);
    const item = w.store.items.get(TARGET)!;
    expect(item.version).toBe(2);
    expect(item.state.plan).toEqual(w.written[0]!.plan);
    expect(item.state.plan!.spot).toBe(0);
    expect(Object.keys(item.spot!.poolsUnavailableUntil).sort()).toEqual([
      'g5.2xlarge',
      'g6.2xlarge',
      'g6e.xlarge',
    ]);
  });

  it("a shift that lands after the mix run's claim is not overwritten: the mix run re-applies the newer plan in force", async () => {
    const w = world();
    w.hooks.beforeMixApply = w.shiftNow;
    await w.runMix();
    const item = w.store.items.get(TARGET)!;
    // mix claimed v2, the spot-events function stored v3 (its shift) and wrote the group; the
    // mix run's own write came after, so it read v3 back and wrote v3's plan last.
    expect(item.version).toBe(3);
    expect(w.written.map((x) => x.by)).toEqual(['spot', 'mix', 'mix']);
    expect(w.written.at(-1)!.plan).toEqual(item.state.plan);
    expect(item.state.plan!.spot).toBe(0);
    expect(w.records[0]!.detail).toMatch(
      /the item moved to version 3 meanwhile: its plan in force was applied/,
    );
  });

  it('with no race, the mix run claims, writes the group once and keeps the SPOT part it read', async () => {
    const w = world();
    await w.shiftNow();
    const spotBefore = structuredClone(w.store.items.get(TARGET)!.spot);
    await w.runMix();
    const item = w.store.items.get(TARGET)!;
    expect(item.spot).toEqual(spotBefore);
    expect(w.written.map((x) => x.by)).toEqual(['spot', 'mix']);
    expect(w.written.at(-1)!.plan).toEqual(item.state.plan);
    expect(item.state.plan!.spot).toBe(0);
  });
});
