/**
 * A candidate stopped once it can no longer qualify (shared/tune/early-stop.ts): the rule's own
 * arithmetic, then real candidates run both ways (a run is stopped exactly when its whole run
 * would be refused, and a run not stopped has the whole run's figures), then tune itself: the
 * same search and the same tuned policy with and without stopping.
 */
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '#shared/backtest/noise.ts';
import { lookaheadMemo } from '#shared/backtest/policies/lookahead.ts';
import { referenceScenario } from '#shared/backtest/scenario.ts';
import { candidateTarget } from '#shared/tune/candidate.ts';
import { foldStop, type StopBound } from '#shared/tune/early-stop.ts';
import { evaluate } from '#shared/tune/evaluate.ts';
import { foldBounds } from '#shared/tune/folds.ts';
import { knobsFor } from '#shared/tune/knobs.ts';
import { feasible, goalOf, stopBoundOf, worstSaving } from '#shared/tune/objective.ts';
import type { Settings } from '#shared/tune/search.ts';
import { dailyHistory, exampleTarget, tuneExample } from './fixtures.ts';

const fold = (costVsOracle: number, violationRatio = 0, requestsViolationRatio = 0) => ({
  costVsOracle,
  violationRatio,
  requestsViolationRatio,
});

describe('the stop rule', () => {
  // 300 minutes: folds of 100, the oracle 2 instances a minute (200 a fold), 10 requests a minute.
  const oracle = new Array(300).fill(2);
  const demand = new Array(300).fill(10);
  const bound: StopBound = {
    maxViolationRatio: 0.02,
    maxRequestsViolationRatio: 0.05,
    reference: [fold(1.5, 0.03), fold(1.5), fold(1.5)],
  };

  it('stops in the minute a fold costs more than the starting policy over the whole fold, not before', () => {
    const { rule, stopped } = foldStop(bound, oracle, demand, 43_200);
    // 3 instances a minute: 300 by minute 99 is 1.5x, not more; the fold ends there, nothing stops.
    for (let m = 0; m < 100; m++) expect(rule(m, 3, false)).toBe(false);
    // Fold 2 at 4 a minute: 304 passes 1.5 x 200 in its 76th minute (minute 175).
    let at = -1;
    for (let m = 100; m < 200 && at < 0; m++) if (rule(m, 4, false)) at = m;
    expect(at).toBe(175);
    expect(stopped()).toEqual({ fold: 1, minute: 175, why: 'dearer' });
  });

  it('stops on bad minutes past the allowance, or the starting policy\u2019s share when that is larger', () => {
    // Fold 1 allows max(2 %, 3 %) = 3 bad minutes of 100: the 4th stops it.
    const first = foldStop(bound, oracle, demand, 43_200);
    const bad = [5, 20, 40, 60];
    const stop = bad.findIndex((m) => {
      for (let k = m === 5 ? 0 : bad[bad.indexOf(m) - 1]! + 1; k < m; k++) first.rule(k, 2, false);
      return first.rule(m, 2, true);
    });
    expect(stop).toBe(3);
    // requests: 4 bad minutes x 10 requests = 40 of 1,000 is under 5 %; minutes went first.
    expect(first.stopped()).toEqual({ fold: 0, minute: 60, why: 'minutes' });
    // Fold 2 allows 2 %: the 3rd bad minute stops it.
    const second = foldStop(bound, oracle, demand, 43_200);
    for (let m = 0; m < 100; m++) second.rule(m, 2, false);
    expect([second.rule(100, 2, true), second.rule(101, 2, true), second.rule(102, 2, true)]).toEqual([
      false,
      false,
      true,
    ]);
    expect(second.stopped()?.why).toBe('minutes');
  });

  it('stops on requests in bad minutes when they pass their allowance first', () => {
    const heavy = demand.map((r, m) => (m === 120 ? 60 : r));
    const { rule, stopped } = foldStop(bound, oracle, heavy, 43_200);
    for (let m = 0; m < 120; m++) rule(m, 2, false);
    // 60 of fold 2's 1,050 requests is 5.7 %, over 5 %, in its first bad minute.
    expect(rule(120, 2, true)).toBe(true);
    expect(stopped()).toEqual({ fold: 1, minute: 120, why: 'requests' });
  });

  it('stops in the minute a fold saves less against the starting policy than the best candidate saves in its worst fold', () => {
    // The best so far saves 25 % in its worst fold: here at most 1.125 x 200 = 225 instance-minutes a fold.
    const { rule, stopped } = foldStop({ ...bound, bestSaving: 0.25 }, oracle, demand, 43_200);
    // 225 by minute 99 saves exactly 25 %, which ties the best: not stopped.
    for (let m = 0; m < 100; m++) expect(rule(m, m < 75 ? 2 : 3, false)).toBe(false);
    // 3 a minute in fold 2: 228 passes 225 in its 76th minute (minute 175), still under 1.5x.
    let at = -1;
    for (let m = 100; m < 200 && at < 0; m++) if (rule(m, 3, false)) at = m;
    expect(at).toBe(175);
    expect(stopped()).toEqual({ fold: 1, minute: 175, why: 'saves-less' });
    // A minute that goes past the starting policy's cost as well is 'dearer', as without a best.
    const dearer = foldStop({ ...bound, bestSaving: 0.25 }, oracle, demand, 43_200);
    expect(dearer.rule(0, 301, false)).toBe(true);
    expect(dearer.stopped()).toEqual({ fold: 0, minute: 0, why: 'dearer' });
  });

  it('in a fold longer than the window (judged by its worst window) stops on cost only', () => {
    const { rule, stopped } = foldStop(bound, oracle, demand, 60);
    for (let m = 0; m < 100; m++) expect(rule(m, 2, true)).toBe(false);
    expect(stopped()).toBeNull();
  });
});

describe('candidates run with and without stopping', async () => {
  const { target, raw } = exampleTarget();
  const trace = dailyHistory(3, 7);
  const options = referenceScenario(target);
  const fits = lookaheadMemo();
  const start = evaluate(trace, target, options, fits);
  const goal = goalOf({ minutes: 0.995 }, 0.5, start.folds);
  const bound = stopBoundOf(goal)!;
  const knobs = knobsFor(target);
  const random = mulberry32(11);
  const candidates = Array.from({ length: 16 }, () => {
    const settings = new Map(
      knobs.map((k) => [k.name, k.values[Math.floor(random() * k.values.length)]!]),
    ) as Settings;
    return candidateTarget(raw, settings, knobs);
  }).filter((t) => t !== null);

  it('a run is stopped exactly when its whole run would be refused, and otherwise has the whole run\u2019s figures', () => {
    expect(candidates.length).toBeGreaterThan(8);
    let stops = 0;
    for (const candidate of candidates) {
      const whole = evaluate(trace, candidate, options, fits);
      const early = evaluate(trace, candidate, options, fits, 'governor', bound);
      expect(Boolean(early.stopped)).toBe(!feasible(whole, goal));
      if (early.stopped) {
        stops++;
        expect(feasible(early, goal)).toBe(false);
        // It stopped inside the fold it names, and the figures it kept are the whole run's there.
        const [from, to] = foldBounds(trace.requests.length)[early.stopped.fold]!;
        expect(early.stopped.minute).toBeGreaterThanOrEqual(from);
        expect(early.stopped.minute).toBeLessThan(to);
        expect(early.folds.slice(0, early.stopped.fold)).toEqual(whole.folds.slice(0, early.stopped.fold));
      } else expect(early).toEqual(whole);
    }
    // The random settings include some that qualify and some that do not.
    expect(stops).toBeGreaterThan(0);
    expect(stops).toBeLessThan(candidates.length + 1);
    // The starting policy never stops against itself.
    expect(evaluate(trace, target, options, fits, 'governor', bound)).toEqual(start);
  });

  it('against a best candidate, a run is stopped exactly when its whole run would be refused or save less than the best', () => {
    // Against a starting policy a third dearer than this one, so that several candidates qualify.
    const generous = goalOf(
      { minutes: 0.995 },
      0.5,
      start.folds.map((f) => ({ ...f, costVsOracle: 1.3 * f.costVsOracle })),
    );
    const reference = generous.reference!;
    const wholes = candidates.map((c) => evaluate(trace, c, options, fits));
    const savings = wholes.filter((w) => feasible(w, generous)).map((w) => worstSaving(w, reference));
    expect(savings.length).toBeGreaterThan(1);
    // The median saving of those that qualify: some save more, some less.
    const bestSaving = savings.sort((a, b) => a - b)[Math.floor(savings.length / 2)]!;
    let savesLess = 0;
    candidates.forEach((candidate, i) => {
      const whole = wholes[i]!;
      const early = evaluate(trace, candidate, options, fits, 'governor', {
        ...stopBoundOf(generous)!,
        bestSaving,
      });
      const beaten = feasible(whole, generous) && worstSaving(whole, reference) < bestSaving;
      expect(Boolean(early.stopped)).toBe(!feasible(whole, generous) || beaten);
      if (early.stopped?.why === 'saves-less') {
        savesLess++;
        expect(worstSaving(whole, reference)).toBeLessThan(bestSaving);
      }
      if (!early.stopped) expect(early).toEqual(whole);
    });
    expect(savesLess).toBeGreaterThan(0);
  });
});

describe('tune with and without stopping', async () => {
  const run = (fullFront: boolean) => tuneExample(dailyHistory(4, 3), { fullFront });
  const [early, full] = [await run(false), await run(true)];

  it('tries the same candidates and tunes the same policy', () => {
    expect(early.tried.map((c) => [...c.settings])).toEqual(full.tried.map((c) => [...c.settings]));
    expect([...early.best.settings]).toEqual([...full.best.settings]);
    expect(early.best.figures).toEqual(full.best.figures);
    expect(early.heldOut).toEqual(full.heldOut);
    expect(full.tried.some((c) => c.figures.stopped)).toBe(false);
  });

  it('leaves the stopped candidates out of the Pareto front, and stops only those the full run refuses or ranks below the best', () => {
    const stopped = early.tried.filter((c) => c.figures.stopped);
    expect(stopped.length).toBeGreaterThan(0);
    for (const c of early.front) expect(c.figures.stopped).toBeUndefined();
    const goal = full.goal;
    const bestSaving = worstSaving(full.best.figures, goal.reference!);
    early.tried.forEach((c, i) => {
      const whole = full.tried[i]!.figures;
      // Every candidate the full run refuses is stopped; one it accepts only if it saves less than the best.
      if (!feasible(whole, goal)) expect(c.figures.stopped).toBeDefined();
      else if (c.figures.stopped) expect(worstSaving(whole, goal.reference!)).toBeLessThan(bestSaving);
      else expect(c.figures).toEqual(whole);
    });
  });
});
