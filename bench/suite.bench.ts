/**
 * Suite speed: the wall time of `governor suite` over every bundled trace and variant with one
 * worker thread per core, and the gain of the threads against running the same cells in this
 * thread (the NASA trace's 11 cells, both ways, in this process). Prints figures; never fails.
 */

import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { summarize } from '#shared/suite/format.ts';
import { runSuite } from '#shared/suite/pool.ts';
import { VARIANTS } from '#shared/suite/variants.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const policyText = readFileSync(join(root, 'examples/policy.yaml'), 'utf8');
const traces = readdirSync(join(root, 'traces'))
  .filter((f) => f.endsWith('.csv'))
  .sort()
  .map((f) => join(root, 'traces', f));

async function timed(tracePaths: string[], workers: number) {
  const t0 = performance.now();
  const cells = await runSuite({
    policyText,
    policyName: 'examples/policy.yaml',
    tracePaths,
    variants: VARIANTS,
    workers,
  });
  return { seconds: (performance.now() - t0) / 1000, cells };
}

export async function run(): Promise<void> {
  const cores = availableParallelism();
  const all = await timed(traces, cores);
  const s = summarize(all.cells);
  console.log(
    `suite: ${all.cells.length} cells (${traces.length} traces x ${VARIANTS.length} variants) in ${all.seconds.toFixed(1)} s on ${cores} worker threads; ${s.wins} wins, ${s.losses} losses`,
  );
  const nasa = traces.filter((t) => t.includes('nasa'));
  const one = await timed(nasa, 0);
  const threaded = await timed(nasa, cores);
  console.log(
    `NASA's ${one.cells.length} cells: ${one.seconds.toFixed(1)} s in this thread, ${threaded.seconds.toFixed(1)} s on ${cores} threads (${(one.seconds / threaded.seconds).toFixed(2)}x)`,
  );
}
