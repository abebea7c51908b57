/**
 * A tune worker thread: holds the training part of the trace and one memo of forecasts and
 * noise fits, and evaluates the candidates it is sent, a batch at a time (./pool.ts).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { prefetched, seedMemo } from '../backtest/forecast-thread/forecast-plan.ts';
import { lookaheadMemo } from '../backtest/policies/lookahead.ts';
import { candidateTarget } from './candidate.ts';
import { evaluate } from './evaluate.ts';
import { type EvaluateReply, type EvaluateRequest, heldOutSummary, type TuneWorkerInit } from './pool.ts';

const init = workerData as TuneWorkerInit;
const fits = lookaheadMemo();

parentPort!.on('message', (req: EvaluateRequest) => {
  let reply: EvaluateReply;
  try {
    if (req.prefetch) {
      const fitted = prefetched(req.prefetch);
      seedMemo(fits, fitted);
      parentPort!.postMessage({ id: req.id, fitted });
      return;
    }
    if (req.seed) {
      seedMemo(fits, req.seed);
      parentPort!.postMessage({ id: req.id, figures: null });
      return;
    }
    const target = req.target ?? candidateTarget(init.raw, new Map(req.settings), init.knobs);
    if (req.heldOut && target)
      reply = { id: req.id, summary: heldOutSummary(req.heldOut, target, init.options, fits) };
    else
      reply = {
        id: req.id,
        figures: target ? evaluate(init.trace, target, init.options, fits, 'governor', req.bound) : null,
      };
  } catch (error) {
    reply = { id: req.id, error: error instanceof Error ? error.message : String(error) };
  }
  parentPort!.postMessage(reply);
});
