/**
 * Forecasts on a second thread while the backtest runs: the look-ahead's forecasts are about
 * four fifths of the governor policy's time, and the plan of them is known before the run
 * (./forecast-plan.ts). A worker (./forecast-worker.ts) computes them in order; the run, when it
 * asks for one, takes the worker's result, or computes it itself if the worker has not claimed
 * it yet, and while it waits for one the worker is on, computes the next unclaimed one. Claims
 * are one compare-and-swap per forecast in shared memory, so each forecast is computed once, by
 * whichever thread gets to it first.
 *
 * The same decisions bit for bit: a forecast is a pure function of the delivered history and its
 * options, both threads read the same history values, and a result crosses the thread boundary
 * by structured clone, which keeps every double as it is (tests/backtest/parallel-fits.test.ts
 * runs whole backtests both ways). A request outside the plan (another lead), a forecast the
 * worker failed, or a worker silent for WAIT_LIMIT_MS on one it claimed, is computed here.
 *
 * The run blocks with Atomics.wait while it waits, so the fits stay synchronous, as the
 * simulation loop is. close() stops the worker; call it when the run is over.
 */
import { MessageChannel, receiveMessageOnPort, Worker } from 'node:worker_threads';
import { forecast } from '../../forecast/forecast.ts';
import type { ForecastResult } from '../../forecast/types.ts';
import type { DeliveredWindow } from '../policies/delivered-window.ts';
import { DIRECT_FITS, type LookaheadFits } from '../policies/lookahead.ts';
import {
  CLAIMED_BY_WORKER,
  CLAIMED_HERE,
  type ForecastReply,
  type ForecastWorkerData,
  finishedCell,
  stopCell,
} from './forecast-claims.ts';
import { forecastKey, type PlannedForecast } from './forecast-plan.ts';

/** How long the run waits for a forecast the worker claimed before computing it itself. */
export const WAIT_LIMIT_MS = 10_000;

export interface ParallelFits extends LookaheadFits {
  /** Forecasts asked for: taken from the worker, computed here from the plan, or outside it. */
  readonly stats: { fromWorker: number; here: number; unplanned: number; workerErrors: number };
  /**
   * Blocks until the worker has gone through the plan or stopped (true), or timeoutMs passed
   * (false): for tests and benchmarks that want its share done before the run asks.
   */
  waitForWorker(timeoutMs: number): boolean;
  /** Stops the worker (the forecasts it has not started are dropped). */
  close(): Promise<void>;
}

/** For fault-injection tests: another worker script, a shorter wait. */
export interface ParallelFitsOptions {
  workerUrl?: URL;
  waitLimitMs?: number;
}

export function parallelFits(
  plan: readonly PlannedForecast[],
  requests: ArrayLike<number>,
  testing: ParallelFitsOptions = {},
): ParallelFits {
  const waitLimitMs = testing.waitLimitMs ?? WAIT_LIMIT_MS;
  const n = plan.length;
  const claims = new Int32Array(new SharedArrayBuffer(4 * (n + 2)));
  const done = new Int32Array(new SharedArrayBuffer(4 * Math.max(1, n)));
  const index = new Map<string, number>();
  plan.forEach((p, k) => {
    index.set(forecastKey(p.from, p.to, p.options), k);
  });
  const { port1, port2 } = new MessageChannel();
  /** The requests as a plain array: sliced for a forecast computed here, and what a run's history is checked against. */
  const history = Array.from(requests);
  const data: ForecastWorkerData = {
    requests: Float64Array.from(history),
    plan: [...plan],
    claims,
    done,
    port: port2,
  };
  const worker = new Worker(testing.workerUrl ?? new URL('./forecast-worker.ts', import.meta.url), {
    workerData: data,
    transferList: [port2],
  });
  worker.unref();
  // A worker that fails to start claims nothing: every forecast is then computed here.
  worker.on('error', () => Atomics.store(claims, stopCell(n), 1));
  /** Results not yet taken by the run, and whether the worker computed them. */
  const results = new Map<number, { result: ForecastResult; byWorker: boolean }>();
  const failed = new Set<number>();
  const stats = { fromWorker: 0, here: 0, unplanned: 0, workerErrors: 0 };
  let stalled = false;
  /** Below this every forecast is claimed (a hint for stealing, never a claim). */
  let cursor = 0;

  const drain = () => {
    for (let m = receiveMessageOnPort(port1); m; m = receiveMessageOnPort(port1)) {
      const reply = m.message as ForecastReply;
      if ('result' in reply) results.set(reply.k, { result: reply.result, byWorker: true });
      else {
        failed.add(reply.k);
        stats.workerErrors++;
      }
    }
  };
  const computeHere = (k: number): void => {
    const { from, to, options } = plan[k]!;
    results.set(k, {
      result: forecast(history.slice(from, to), options),
      byWorker: false,
    });
  };
  /** Claims and computes the first forecast after `after` that nobody has claimed; false when there is none. */
  const stealAfter = (after: number): boolean => {
    for (let j = Math.max(cursor, after + 1); j < n; j++) {
      cursor = j + 1;
      if (Atomics.compareExchange(claims, j, 0, CLAIMED_HERE) === 0) {
        computeHere(j);
        return true;
      }
    }
    return false;
  };
  /** Forecast k of the plan, wherever it is computed. */
  const resultOf = (k: number): { result: ForecastResult; byWorker: boolean } => {
    const claimedBy = Atomics.compareExchange(claims, k, 0, CLAIMED_HERE);
    if (claimedBy === CLAIMED_BY_WORKER && !stalled) {
      for (;;) {
        drain();
        if (results.has(k) || failed.has(k)) break;
        if (Atomics.load(done, k) === 1 || stealAfter(k)) continue;
        if (Atomics.wait(done, k, 0, waitLimitMs) === 'timed-out') {
          stalled = true;
          break;
        }
      }
    }
    drain();
    if (!results.has(k)) computeHere(k);
    return results.get(k)!;
  };

  return {
    stats,
    forecast: (window, options, params) => {
      const k = params === undefined ? index.get(forecastKey(window.from, window.to, options)) : undefined;
      if (k === undefined || !sameValues(window, history)) {
        stats.unplanned++;
        return DIRECT_FITS.forecast(window, options, params);
      }
      const { result, byWorker } = resultOf(k);
      results.delete(k);
      if (byWorker) stats.fromWorker++;
      else stats.here++;
      return result;
    },
    levelNoise: DIRECT_FITS.levelNoise,
    waitForWorker: (timeoutMs) => Atomics.wait(claims, finishedCell(n), 0, timeoutMs) !== 'timed-out',
    close: async () => {
      Atomics.store(claims, stopCell(n), 1);
      port1.close();
      await worker.terminate();
    },
  };
}

/** Whether the run's history holds the values the plan was made from (a plan for other demand is not used). */
function sameValues(window: DeliveredWindow, requests: readonly number[]): boolean {
  for (let i = 0; i < window.length; i++) {
    const a = window.at(i);
    const b = requests[window.from + i]!;
    if (a !== b && !(Number.isNaN(a) && Number.isNaN(b))) return false;
  }
  return true;
}
