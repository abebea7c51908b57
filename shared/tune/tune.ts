/**
 * `governor tune`'s run, without the CLI: split the history, measure target tracking on the
 * training part (the default goal), search the knobs on the training part only, then judge the
 * starting policy, the tuned one and target tracking on the held-out part, each run over the
 * whole trace and scored from the split (the forecaster keeps its history). Nothing after the
 * split is read before the search has ended.
 */
import { lookaheadMemo } from '../backtest/policies/lookahead.ts';
import { runBacktest } from '../backtest/run.ts';
import type { ScenarioOptions } from '../backtest/scenario.ts';
import type { Trace } from '../backtest/trace.ts';
import type { PolicySummary } from '../backtest/types.ts';
import type { TargetPolicy } from '../policy/schema.ts';
import { candidateTarget } from './candidate.ts';
import { evaluate, type Figures } from './evaluate.ts';
import { type Knob, knobsFor, readKnob } from './knobs.ts';
import { GOAL_MARGIN, type Goal, paretoFront } from './objective.ts';
import { candidatePool } from './pool.ts';
import { type Candidate, type SearchResult, type Settings, search } from './search.ts';

export interface TuneInput {
  trace: Trace;
  /** The starting target as written in the policy file (raw) and as parsed (defaults filled). */
  raw: Record<string, unknown>;
  target: TargetPolicy;
  options: ScenarioOptions;
  /** Share of the trace the search may see, from its start (0.67: two thirds). */
  trainFraction: number;
  /** Violation minutes / minutes to aim at; undefined: target tracking's on the training part, less a margin. */
  targetViolation?: number;
  maxCandidates: number;
  expired: () => boolean;
  workers: number;
  seed?: number;
  onBatch?: (tried: number, best: Candidate, goal: Goal) => void;
}

export interface HeldOut {
  /** First minute scored; the trace's length. */
  from: number;
  minutes: number;
  tuned: PolicySummary;
  start: PolicySummary;
  baseline: PolicySummary;
}

export interface TuneResult extends SearchResult {
  split: number;
  knobs: Knob[];
  goal: Goal;
  baselineTrain: Figures;
  front: Candidate[];
  tuned: TargetPolicy;
  heldOut: HeldOut;
}

export class TuneInputError extends Error {
  override name = 'TuneInputError';
}

/** Minutes of training the search needs at least: a day for a forecast, and a day to judge. */
export const MIN_TRAINING_MINUTES = 2 * 1440;

function goalFor(input: TuneInput, baseline: Figures): Goal {
  if (input.targetViolation !== undefined) {
    return {
      violationRatio: input.targetViolation,
      source: `--target-violation ${(100 * input.targetViolation).toFixed(2)} %`,
    };
  }
  return {
    violationRatio: baseline.violationRatio * (1 - GOAL_MARGIN),
    perFold: baseline.folds.map((f) => f.violationRatio * (1 - GOAL_MARGIN)),
    source: `target tracking's own violation minutes on the training part less ${100 * GOAL_MARGIN} %, in each of its ${baseline.folds.length} folds (${baseline.folds.map((f) => `${(100 * f.violationRatio * (1 - GOAL_MARGIN)).toFixed(2)} %`).join(', ')})`,
  };
}

function heldOut(input: TuneInput, tuned: TargetPolicy, split: number): HeldOut {
  const fits = lookaheadMemo();
  const base = { trace: input.trace, options: input.options, scoreFrom: split, fits };
  const summary = (target: TargetPolicy, name: 'governor' | 'aws-target-tracking') =>
    runBacktest({ ...base, target, only: [name] }).policies[0]!.summary;
  return {
    from: split,
    minutes: input.trace.requests.length,
    tuned: summary(tuned, 'governor'),
    start: summary(input.target, 'governor'),
    baseline: summary(input.target, 'aws-target-tracking'),
  };
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
  const goal = goalFor(input, baselineTrain);
  const knobs = knobsFor(input.target);
  const start = new Map(knobs.map((k) => [k.name, readKnob(input.target, k)!])) as Settings;
  const pool = candidatePool(
    { trace: training, options: input.options, raw: input.raw, knobs },
    input.workers,
  );
  let found: SearchResult;
  try {
    found = await search({
      knobs,
      start,
      goal,
      seed: input.seed ?? 1,
      maxCandidates: input.maxCandidates,
      batchSize: Math.max(2, input.workers) * 4,
      evaluate: (batch) => pool.evaluate(batch),
      expired: input.expired,
      onBatch: (tried, best) => input.onBatch?.(tried, best, goal),
    });
  } finally {
    await pool.close();
  }
  const tuned = candidateTarget(input.raw, found.best.settings, knobs)!;
  return {
    ...found,
    split,
    knobs,
    goal,
    baselineTrain,
    front: paretoFront(found.tried),
    tuned,
    heldOut: heldOut(input, tuned, split),
  };
}
