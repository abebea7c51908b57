/**
 * What the backtest's forecast thread (./forecast-worker.ts) and the run (./parallel-fits.ts)
 * share: the claim values in shared memory, the stop cell, the worker's data and its replies.
 * A module of its own so the worker loads only this and the forecaster.
 */
import type { MessagePort } from 'node:worker_threads';
import type { ForecastResult } from '../../forecast/types.ts';
import type { PlannedForecast } from './forecast-plan.ts';

/** A claim cell: 0 while nobody computes the forecast, then who does. */
export const CLAIMED_HERE = 1;
export const CLAIMED_BY_WORKER = 2;
/** The cell after the claims: 1 tells the worker to stop. */
export const stopCell = (planned: number): number => planned;
/** The cell after that: 1 once the worker has gone through the whole plan (or stopped). */
export const finishedCell = (planned: number): number => planned + 1;

export interface ForecastWorkerData {
  /** The delivered requests, one a minute, from minute 0. */
  requests: Float64Array;
  plan: PlannedForecast[];
  /** Per forecast, its claim; then the stop cell. */
  claims: Int32Array;
  /** Per forecast: 1 once its reply is on the port. */
  done: Int32Array;
  port: MessagePort;
}

export type ForecastReply = { k: number; result: ForecastResult } | { k: number; error: string };
