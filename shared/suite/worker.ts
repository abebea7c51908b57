/**
 * A suite worker thread: parses the policy once, each trace the first time a cell needs it, and
 * runs the cells it is sent, one at a time, posting each result back (./pool.ts). Cells of one
 * trace share their forecasts and noise fits (./trace-fits.ts).
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { Trace } from '../backtest/trace.ts';
import { runCell } from './cell.ts';
import { readTraceFile, targetFrom } from './load.ts';
import type { CellTask, WorkerInit, WorkerReply } from './pool.ts';
import { traceFits } from './trace-fits.ts';
import { VARIANTS } from './variants.ts';

const init = workerData as WorkerInit;
const target = targetFrom(init.policyText, init.policyName, init.targetId);
const traces = new Map<string, Trace>();
const fitsFor = traceFits();

parentPort!.on('message', (task: CellTask) => {
  let reply: WorkerReply;
  try {
    let trace = traces.get(task.tracePath);
    if (!trace) {
      trace = readTraceFile(task.tracePath, { fillGaps: init.fillGaps === true });
      traces.set(task.tracePath, trace);
    }
    const variant = VARIANTS.find((v) => v.id === task.variant)!;
    reply = { index: task.index, result: runCell(trace, target, variant, fitsFor(task.tracePath)) };
  } catch (error) {
    reply = { index: task.index, error: error instanceof Error ? error.message : String(error) };
  }
  parentPort!.postMessage(reply);
});
