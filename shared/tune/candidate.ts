/** A candidate's target: the starting target's raw fields with the knobs set, validated as a policy file would be. */
import { crossFieldProblems } from '../policy/rules.ts';
import { type TargetPolicy, TargetSchema } from '../policy/schema.ts';
import { applyKnobs, type Knob } from './knobs.ts';
import type { Settings } from './search.ts';

/** The target, or null when the schema or a cross-field rule refuses the combination. */
export function candidateTarget(
  raw: Record<string, unknown>,
  settings: Settings,
  knobs: readonly Knob[],
): TargetPolicy | null {
  const parsed = TargetSchema.safeParse(applyKnobs(raw, settings, knobs));
  if (!parsed.success) return null;
  return crossFieldProblems([parsed.data]).length === 0 ? parsed.data : null;
}
