/**
 * One backtest on two threads: the policies that forecast (the governor's look-ahead: most of a
 * backtest's time, its refits) in a worker thread, the others and target tracking's best-target
 * sweep in this one, at the same time. Each policy's run depends on the trace, the scenario and
 * its own settings only, so the result is the one runBacktest gives in one thread, equal value
 * for value (tests/backtest/threads.test.ts); only the wall time changes.
 *
 * One thread (runBacktest) when there is one core or workers is below 2, when nothing forecasts
 * or everything does, and when the input shares fits across runs (a function: `governor tune`
 * and the suite share them within a thread and run their own workers).
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import {
  assembleBacktest,
  type BacktestInput,
  type PolicyRuns,
  prepareBacktest,
  runBacktest,
  simulatePolicies,
  sweepPrepared,
} from './run.ts';
import type { BacktestResult } from './types.ts';

/** What the worker needs: the input without its functions (progress, shared fits). */
export interface ThreadTask {
  input: Omit<BacktestInput, 'onProgress' | 'fits'>;
  /** Indexes into the prepared policies, in table order. */
  which: number[];
}

export type ThreadReply = { progress: number; policy: string } | { done: PolicyRuns } | { error: string };

export async function runBacktestInThreads(
  input: BacktestInput,
  workers = availableParallelism(),
): Promise<BacktestResult> {
  if (workers < 2 || input.fits) return runBacktest(input);
  const prep = prepareBacktest(input);
  const heavy: number[] = [];
  const light: number[] = [];
  prep.policies.forEach((p, i) => {
    (p.forecastBand ? heavy : light).push(i);
  });
  if (heavy.length === 0 || light.length === 0) return runBacktest(input);

  const { onProgress } = input;
  // Both halves report; the bar shows their mean, never moving back.
  const share = { heavy: 0, light: 0, shown: 0 };
  const report = (policy: string) => {
    const done = Math.max(share.shown, (share.heavy + share.light) / 2);
    share.shown = done;
    onProgress?.(policy, done);
  };
  const { onProgress: _progress, fits: _fits, ...cloneable } = input;
  const task: ThreadTask = { input: cloneable, which: heavy };
  const worker = new Worker(new URL('./thread-worker.ts', import.meta.url), { workerData: task });
  const heavyRuns = new Promise<PolicyRuns>((resolve, reject) => {
    worker.on('message', (reply: ThreadReply) => {
      if ('done' in reply) resolve(reply.done);
      else if ('error' in reply) reject(new Error(reply.error));
      else {
        share.heavy = reply.progress;
        report(reply.policy);
      }
    });
    worker.on('error', reject);
    worker.on('exit', (code) => reject(new Error(`the backtest's worker thread stopped (exit ${code})`)));
  });
  // Awaited below; this only keeps a failure here from being unhandled when this thread fails first.
  heavyRuns.catch(() => {});
  try {
    const lightRuns = simulatePolicies(prep, light, (policy, done) => {
      share.light = done;
      report(policy);
    });
    const sweep = sweepPrepared(prep);
    const forecasting = await heavyRuns;
    const runs = new Array(prep.policies.length);
    heavy.forEach((at, k) => {
      runs[at] = forecasting.runs[k];
    });
    light.forEach((at, k) => {
      runs[at] = lightRuns.runs[k];
    });
    const band = forecasting.forecast ?? lightRuns.forecast;
    return assembleBacktest(prep, { runs, ...(band ? { forecast: band } : {}) }, sweep);
  } finally {
    await worker.terminate();
  }
}
