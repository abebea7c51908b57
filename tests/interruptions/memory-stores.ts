/**
 * The target's one versioned item (MIX#<target>/PLAN: mix state and SPOT state) in memory, for
 * fast tests of the spot-events run and the mix race (no SDK, no mocks): the same write rule as
 * shared/aws/mix-item.ts (a put lands only on the version read; 0: absent). `failPuts` makes
 * the next puts throw, as a throttled or denied PutItem would.
 */
import type { MixItem, MixItemPort, StoredMixItem } from '#shared/aws/mix-item.ts';
import { SpotStateSchema } from '#shared/interruptions/state.ts';
import { initialMixState, stepMix } from '#shared/mix/plan.ts';
import { type MixState, resolveMixPolicy } from '#shared/mix/types.ts';
import { policyOrThrow } from '#shared/policy/load.ts';

export const TARGET = 'gpu';

/** The planner's state for a flat p90 of 20 instances, planned an hour before `now`. */
export function planState(policy: unknown, now: number): MixState {
  const mix = resolveMixPolicy(policyOrThrow(policy).targets[0]!)!;
  const flat = {
    points: Array.from({ length: 17 }, (_, i) => ({ at: now + i * 900_000, p50: 14, p90: 20 })),
  };
  return stepMix(initialMixState(), { forecast: flat }, mix, now - 3_600_000).state;
}

export function memoryMixItems(seed: { plan?: MixState } = {}) {
  const items = new Map<string, StoredMixItem>();
  if (seed.plan) items.set(TARGET, { state: seed.plan, spot: null, version: 1 });
  const control = { failPuts: 0, puts: 0, validate: false };
  const port: MixItemPort = {
    get: async (i) => structuredClone(items.get(i) ?? null),
    getMany: async (ids) =>
      new Map(
        ids.flatMap((i) =>
          items.has(i) ? [[i, structuredClone(items.get(i)!)] as [string, StoredMixItem]] : [],
        ),
      ),
    async put(i: string, item: MixItem, expected: number) {
      control.puts++;
      if (control.failPuts > 0) {
        control.failPuts--;
        throw Object.assign(new Error('Rate of requests exceeds the allowed throughput.'), {
          name: 'ProvisionedThroughputExceededException',
        });
      }
      if (control.validate && item.spot) SpotStateSchema.parse(item.spot);
      if ((items.get(i)?.version ?? 0) !== expected) return 'conflict';
      items.set(i, { ...structuredClone(item), version: expected + 1 });
      return 'written';
    },
  };
  return { items, port, control };
}
