/**
 * Runs the suite's cells: in worker threads (one per core by default; the cells are
 * independent and CPU-bound), or in this thread when workers is 0. Cells go out longest trace
 * first, so two workers finish together instead of one waiting on NASA at the end. A worker
 * stays on one trace while it has cells (its cells share forecasts and noise fits, see
 * ./trace-fits.ts), starts a trace no other worker is on when its own is done, and only then
 * helps with another's, from that trace's last cells (the noise seeds, which share nothing).
 * Results come back in the order of the cells, whatever order they finish in, and are the same
 * whatever worker ran which cell.
 */
import { statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { Trace } from '../backtest/trace.ts';
import { WORKER_YOUNG_GENERATION_MB } from '../backtest/worker-heap.ts';
import { type CellResult, runCell } from './cell.ts';
import { readTraceFile, targetFrom } from './load.ts';
import { traceFits } from './trace-fits.ts';
import type { Variant } from './variants.ts';

export interface SuiteInput {
  policyText: string;
  /** For messages: the policy file's path. */
  policyName: string;
  targetId?: string;
  tracePaths: readonly string[];
  /** Read minutes missing from a trace as 0 requests (--fill-gaps). */
  fillGaps?: boolean;
  variants: readonly Variant[];
  /** Worker threads; 0 runs every cell in this thread. Default: the machine's cores. */
  workers?: number;
  /** Called after each cell: cells done, cells in all, the cell just done. */
  onCell?: (done: number, total: number, cell: CellResult) => void;
}

export interface WorkerInit {
  policyText: string;
  policyName: string;
  targetId?: string;
  fillGaps?: boolean;
}

export interface CellTask {
  index: number;
  tracePath: string;
  variant: string;
}

export type WorkerReply = { index: number; result: CellResult } | { index: number; error: string };

/** Every trace under every variant, in table order (trace by trace). */
export function cellTasks(tracePaths: readonly string[], variants: readonly Variant[]): CellTask[] {
  return tracePaths.flatMap((tracePath, t) =>
    variants.map((v, i) => ({ index: t * variants.length + i, tracePath, variant: v.id })),
  );
}

/**
 * The next cell for a worker on trace `own` (undefined: none yet) while other workers are on
 * `others`: its own trace's first queued cell; else the first cell of a trace nobody is on; else
 * the last queued cell (another worker's trace, its least shared cell). Removes it from the queue.
 */
export function takeNext(
  queue: CellTask[],
  own: string | undefined,
  others: ReadonlySet<string>,
): CellTask | undefined {
  if (queue.length === 0) return undefined;
  let i = own === undefined ? -1 : queue.findIndex((t) => t.tracePath === own);
  if (i < 0) i = queue.findIndex((t) => !others.has(t.tracePath));
  if (i < 0) i = queue.length - 1;
  return queue.splice(i, 1)[0];
}

const sizeOf = (path: string): number => {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
};

function inThisThread(input: SuiteInput, tasks: CellTask[]): CellResult[] {
  const target = targetFrom(input.policyText, input.policyName, input.targetId);
  const traces = new Map<string, Trace>();
  const fitsFor = traceFits();
  const results: CellResult[] = [];
  for (const task of tasks) {
    let trace = traces.get(task.tracePath);
    if (!trace) {
      trace = readTraceFile(task.tracePath, { fillGaps: input.fillGaps === true });
      traces.set(task.tracePath, trace);
    }
    const variant = input.variants.find((v) => v.id === task.variant)!;
    const result = runCell(trace, target, variant, fitsFor(task.tracePath));
    results.push(result);
    input.onCell?.(results.length, tasks.length, result);
  }
  return results;
}

export async function runSuite(input: SuiteInput): Promise<CellResult[]> {
  const tasks = cellTasks(input.tracePaths, input.variants);
  // Fail on a bad policy or trace here, once, with its message, before any thread starts.
  targetFrom(input.policyText, input.policyName, input.targetId);
  for (const path of input.tracePaths) readTraceFile(path, { fillGaps: input.fillGaps === true });
  const workers = Math.min(tasks.length, input.workers ?? availableParallelism());
  if (workers <= 0) return inThisThread(input, tasks);
  const queue = [...tasks].sort((a, b) => sizeOf(b.tracePath) - sizeOf(a.tracePath) || a.index - b.index);
  const results = new Array<CellResult>(tasks.length);
  const init: WorkerInit = {
    policyText: input.policyText,
    policyName: input.policyName,
    ...(input.targetId !== undefined ? { targetId: input.targetId } : {}),
    ...(input.fillGaps ? { fillGaps: true } : {}),
  };
  let done = 0;
  const threads = Array.from(
    { length: workers },
    () =>
      new Worker(new URL('./worker.ts', import.meta.url), {
        workerData: init,
        resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
      }),
  );
  const onTrace = new Map<Worker, string>();
  try {
    await Promise.all(
      threads.map(
        (worker) =>
          new Promise<void>((resolveAll, rejectAll) => {
            const next = () => {
              const others = new Set([...onTrace].filter(([w]) => w !== worker).map(([, t]) => t));
              const task = takeNext(queue, onTrace.get(worker), others);
              if (!task) {
                onTrace.delete(worker);
                resolveAll();
                return;
              }
              onTrace.set(worker, task.tracePath);
              worker.postMessage(task);
            };
            worker.on('message', (reply: WorkerReply) => {
              if ('error' in reply) {
                rejectAll(
                  new Error(
                    `cell ${tasks[reply.index]!.tracePath} ${tasks[reply.index]!.variant}: ${reply.error}`,
                  ),
                );
                return;
              }
              results[reply.index] = reply.result;
              done++;
              input.onCell?.(done, tasks.length, reply.result);
              next();
            });
            worker.on('error', rejectAll);
            next();
          }),
      ),
    );
  } finally {
    await Promise.all(threads.map((w) => w.terminate()));
  }
  return results;
}
