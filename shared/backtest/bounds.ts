/**
 * When the policy's own bounds decide the result instead of its damping: a maxCapacity below
 * the fleet the busiest minute needs caps Governor while the baselines, bounded by the
 * scenario (2 x peakInstances), are not. The run says so in one line rather than letting a
 * ClampedToMax count carry it.
 */
import { maxOf } from '../arrays/extent.ts';
import type { TargetPolicy } from '../policy/schema.ts';
import type { BacktestResult } from './types.ts';

/** One line per bound that bound, empty when none did. */
export function boundNotes(result: BacktestResult, target: TargetPolicy): string[] {
  const notes: string[] = [];
  const needed = maxOf(result.oracle);
  const { maxCapacity } = target.scaling;
  for (const run of result.policies) {
    const clamped = run.summary.reasonCounts?.ClampedToMax ?? 0;
    if (clamped === 0 || maxCapacity >= needed) continue;
    notes.push(
      `${run.summary.name}: scaling.maxCapacity ${maxCapacity} of ${target.id} is below the ${needed} instances the busiest minute needs and capped ${clamped} decision${clamped === 1 ? '' : 's'} (the baselines may go to ${result.scenario.maxCapacity}); raise it to compare like with like`,
    );
  }
  return notes;
}
