/**
 * The worker thread of ./threads.ts: prepares the same backtest from the same input, simulates
 * the policies it is given, and posts their runs back (with progress on the way).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { prepareBacktest, simulatePolicies } from './run.ts';
import type { ThreadReply, ThreadTask } from './threads.ts';

const task = workerData as ThreadTask;
let reply: ThreadReply;
try {
  const prep = prepareBacktest(task.input);
  const done = simulatePolicies(prep, task.which, (policy, progress) =>
    parentPort!.postMessage({ policy, progress } satisfies ThreadReply),
  );
  reply = { done };
} catch (error) {
  reply = { error: error instanceof Error ? error.message : String(error) };
}
parentPort!.postMessage(reply);
