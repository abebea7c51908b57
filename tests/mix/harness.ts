/** A policy and flat forecasts for the mix planner tests; times are minutes from t0. */
import { stepMix } from '#shared/mix/plan.ts';
import {
  DEFAULT_REPLACEMENT_LEAD_MINUTES,
  type ForecastPoint,
  type MixPolicy,
  type MixState,
  type MixStepResult,
} from '#shared/mix/types.ts';
import { type CapacityMixInput, CapacityMixSchema } from '#shared/policy/capacity-mix-schema.ts';

export const t0 = Date.UTC(2026, 0, 5, 0, 0);
export const at = (minutes: number): number => t0 + minutes * 60_000;

/** g5 committed (0.76), g6 cheapest; spot at 40 % of on-demand. */
export const POOLS = [
  { instanceType: 'g5.2xlarge', onDemandUsdPerHour: 1.2, spotUsdPerHour: 0.48, interruption: '5-10%' },
  { instanceType: 'g6.2xlarge', onDemandUsdPerHour: 1.0, spotUsdPerHour: 0.4, interruption: '<5%' },
  { instanceType: 'g6e.xlarge', onDemandUsdPerHour: 1.8, spotUsdPerHour: 0.72, interruption: '10-15%' },
] as const;

export function mixPolicy(mix: Partial<CapacityMixInput> = {}, bounds = { min: 1, max: 40 }): MixPolicy {
  return {
    targetId: 'gpu',
    minCapacity: bounds.min,
    maxCapacity: bounds.max,
    mix: CapacityMixSchema.parse({
      pools: POOLS,
      committed: { instances: 2, instanceType: 'g5.2xlarge', usdPerHour: 0.76 },
      spot: { maxPercent: 60 },
      ...mix,
    }),
    replacementLeadMinutes: mix.replacementLeadTimeMinutes ?? DEFAULT_REPLACEMENT_LEAD_MINUTES,
  };
}

/** A forecast of p50 / p90 every 15 minutes over the next 4 h from `now`. */
export const flat = (now: number, p90: number, p50 = p90 * 0.7): { points: ForecastPoint[] } => ({
  points: Array.from({ length: 17 }, (_, i) => ({ at: now + i * 15 * 60_000, p50, p90 })),
});

/** Runs one evaluation per `every` minutes with the p90 `level(minute)`. */
export function run(
  policy: MixPolicy,
  level: (minute: number) => number,
  minutes: number,
  every = 10,
  start?: MixState,
): MixStepResult[] {
  const results: MixStepResult[] = [];
  let state: MixState = start ?? { version: 1, plan: null, lastChangeAt: null, pendingSince: null };
  for (let m = 0; m < minutes; m += every) {
    const r = stepMix(state, { forecast: flat(at(m), level(m)) }, policy, at(m));
    results.push(r);
    state = r.state;
  }
  return results;
}

export const propertyRuns = (): number => (process.env.CI ? 2_000 : 200);
