/** The training part's folds: each candidate's figures are also given per fold (./evaluate.ts). */

/** Folds of the training part the figures are also given for. */
export const FOLDS = 3;

export interface Fold {
  costVsOracle: number;
  /** Minutes in violation / minutes of the fold (1 - attainment of minutes); a fold longer than the window: its worst window's. */
  violationRatio: number;
  /** Requests in violating minutes / requests of the fold (1 - attainment of requests); likewise. */
  requestsViolationRatio: number;
}

/** The folds' [from, to) minutes over a training part of n minutes. */
export const foldBounds = (n: number): [number, number][] =>
  Array.from({ length: FOLDS }, (_, f) => [Math.floor((f * n) / FOLDS), Math.floor(((f + 1) * n) / FOLDS)]);
