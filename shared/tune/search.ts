/**
 * The search: deterministic for a seed and a candidate budget, so the same history always gives
 * the same policy (and a test can prove the held-out part never moves it). Three phases, each in
 * batches that the worker threads share:
 *   1. the starting policy, then random settings across the whole grid (a third of the budget,
 *      at most 150): the grid has millions of points, a local search alone gets stuck;
 *   2. coordinate descent from the best so far: every value of one knob at a time, keeping the
 *      best, until a pass over every knob improves nothing;
 *   3. with budget left, random changes of two or three knobs around the best.
 * Only the candidate budget (or convergence) stops it, never the clock: a search cut short by a
 * deadline would write a different policy on a busier machine. The batches are the same size
 * whatever the number of worker threads, and their results come back in order, so the same seed
 * and budget give the same candidates, the same best and the same file on one thread or eight.
 * A safety deadline may still be given: when it passes, the search throws (nothing is written).
 */
import { mulberry32 } from '../backtest/noise.ts';
import type { Figures } from './evaluate.ts';
import type { Knob, KnobValue } from './knobs.ts';
import { compare, type Goal } from './objective.ts';

export type Settings = ReadonlyMap<string, KnobValue>;

export interface Candidate {
  settings: Settings;
  figures: Figures;
}

export interface SearchInput {
  knobs: readonly Knob[];
  /** The starting policy's value of every knob. */
  start: Settings;
  goal: Goal;
  seed: number;
  maxCandidates: number;
  /** Candidates per batch: fixed, never derived from the worker count (it shapes the search). */
  batchSize: number;
  /** Evaluates a batch on the training part; null for a setting the policy rules refuse. */
  evaluate: (batch: readonly Settings[]) => Promise<(Figures | null)[]>;
  /** A safety: true once the run has taken far longer than it should; the search then throws. */
  expired?: () => boolean;
  onBatch?: (tried: number, best: Candidate) => void;
}

export interface SearchResult {
  best: Candidate;
  start: Candidate;
  /** Every candidate tried that the rules accepted, in order. */
  tried: Candidate[];
  /** Settings the policy rules refused (not counted against the budget's usefulness, only its size). */
  refused: number;
  stoppedBy: 'converged' | 'candidates';
}

/** The safety deadline passed: the search is abandoned rather than cut short into another result. */
export class SearchDeadlineError extends Error {
  override name = 'SearchDeadlineError';
}

export const settingsKey = (s: Settings, knobs: readonly Knob[]): string =>
  knobs.map((k) => String(s.get(k.name))).join('|');

export async function search(input: SearchInput): Promise<SearchResult> {
  const { knobs, goal } = input;
  const random = mulberry32(input.seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const seen = new Set<string>();
  const tried: Candidate[] = [];
  let refused = 0;
  let spent = 0;
  let best: Candidate | undefined;
  let stoppedBy: SearchResult['stoppedBy'] = 'converged';

  const out = () => {
    if (input.expired?.()) {
      throw new SearchDeadlineError(
        `the search passed its safety deadline after ${spent} of ${input.maxCandidates} candidates; a search cut short would give another policy, so none is written: ask for fewer candidates or allow more time`,
      );
    }
    if (spent < input.maxCandidates) return false;
    stoppedBy = 'candidates';
    return true;
  };

  /** Evaluates the new settings of a batch; returns whether the best improved. */
  const run = async (batch: Settings[]): Promise<boolean> => {
    const fresh = batch.filter((s) => {
      const key = settingsKey(s, knobs);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    const room = fresh.slice(0, Math.max(0, input.maxCandidates - spent));
    if (room.length === 0) return false;
    spent += room.length;
    const figures = await input.evaluate(room);
    let improved = false;
    room.forEach((settings, i) => {
      const f = figures[i];
      if (!f) {
        refused++;
        return;
      }
      const c = { settings, figures: f };
      tried.push(c);
      if (!best || compare(f, best.figures, goal) < 0) {
        best = c;
        improved = true;
      }
    });
    input.onBatch?.(spent, best!);
    return improved;
  };

  await run([input.start]);
  if (!best) throw new Error('the starting policy is refused by the policy rules');
  const start = best;

  const randomPhase = Math.min(150, Math.floor(input.maxCandidates / 3));
  while (spent < randomPhase && !out()) {
    const batch = Array.from(
      { length: input.batchSize },
      () => new Map(knobs.map((k) => [k.name, pick(k.values)])) as Settings,
    );
    const before = spent;
    await run(batch);
    if (spent === before) break; // a small grid, already tried through
  }

  let improved = true;
  while (improved && !out()) {
    improved = false;
    for (const knob of knobs) {
      if (out()) break;
      const from = best!.settings;
      const batch = knob.values
        .filter((v) => v !== from.get(knob.name))
        .map((v) => new Map(from).set(knob.name, v) as Settings);
      if (await run(batch)) improved = true;
    }
  }

  while (!out()) {
    const batch = Array.from({ length: input.batchSize }, () => {
      const next = new Map(best!.settings);
      const changes = 2 + Math.floor(random() * 2);
      for (let i = 0; i < changes; i++) {
        const knob = pick(knobs);
        next.set(knob.name, pick(knob.values));
      }
      return next as Settings;
    });
    const before = spent;
    await run(batch);
    if (spent === before) break; // everything nearby has been tried
  }
  return { best: best!, start, tried, refused, stoppedBy };
}
