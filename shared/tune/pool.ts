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
import { candidateTarget } from './candidate.ts';
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
}

export type EvaluateReply = { id: number; figures: Figures | null } | { id: number; error: string };

export interface CandidatePool {
  evaluate(batch: readonly Settings[]): Promise<(Figures | null)[]>;
  close(): Promise<void>;
}

function inThisThread(init: TuneWorkerInit): CandidatePool {
  const fits = lookaheadMemo();
  return {
    evaluate: async (batch) =>
      batch.map((settings) => {
        const target = candidateTarget(init.raw, settings, init.knobs);
        return target ? evaluate(init.trace, target, init.options, fits) : null;
      }),
    close: async () => {},
  };
}

export function candidatePool(init: TuneWorkerInit, workers = availableParallelism()): CandidatePool {
  if (workers <= 0) return inThisThread(init);
  const threads = Array.from(
    { length: workers },
    () => new Worker(new URL('./worker.ts', import.meta.url), { workerData: init }),
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
  return {
    evaluate: (batch) =>
      Promise.all(
        batch.map(
          (settings) =>
            new Promise<Figures | null>((resolve, reject) => {
              const id = nextId++;
              waiting.set(id, { resolve, reject });
              queue.push({ id, settings: [...settings] });
              pump();
            }),
        ),
      ),
    close: async () => {
      await Promise.all(threads.map((t) => t.terminate()));
    },
  };
}
