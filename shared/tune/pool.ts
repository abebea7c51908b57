/**
 * Evaluates candidates in worker threads (one per core by default), or in this thread with
 * workers 0. Each thread keeps its own memo of forecasts and noise fits: the first candidate a
 * thread runs pays for them, the rest reuse them.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { Fitted, ForecastShare } from '../backtest/forecast-thread/forecast-plan.ts';
import { type LookaheadFits, lookaheadMemo } from '../backtest/policies/lookahead.ts';
import { governorForecastPlan, runBacktest } from '../backtest/run.ts';
import type { ScenarioOptions } from '../backtest/scenario.ts';
import type { Trace } from '../backtest/trace.ts';
import type { PolicySummary } from '../backtest/types.ts';
import { WORKER_YOUNG_GENERATION_MB } from '../backtest/worker-heap.ts';
import type { TargetPolicy } from '../policy/schema.ts';
import { candidateTarget } from './candidate.ts';
import type { StopBound } from './early-stop.ts';
import { type Evaluated, evaluate, type Figures } from './evaluate.ts';
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
  /** Instead of a training run: `target` run over this whole trace, scored from the split. */
  heldOut?: HeldOutRun;
  /** Instead of a run: these forecasts of the plan, computed, kept in the memo and sent back. */
  prefetch?: ForecastShare;
  /** Instead of a run: forecasts another thread computed, put in this thread's memo. */
  seed?: Fitted;
}

/** One held-out run: sent once the search has ended, with the whole trace. */
export interface HeldOutRun {
  trace: Trace;
  scoreFrom: number;
  policy: Evaluated;
}

export type EvaluateReply =
  | { id: number; figures: Figures | null }
  | { id: number; summary: PolicySummary }
  | { id: number; fitted: Fitted }
  | { id: number; error: string };

/**
 * A held-out run with a thread's memo: the whole trace's forecasts and noise fits whose history
 * ends inside the training part are those the candidates asked for (the memo's keys name where
 * a history ends and how long it is, and the minutes before the split are the same), so only
 * the held-out part's are computed.
 */
export const heldOutSummary = (
  run: HeldOutRun,
  target: TargetPolicy,
  options: ScenarioOptions,
  fits: LookaheadFits,
): PolicySummary =>
  runBacktest({ trace: run.trace, target, options, scoreFrom: run.scoreFrom, fits, only: [run.policy] })
    .policies[0]!.summary;

export interface CandidatePool {
  /**
   * With a bound, each run stops once its candidate can no longer qualify (./early-stop.ts).
   * When `signal` aborts (a batch the search withdrew), its candidates no worker has started are
   * dropped and come back as null.
   */
  evaluate(batch: readonly Settings[], bound?: StopBound, signal?: AbortSignal): Promise<(Figures | null)[]>;
  /**
   * One target as written (the starting policy), in a worker like the candidates. First the idle
   * workers compute the forecasts it will ask for between them and share them; then every other
   * idle worker runs it too, unjudged, so each has its noise fits in its memo (and its code
   * compiled) before the search starts instead of paying for them on its first candidate.
   */
  evaluateTarget(target: TargetPolicy): Promise<Figures>;
  /**
   * Held-out runs (after the search: `run.trace` is the whole trace), each in a worker with the
   * forecasts its candidates computed; in the order given.
   */
  heldOut(runs: readonly { target: TargetPolicy; run: HeldOutRun }[]): Promise<PolicySummary[]>;
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
    heldOut: async (runs) => runs.map(({ target, run }) => heldOutSummary(run, target, init.options, fits)),
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
  type Answer = Figures | null | PolicySummary | Fitted;
  const waiting = new Map<number, { resolve: (a: Answer) => void; reject: (e: Error) => void }>();
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
      else w.resolve('summary' in reply ? reply.summary : 'fitted' in reply ? reply.fitted : reply.figures);
    });
    thread.on('error', (error) => {
      for (const w of waiting.values()) w.reject(error);
      waiting.clear();
    });
  }
  /** Queued for the next idle thread: a candidate's settings, or what `work` names instead. */
  const send = (
    settings: Settings,
    work: Pick<EvaluateRequest, 'target' | 'bound' | 'heldOut'> = {},
    signal?: AbortSignal,
  ) =>
    new Promise<Answer>((resolve, reject) => {
      const id = nextId++;
      waiting.set(id, { resolve, reject });
      queue.push({ id, settings: [...settings], ...work });
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
  /** To one thread, now: a prefetch or seed request, answered before anything queued after it. */
  const direct = (thread: Worker, request: Omit<EvaluateRequest, 'id' | 'settings'>) =>
    new Promise<Answer>((resolve, reject) => {
      const id = nextId++;
      waiting.set(id, { resolve, reject });
      const at = idle.indexOf(thread);
      if (at >= 0) idle.splice(at, 1);
      thread.postMessage({ id, settings: [], ...request });
    });
  /**
   * Before the starting policy's first run: the forecasts it will ask for (the plan a dry run of
   * its look-ahead lists, shared/backtest/run.ts governorForecastPlan), split among the idle
   * threads and computed at once, each thread then given the others' (it keeps its own); each
   * thread otherwise computed every one itself. A candidate asks for the same forecasts unless
   * its knobs move the horizon, and those it computes as before. The noise fits are left to the
   * run: it fits them from levels it keeps minute by minute, cheaper than a fit from scratch.
   */
  const shareForecasts = async (target: TargetPolicy) => {
    const { plan, requests } = governorForecastPlan(init.trace, target, init.options);
    const helpers = idle.slice();
    if (plan.length === 0 || helpers.length < 2) return;
    const parts = (await Promise.all(
      helpers.map((thread, i) =>
        direct(thread, { prefetch: { plan: plan.filter((_, k) => k % helpers.length === i), requests } }),
      ),
    )) as Fitted[];
    await Promise.all(
      helpers.map((thread, i) => direct(thread, { seed: parts.filter((_, j) => j !== i).flat() })),
    );
  };
  return {
    evaluate: (batch, bound, signal) =>
      Promise.all(
        batch.map((settings) => send(settings, bound ? { bound } : {}, signal) as Promise<Figures | null>),
      ),
    evaluateTarget: async (target) => {
      await shareForecasts(target);
      const judged = send(new Map(), { target }) as Promise<Figures>;
      // The other idle workers fill their memos with the same run (its figures are not read).
      for (const thread of idle.splice(0)) thread.postMessage({ id: nextId++, settings: [], target });
      return await judged;
    },
    heldOut: (runs) =>
      Promise.all(
        runs.map(({ target, run }) => send(new Map(), { target, heldOut: run }) as Promise<PolicySummary>),
      ),
    close: async () => {
      await Promise.all(threads.map((t) => t.terminate()));
    },
  };
}
