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
 * whatever the number of worker threads, and their results are judged in order, so the same seed
 * and budget give the same candidates, the same best and the same file on one thread or eight.
 * A safety deadline may still be given: when it passes, the search throws (nothing is written).
 *
 * Batches overlap (`speculate`, the default), so the worker threads do not wait at the end of
 * each one for the slowest candidate: the random batches depend on no result and are all sent
 * at once, and in the two other phases the next batch is sent before this one is judged, built
 * as the search would build it if this one does not improve the best (most do not). When it
 * does, the next batch is withdrawn (its settings given back to the budget, what is still queued
 * dropped) and built again from the new best, with the same random draws. So the candidates,
 * their order and the result are those of the batch-by-batch search (tests/tune/search.test.ts
 * compares both ways); only work is wasted, one batch per improvement.
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
  /**
   * The starting policy's figures when they are known already (tune's run of the target as
   * written on the same folds, whose stop bound it never crosses): the start is then not run again.
   */
  startFigures?: Figures;
  goal: Goal;
  seed: number;
  maxCandidates: number;
  /** Candidates per batch: fixed, never derived from the worker count (it shapes the search). */
  batchSize: number;
  /**
   * Evaluates a batch on the training part; null for a setting the policy rules refuse. When
   * `signal` aborts, the batch's results are no longer wanted (a withdrawn batch): what has not
   * started may be dropped, and the promise may resolve with anything. `best` is the best
   * candidate's figures when the batch is sent (none for the starting policy): the best can only
   * improve before the batch is judged, so a candidate that cannot beat it may be stopped early.
   */
  evaluate: (batch: readonly Settings[], signal?: AbortSignal, best?: Figures) => Promise<(Figures | null)[]>;
  /** Send the next batch before this one is judged (default true); false: one batch at a time. */
  speculate?: boolean;
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

/** A batch taken from the budget and sent: withdrawn, it gives back what it took. */
interface Flight {
  room: Settings[];
  /** Keys this batch added to the seen set. */
  added: string[];
  spentBefore: number;
  figures: Promise<(Figures | null)[]> | null;
  abort: AbortController;
}

export async function search(input: SearchInput): Promise<SearchResult> {
  const { knobs, goal } = input;
  const speculate = input.speculate ?? true;
  const random = mulberry32(input.seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const seen = new Set<string>();
  const tried: Candidate[] = [];
  let refused = 0;
  let spent = 0;
  let best: Candidate | undefined;
  let stoppedBy: SearchResult['stoppedBy'] = 'converged';

  const checkDeadline = () => {
    if (input.expired?.()) {
      throw new SearchDeadlineError(
        `the search passed its safety deadline after ${spent} of ${input.maxCandidates} candidates; a search cut short would give another policy, so none is written: ask for fewer candidates or allow more time`,
      );
    }
  };
  const out = () => {
    checkDeadline();
    if (spent < input.maxCandidates) return false;
    stoppedBy = 'candidates';
    return true;
  };

  /** Takes the batch's new settings from the budget and sends them: depends on no result. */
  const send = (batch: Settings[], known?: (Figures | null)[]): Flight => {
    const added: string[] = [];
    const fresh = batch.filter((s) => {
      const key = settingsKey(s, knobs);
      if (seen.has(key)) return false;
      seen.add(key);
      added.push(key);
      return true;
    });
    const room = fresh.slice(0, Math.max(0, input.maxCandidates - spent));
    const spentBefore = spent;
    spent += room.length;
    const abort = new AbortController();
    const figures =
      room.length === 0
        ? null
        : known
          ? Promise.resolve(known)
          : input.evaluate(room, abort.signal, best?.figures);
    // A batch sent ahead may fail before it is judged: handled here, so the failure waits for
    // judge() (which throws it) instead of ending the process as an unhandled rejection.
    figures?.catch(() => {});
    return { room, added, spentBefore, figures, abort };
  };
  /** Gives a batch sent ahead back: as if it had never been built. */
  const withdraw = (f: Flight) => {
    for (const key of f.added) seen.delete(key);
    spent = f.spentBefore;
    f.abort.abort();
  };
  /** Judges a batch's results in order; returns whether the best improved. */
  const judge = async (f: Flight): Promise<boolean> => {
    if (!f.figures) return false;
    const figures = await f.figures;
    checkDeadline();
    let improved = false;
    f.room.forEach((settings, i) => {
      const fig = figures[i];
      if (!fig) {
        refused++;
        return;
      }
      const c = { settings, figures: fig };
      tried.push(c);
      if (!best || compare(fig, best.figures, goal) < 0) {
        best = c;
        improved = true;
      }
    });
    input.onBatch?.(spent, best!);
    return improved;
  };

  await judge(send([input.start], input.startFigures && [input.startFigures]));
  if (!best) throw new Error('the starting policy is refused by the policy rules');
  const start = best;

  // 1. Random settings: no batch depends on a result, so all are sent before any is judged.
  const randomPhase = Math.min(150, Math.floor(input.maxCandidates / 3));
  const sent: Flight[] = [];
  while (spent < randomPhase && !out()) {
    const batch = Array.from(
      { length: input.batchSize },
      () => new Map(knobs.map((k) => [k.name, pick(k.values)])) as Settings,
    );
    const before = spent;
    const f = send(batch);
    if (speculate) sent.push(f);
    else await judge(f);
    if (spent === before) break; // a small grid, already tried through
  }
  for (const f of sent) await judge(f);

  // 2. Coordinate descent: knob i + 1's batch goes out with knob i's, from the same best.
  const knobBatch = (knob: Knob) => {
    const from = best!.settings;
    return knob.values
      .filter((v) => v !== from.get(knob.name))
      .map((v) => new Map(from).set(knob.name, v) as Settings);
  };
  let improved = true;
  while (improved && !out()) {
    improved = false;
    let ahead: Flight | null = null;
    for (let i = 0; i < knobs.length; i++) {
      // A batch sent ahead passed this check when it was sent (spent now counts it).
      if (!ahead && out()) break;
      const f = ahead ?? send(knobBatch(knobs[i]!));
      ahead = speculate && i + 1 < knobs.length && !out() ? send(knobBatch(knobs[i + 1]!)) : null;
      if (await judge(f)) {
        improved = true;
        if (ahead) withdraw(ahead);
        ahead = null;
      }
    }
  }

  // 3. Random changes of two or three knobs around the best: the draws depend on no result, so
  // a batch sent ahead and withdrawn is built again from the new best with the same draws.
  const draw = () =>
    Array.from({ length: input.batchSize }, () => {
      const changes = 2 + Math.floor(random() * 2);
      return Array.from({ length: changes }, () => {
        const knob = pick(knobs);
        return [knob.name, pick(knob.values)] as const;
      });
    });
  const around = (draws: ReturnType<typeof draw>) =>
    draws.map((changes) => {
      const next = new Map(best!.settings);
      for (const [name, value] of changes) next.set(name, value);
      return next as Settings;
    });
  let ahead: { flight: Flight; draws: ReturnType<typeof draw> } | null = null;
  while (ahead || !out()) {
    let current = ahead;
    if (!current) {
      const draws = draw();
      current = { flight: send(around(draws)), draws };
    }
    ahead = null;
    // Everything nearby has been tried: the batch took nothing from the budget.
    if (current.flight.room.length === 0) break;
    if (speculate && !out()) {
      const draws = draw();
      ahead = { flight: send(around(draws)), draws };
    }
    if ((await judge(current.flight)) && ahead) {
      withdraw(ahead.flight);
      ahead = { flight: send(around(ahead.draws)), draws: ahead.draws };
    }
  }
  return { best: best!, start, tried, refused, stoppedBy };
}
