/**
 * `governor tune`'s run, without the CLI: split the history, aim at the target's SLO objective
 * with a margin in every fold, search the knobs on the training part only, then judge the
 * starting policy, the tuned one and target tracking on the held-out part, each run over the
 * whole trace and scored from the split (the forecaster keeps its history), and keep the
 * starting policy when the tuned one does worse there. Nothing after the split is read before
 * the search has ended.
 */
import { lookaheadMemo } from '../backtest/policies/lookahead.ts';
import type { ScenarioOptions } from '../backtest/scenario.ts';
import type { Trace } from '../backtest/trace.ts';
import type { PolicySummary } from '../backtest/types.ts';
import type { TargetPolicy } from '../policy/schema.ts';
import { sloOf } from '../slo/objective.ts';
import { candidateTarget } from './candidate.ts';
import type { StopBound } from './early-stop.ts';
import { type Evaluated, evaluate, type Figures } from './evaluate.ts';
import { type Knob, knobsFor, startValue } from './knobs.ts';
import {
  BUDGET_MARGIN,
  feasible,
  type Goal,
  goalOf,
  paretoFront,
  stopBoundOf,
  worstSaving,
} from './objective.ts';
import { type CandidatePool, candidatePool } from './pool.ts';
import { type Candidate, type SearchResult, type Settings, search } from './search.ts';
import { judge, type Verdict } from './verdict.ts';

/**
 * Candidates per batch, whatever the number of worker threads: the batch size shapes the search
 * (the best moves between batches), so deriving it from the core count would make the same seed
 * write another file on another machine. 8 keeps 2 threads busy at 4 candidates each.
 */
export const BATCH_SIZE = 8;

/** Candidates tried by default: about 2 minutes on NASA's 18.5 training days on 2 cores (docs/tune.md). */
export const DEFAULT_CANDIDATES = 300;

export interface TuneInput {
  trace: Trace;
  /** The starting target as written in the policy file (raw) and as parsed (defaults filled). */
  raw: Record<string, unknown>;
  target: TargetPolicy;
  options: ScenarioOptions;
  /** Share of the trace the search may see, from its start (0.67: two thirds). */
  trainFraction: number;
  /** Share of the error budget held back in each fold (default BUDGET_MARGIN, 0.5). */
  margin?: number;
  /** The candidate budget: the search stops after this many (or when nothing is left to try). */
  maxCandidates: number;
  /** A safety only: when it returns true the search throws, it never stops early with a result. */
  expired?: () => boolean;
  workers: number;
  seed?: number;
  /**
   * Run every candidate over the whole training part (default false): a candidate that can no
   * longer qualify is otherwise stopped early (./early-stop.ts), which writes the same file in
   * about half the time but leaves it out of the Pareto front.
   */
  fullFront?: boolean;
  onBatch?: (tried: number, best: Candidate, goal: Goal) => void;
}

export interface HeldOut {
  /** First minute scored; the trace's length. */
  from: number;
  minutes: number;
  tuned: PolicySummary;
  start: PolicySummary;
  baseline: PolicySummary;
  verdict: Verdict;
}

export interface TuneResult extends SearchResult {
  split: number;
  knobs: Knob[];
  goal: Goal;
  baselineTrain: Figures;
  front: Candidate[];
  /** The tuned target, as searched (written unless the verdict keeps the starting one). */
  tuned: TargetPolicy;
  heldOut: HeldOut;
}

export class TuneInputError extends Error {
  override name = 'TuneInputError';
}

/** Minutes of training the search needs at least: a day for a forecast, and a day to judge. */
export const MIN_TRAINING_MINUTES = 2 * 1440;

/**
 * The three held-out runs, in the pool once the search has ended: the tuned and the starting
 * policy each in a worker at once, with the forecasts and noise fits their candidates already
 * made (only the held-out part's are new), and target tracking after them.
 */
async function heldOut(
  input: TuneInput,
  pool: CandidatePool,
  tuned: TargetPolicy,
  split: number,
  goal: Goal,
): Promise<HeldOut> {
  const run = (policy: Evaluated) => ({ trace: input.trace, scoreFrom: split, policy });
  const [t, s, b] = await pool.heldOut([
    { target: tuned, run: run('governor') },
    { target: input.target, run: run('governor') },
    { target: input.target, run: run('aws-target-tracking') },
  ]);
  const held = { tuned: t!, start: s!, baseline: b! };
  return { from: split, minutes: input.trace.requests.length, ...held, verdict: judge(held, goal) };
}

export async function tune(input: TuneInput): Promise<TuneResult> {
  const n = input.trace.requests.length;
  const split = Math.floor(input.trainFraction * n);
  if (split < MIN_TRAINING_MINUTES || n - split < 60) {
    throw new TuneInputError(
      `the trace has ${n} minutes; training on ${split} of them leaves too little: tune needs at least ${MIN_TRAINING_MINUTES} minutes (2 days) to train and an hour to judge; use a longer history or another --train-fraction`,
    );
  }
  // The search sees this copy only: the minutes after the split are not in it.
  const training: Trace = {
    ...input.trace,
    requests: input.trace.requests.slice(0, split),
    inputTokens: input.trace.inputTokens?.slice(0, split) ?? null,
    outputTokens: input.trace.outputTokens?.slice(0, split) ?? null,
  };
  const baselineTrain = evaluate(
    training,
    input.target,
    input.options,
    lookaheadMemo(),
    'aws-target-tracking',
  );
  const knobs = knobsFor(input.target);
  const start = new Map(knobs.map((k) => [k.name, startValue(input.target, k)!])) as Settings;
  const pool = candidatePool(
    { trace: training, options: input.options, raw: input.raw, knobs },
    input.workers,
  );
  let found: SearchResult;
  let goal: Goal;
  let tuned: TargetPolicy;
  let held: HeldOut;
  try {
    // The starting policy on the same folds: a tuned policy must be no dearer than it in any
    // fold and no further over the margin (goalOf), so a saving one week that is paid for the
    // next is not a saving. It runs in the pool like the candidates, so this thread holds no
    // run's garbage while the workers search. Its figures are the search's first candidate's
    // (the start's settings give this target, and its own bound never stops it): not run twice.
    const startFigures = await pool.evaluateTarget(input.target);
    goal = goalOf(sloOf(input.target), input.margin ?? BUDGET_MARGIN, startFigures.folds);
    const bound = input.fullFront ? undefined : stopBoundOf(goal);
    // A batch is also stopped against the best it was sent with: never below its saving (./early-stop.ts).
    const boundAgainst = (best: Figures | undefined): StopBound | undefined =>
      bound && best && goal.reference && feasible(best, goal)
        ? { ...bound, bestSaving: worstSaving(best, goal.reference) }
        : bound;
    found = await search({
      knobs,
      start,
      startFigures,
      goal,
      seed: input.seed ?? 1,
      maxCandidates: input.maxCandidates,
      batchSize: BATCH_SIZE,
      evaluate: (batch, signal, best) => pool.evaluate(batch, boundAgainst(best), signal),
      ...(input.expired ? { expired: input.expired } : {}),
      onBatch: (tried, best) => input.onBatch?.(tried, best, goal),
    });
    // The search has ended: only now does any thread see the minutes after the split.
    tuned = candidateTarget(input.raw, found.best.settings, knobs)!;
    held = await heldOut(input, pool, tuned, split, goal);
  } finally {
    await pool.close();
  }
  return {
    ...found,
    split,
    knobs,
    goal,
    baselineTrain,
    front: paretoFront(found.tried.filter((c) => !c.figures.stopped)),
    tuned,
    heldOut: held,
  };
}
