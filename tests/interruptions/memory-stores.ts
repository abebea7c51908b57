/**
 * In-memory SPOT and PLAN items for fast tests of the spot-events run (no SDK, no mocks): the
 * same versioned-write rule as shared/aws/mix-store.ts (a put lands only on the version read).
 */
import type { StoredMix } from '#shared/aws/mix-store.ts';
import type { StoredSpot } from '#shared/aws/spot-store.ts';
import type { SpotState } from '#shared/interruptions/state.ts';
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
  const plan = new Map<string, StoredMix>();
  const spot = new Map<string, StoredSpot>();
  if (seed.plan) plan.set(TARGET, { state: seed.plan, version: 1 });
  const many =
    <T>(m: Map<string, T>) =>
    async (ids: string[]) =>
      new Map(ids.flatMap((i) => (m.has(i) ? [[i, structuredClone(m.get(i)!)] as [string, T]] : [])));
  return {
    plan,
    spot,
    plans: { get: async (i: string) => structuredClone(plan.get(i) ?? null), getMany: many(plan) },
    spot_: spot,
    spotStore: {
      get: async (i: string) => structuredClone(spot.get(i) ?? null),
      getMany: many(spot),
      async put(i: string, s: SpotState, expected: number): Promise<'written' | 'conflict'> {
        if ((spot.get(i)?.version ?? 0) !== expected) return 'conflict';
        spot.set(i, { spot: structuredClone(s), version: expected + 1 });
        return 'written';
      },
    },
  };
}
