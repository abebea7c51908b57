/**
 * The capacity-mix planner's cost: one stepMix (the cheapest plan over every pool count and spot
 * count that keeps the loss cover, then the damping) at fleet sizes of 40, 200 and 400
 * instances, three pools, with and without a budget that binds (the budget cap repeats the search
 * once per instance it removes). Baseline in the same process: the smallest fleet. The planner
 * runs once per target per forecast refresh, so milliseconds are cheap; what matters is that
 * the growth stays near the fleet size. Prints figures; never fails.
 */
import { initialMixState, stepMix } from '#shared/mix/plan.ts';
import { DEFAULT_REPLACEMENT_LEAD_MINUTES, type ForecastPoint, type MixPolicy } from '#shared/mix/types.ts';
import { CapacityMixSchema } from '#shared/policy/capacity-mix-schema.ts';

const T0 = Date.UTC(2026, 0, 5);
const POOLS = [
  { instanceType: 'g5.2xlarge', onDemandUsdPerHour: 1.2, spotUsdPerHour: 0.48, interruption: '5-10%' },
  { instanceType: 'g6.2xlarge', onDemandUsdPerHour: 1.0, spotUsdPerHour: 0.4, interruption: '<5%' },
  { instanceType: 'g6e.xlarge', onDemandUsdPerHour: 1.8, spotUsdPerHour: 0.72, interruption: '10-15%' },
];

function policy(max: number, maxUsdPerHour?: number): MixPolicy {
  return {
    targetId: 'bench',
    minCapacity: 1,
    maxCapacity: max,
    mix: CapacityMixSchema.parse({
      pools: POOLS,
      committed: { instances: 2, instanceType: 'g5.2xlarge', usdPerHour: 0.76 },
      spot: { maxPercent: 60 },
      ...(maxUsdPerHour ? { maxUsdPerHour } : {}),
    }),
    replacementLeadMinutes: DEFAULT_REPLACEMENT_LEAD_MINUTES,
  };
}

const forecast = (p90: number): { points: ForecastPoint[] } => ({
  points: Array.from({ length: 17 }, (_, i) => ({ at: T0 + i * 15 * 60_000, p50: p90 * 0.7, p90 })),
});

/** Median milliseconds of one stepMix from a fresh state. */
function time(p: MixPolicy, p90: number): number {
  const runs: number[] = [];
  for (let i = 0; i < 15; i++) {
    const t = performance.now();
    stepMix(initialMixState(), { forecast: forecast(p90) }, p, T0);
    runs.push(performance.now() - t);
  }
  runs.sort((a, b) => a - b);
  return runs[Math.floor(runs.length / 2)] as number;
}

export function run(): void {
  const sizes = [40, 200, 400];
  for (const budgeted of [false, true]) {
    const base = { ms: 0 };
    for (const [i, n] of sizes.entries()) {
      const p90 = Math.round(n * 0.8);
      // A budget that binds: half of what the fleet would cost all on-demand at the cheapest price.
      const p = policy(n, budgeted ? p90 * 1.0 * 0.5 : undefined);
      const ms = time(p, p90);
      if (i === 0) base.ms = ms;
      console.log(
        `${budgeted ? 'with a binding budget' : 'no budget'}: p90 ${p90} of at most ${n} instances, 3 pools: ${ms.toFixed(2)} ms a step (${(ms / base.ms).toFixed(1)}x the ${sizes[0]}-instance step, fleet ${(n / (sizes[0] as number)).toFixed(0)}x)`,
      );
    }
  }
}
