/**
 * The suite's scenario variants (BACKTEST.md, "Judging a policy"): the reference scenario, then
 * one knob moved at a time. A policy that wins the reference and loses a variant has been fitted
 * to the reference, not to traffic.
 */
import type { ScenarioOptions } from '../backtest/scenario.ts';

export interface Variant {
  /** Short id, as the table and --variants use it: `reference`, `cold-4`, `noise-3`. */
  id: string;
  /** What moved, in words. */
  label: string;
  /** The options that differ from the reference scenario. */
  options: Partial<ScenarioOptions>;
}

const noise = (seed: number): Variant => ({
  id: `noise-${seed}`,
  label: `Poisson noise, seed ${seed}`,
  options: { noiseSeed: seed },
});

export const VARIANTS: readonly Variant[] = [
  { id: 'reference', label: 'reference scenario', options: {} },
  { id: 'cold-4', label: 'cold start 4 min', options: { coldStartMinutes: 4 } },
  { id: 'cold-15', label: 'cold start 15 min', options: { coldStartMinutes: 15 } },
  { id: 'peak-10', label: '10 instances at peak', options: { peakInstances: 10 } },
  { id: 'peak-160', label: '160 instances at peak', options: { peakInstances: 160 } },
  { id: 'delay-2', label: 'metric delay 2 min', options: { metricDelayMinutes: 2 } },
  noise(1),
  noise(2),
  noise(3),
  noise(4),
  noise(5),
];

/** The variants named in `ids` (every one when empty), or an error naming the unknown one. */
export function selectVariants(ids: readonly string[]): Variant[] {
  if (ids.length === 0) return [...VARIANTS];
  return ids.map((id) => {
    const found = VARIANTS.find((v) => v.id === id);
    if (!found) {
      throw new RangeError(
        `unknown variant "${id}"; the variants are ${VARIANTS.map((v) => v.id).join(', ')}`,
      );
    }
    return found;
  });
}
