/**
 * Test files in vitest's order (on a clean clone, where vitest has no timings yet: larger files
 * first), with the files known to take longest moved to the front, so the two workers start on
 * them and finish together instead of one of them running a two-minute file at the end. A clean
 * clone's `.ci/run` took 10 min 30 s when the per-trace mix reference files, 4 lines each, sorted
 * last. The list is measured (the longest files of a full run); a file not in it keeps its place.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export const LONG_FIRST = [
  'tests/backtest/mix-reference-nasa.test.ts',
  'tests/backtest/mix-reference-twitter.test.ts',
  'tests/scale/moto.test.ts',
  'tests/engine/properties.test.ts',
  'tests/cli/scripts.test.ts',
  'tests/integration/scale-target-moto.test.ts',
  'tests/failover/properties.test.ts',
  'tests/backtest/identical.test.ts',
  'tests/backtest/failover-nasa.test.ts',
  'tests/functions/policy-parts.test.ts',
  'tests/cli/policy-split.test.ts',
  'tests/functions/spot-events-fuzz.test.ts',
  'tests/scale/tick-calls.test.ts',
];

/** Where a file's path ends in one of LONG_FIRST: its rank there, else -1. */
export function longRank(moduleId: string): number {
  const path = moduleId.replaceAll('\\', '/');
  return LONG_FIRST.findIndex((f) => path.endsWith(`/${f}`) || path === f);
}

export class LongFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const long = sorted.filter((f) => longRank(f.moduleId) >= 0);
    long.sort((a, b) => longRank(a.moduleId) - longRank(b.moduleId));
    return [...long, ...sorted.filter((f) => longRank(f.moduleId) < 0)];
  }
}
