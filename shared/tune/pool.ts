/**
 * Evaluates candidates in worker threads (one per core by default), or in this thread with
 * workers 0. Each thread keeps its own memo of forecasts and noise fits: the first candidate a
 * thread runs pays for them, the rest reuse them.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { lookaheadMemo } from '../backtest/policies/lookahead.ts';
import type { ScenarioOptions } from '../backtest/scenario.ts';
import type { Trace } from '../backtest/trace.ts';
import { WORKER_YOUNG_GENERATION_MB } from '../backtest/worker-heap.ts';
import type { TargetPolicy } from '../policy/schema.ts';
import { candidateTarget } from './candidate.ts';
import type { StopBound } from './early-stop.ts';
import { evaluate, type Figures } from './evaluate.ts';
import type { Knob, KnobValue } from './knobs.ts';
import type { Settings } from './search.ts';

export interface TuneWorkerInit {
  trace: Trace;
  options: ScenarioOptions;
  raw: Record<string, unknown>;
  knobs: Knob[];
}

export interface EvaluateRequest {
  id: number;
  settings: [string, KnobValue][];
  /** A whole target to evaluate instead of the settings' candidate (the starting policy). */
  target?: TargetPolicy;
  /** Stop the run once the candidate can no longer qualify (./early-stop.ts). */
  bound?: StopBound;
}

export type EvaluateReply = { id: number; figures: Figures | null } | { id: number; error: string };

export interface CandidatePool {
  /**
   * With a bound, each run stops once its candidate can no longer qualify (./early-stop.ts).
   * When `signal` aborts (a batch the search withdrew), its candidates no worker has started are
   * dropped and come back as null.
   */
  evaluate(batch: readonly Settings[], bound?: StopBound, signal?: AbortSignal): Promise<(Figures | null)[]>;
  /**
   * One target as written (the starting policy), in a worker like the candidates; every other
   * idle worker runs it too, unjudged, so each has the forecasts and noise fits in its memo
   * before the search starts instead of paying for them on its first candidate.
   */
  evaluateTarget(target: TargetPolicy): Promise<Figures>;
  close(): Promise<void>;
}

function inThisThread(init: TuneWorkerInit): CandidatePool {
  const fits = lookaheadMemo();
  return {
    evaluate: async (batch, bound) =>
      batch.map((settings) => {
        const target = candidateTarget(init.raw, settings, init.knobs);
        return target ? evaluate(init.trace, target, init.options, fits, 'governor', bound) : null;
      }),
    evaluateTarget: async (target) => evaluate(init.trace, target, init.options, fits),
    close: async () => {},
  };
}

export function candidatePool(init: TuneWorkerInit, workers = availableParallelism()): CandidatePool {
  if (workers <= 0) return inThisThread(init);
  const threads = Array.from(
    { length: workers },
    () =>
      new Worker(new URL('./worker.ts', import.meta.url), {
        workerData: init,
        // A young generation the main thread's size; the old generation unbounded
        // (shared/backtest/worker-heap.ts says why and what each costs).
        resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
      }),
  );
  let nextId = 0;
  const waiting = new Map<number, { resolve: (f: Figures | null) => void; reject: (e: Error) => void }>();
  const idle = [...threads];
  const queue: EvaluateRequest[] = [];
  const pump = () => {
    while (idle.length > 0 && queue.length > 0) idle.shift()!.postMessage(queue.shift()!);
  };
  for (const thread of threads) {
    thread.on('message', (reply: EvaluateReply) => {
      const w = waiting.get(reply.id);
      waiting.delete(reply.id);
      idle.push(thread);
      pump();
      if (!w) return;
      if ('error' in reply) w.reject(new Error(reply.error));
      else w.resolve(reply.figures);
    });
    thread.on('error', (error) => {
      for (const w of waiting.values()) w.reject(error);
      waiting.clear();
    });
  }
  const send = (settings: Settings, target?: TargetPolicy, bound?: StopBound, signal?: AbortSignal) =>
    new Promise<Figures | null>((resolve, reject) => {
      const id = nextId++;
      waiting.set(id, { resolve, reject });
      queue.push({ id, settings: [...settings], ...(target ? { target } : {}), ...(bound ? { bound } : {}) });
      signal?.addEventListener(
        'abort',
        () => {
          const at = queue.findIndex((r) => r.id === id);
          if (at < 0) return; // started: its reply is ignored by the search
          queue.splice(at, 1);
          waiting.delete(id);
          resolve(null);
        },
        { once: true },
      );
      pump();
    });
  return {
    evaluate: (batch, bound, signal) =>
      Promise.all(batch.map((settings) => send(settings, undefined, bound, signal))),
    evaluateTarget: async (target) => {
      const judged = send(new Map(), target);
      // The other idle workers fill their memos with the same run (its figures are not read).
      for (const thread of idle.splice(0)) thread.postMessage({ id: nextId++, settings: [], target });
      return (await judged)!;
    },
    close: async () => {
      await Promise.all(threads.map((t) => t.terminate()));
    },
  };
}
