/**
 * The suite's machine-readable result (--json, and what the HTML report is drawn from): the
 * policy judged, the variants, every cell's figures and verdict, and the summary (wins, losses,
 * the median saving at equal SLO).
 */
import type { CellResult } from './cell.ts';
import { type SuiteSummary, summarize } from './format.ts';
import type { Variant } from './variants.ts';

export interface SuiteReport {
  policy: string;
  targetId: string | null;
  baseline: 'aws-target-tracking-best';
  variants: Variant[];
  cells: CellResult[];
  summary: SuiteSummary & { cells: number };
  /** Wall time of the run, seconds. */
  seconds: number;
}

export function toSuiteJson(input: {
  policy: string;
  targetId: string | undefined;
  variants: readonly Variant[];
  cells: readonly CellResult[];
  seconds: number;
}): SuiteReport {
  return {
    policy: input.policy,
    targetId: input.targetId ?? null,
    baseline: 'aws-target-tracking-best',
    variants: [...input.variants],
    cells: [...input.cells],
    summary: { ...summarize(input.cells), cells: input.cells.length },
    seconds: Math.round(input.seconds * 10) / 10,
  };
}
