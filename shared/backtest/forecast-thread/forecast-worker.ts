/**
 * The forecast thread of a backtest (./parallel-fits.ts): computes the planned forecasts in
 * order, each one it claims first, and posts each result on its port before it marks it done.
 * A forecast that throws is posted as an error; the run then computes that one itself.
 */
import { workerData } from 'node:worker_threads';
import { forecast } from '../../forecast/forecast.ts';
import {
  CLAIMED_BY_WORKER,
  type ForecastReply,
  type ForecastWorkerData,
  finishedCell,
  stopCell,
} from './forecast-claims.ts';

const { requests, plan, claims, done, port } = workerData as ForecastWorkerData;
// One plain array, sliced per forecast: a copy out of the typed array each time was about a tenth
// of this thread's time.
const history = Array.from(requests);

for (let k = 0; k < plan.length && Atomics.load(claims, stopCell(plan.length)) === 0; k++) {
  if (Atomics.compareExchange(claims, k, 0, CLAIMED_BY_WORKER) !== 0) continue;
  const { from, to, options } = plan[k]!;
  let reply: ForecastReply;
  try {
    reply = { k, result: forecast(history.slice(from, to), options) };
  } catch (error) {
    reply = { k, error: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply);
  Atomics.store(done, k, 1);
  Atomics.notify(done, k);
}
Atomics.store(claims, finishedCell(plan.length), 1);
Atomics.notify(claims, finishedCell(plan.length));
port.close();
