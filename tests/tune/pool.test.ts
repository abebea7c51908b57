/**
 * The candidate pool's worker threads (shared/tune/pool.ts): a batch the search withdraws gives
 * back what no worker has started (null, never run), while what was sent before it runs as usual;
 * the starting policy's run on the other idle workers (to fill their memos) answers no request;
 * the forecasts the threads share before the first run are those each would compute; the
 * held-out runs in the workers give what a fresh run of the whole trace gives.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { prefetched, seedMemo } from '#shared/backtest/forecast-thread/forecast-plan.ts';
import { DeliveredWindow } from '#shared/backtest/policies/delivered-window.ts';
import { lookaheadMemo } from '#shared/backtest/policies/lookahead.ts';
import { governorForecastPlan, runBacktest } from '#shared/backtest/run.ts';
import { referenceScenario } from '#shared/backtest/scenario.ts';
import { sloOf } from '#shared/slo/objective.ts';
import { candidateTarget } from '#shared/tune/candidate.ts';
import { knobsFor, startValue } from '#shared/tune/knobs.ts';
import { goalOf, stopBoundOf } from '#shared/tune/objective.ts';
import { type CandidatePool, candidatePool } from '#shared/tune/pool.ts';
import type { Settings } from '#shared/tune/search.ts';
import { dailyHistory, exampleTarget } from './fixtures.ts';

const { target, raw } = exampleTarget();
const knobs = knobsFor(target);
const start = new Map(knobs.map((k) => [k.name, startValue(target, k)!])) as Settings;
/** Settings one knob away from the start, each different. */
const near = (n: number): Settings[] =>
  knobs
    .flatMap((k) => k.values.filter((v) => v !== start.get(k.name)).map((v) => new Map(start).set(k.name, v)))
    .slice(0, n) as Settings[];

const pools: CandidatePool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

describe('the candidate pool', () => {
  it('drops the queued candidates of a withdrawn batch and runs the batch before it', async () => {
    const pool = candidatePool({ trace: dailyHistory(3), options: referenceScenario(target), raw, knobs }, 1);
    pools.push(pool);
    const reference = await pool.evaluateTarget(target);
    expect(reference.folds).toHaveLength(3);
    const [first, ...rest] = near(7);
    const kept = pool.evaluate([first!]);
    const abort = new AbortController();
    const withdrawn = pool.evaluate(rest, undefined, abort.signal);
    abort.abort();
    // One worker, busy with `first`: nothing of the withdrawn batch has started.
    expect(await withdrawn).toEqual(rest.map(() => null));
    const [figures] = await kept;
    expect(figures?.folds).toHaveLength(3);
    // The pool goes on: a batch after the withdrawn one runs.
    const after = await pool.evaluate(rest.slice(0, 2));
    expect(after.map((f) => f?.folds.length)).toEqual([3, 3]);
  });

  it('runs the starting policy on every idle worker and answers only the request for it', async () => {
    const pool = candidatePool({ trace: dailyHistory(3), options: referenceScenario(target), raw, knobs }, 2);
    pools.push(pool);
    const reference = await pool.evaluateTarget(target);
    const batch = near(4);
    const figures = await pool.evaluate(batch);
    expect(figures.every((f) => f?.folds.length === 3)).toBe(true);
    // Each candidate's own figures, whichever worker ran it: a warm-up's reply answered nothing.
    const alone = candidatePool(
      { trace: dailyHistory(3), options: referenceScenario(target), raw, knobs },
      0,
    );
    expect(await alone.evaluate(batch)).toEqual(figures);
    expect(await alone.evaluateTarget(target)).toEqual(reference);
  });

  it("shares the starting policy's planned forecasts: a memo seeded with another thread's answers with them, equal to its own", () => {
    const trace = dailyHistory(3, 7);
    const options = referenceScenario(target);
    const { plan, requests } = governorForecastPlan(trace, target, options);
    expect(plan.length).toBeGreaterThan(5);
    const half = plan.filter((_, k) => k % 2 === 1);
    const fitted = prefetched({ plan: half, requests });
    const seeded = lookaheadMemo();
    seedMemo(seeded, fitted);
    const own = lookaheadMemo();
    for (const [i, { from, to, options: o }] of half.entries()) {
      const window = new DeliveredWindow(requests, from, to);
      // The seeded object itself (not computed again), and what this thread would have computed.
      expect(seeded.forecast(window, o)).toBe(fitted[i]!.result);
      expect(seeded.forecast(window, o)).toEqual(own.forecast(window, o));
    }
  });

  it('runs the held-out part in its workers, with their memos, as a fresh run of the whole trace gives it', async () => {
    const whole = dailyHistory(4, 5);
    const split = 3 * 1440 + 360;
    const training = { ...whole, requests: whole.requests.slice(0, split) };
    const options = referenceScenario(target);
    const pool = candidatePool({ trace: training, options, raw, knobs }, 2);
    pools.push(pool);
    // The memos hold the training part's forecasts and noise fits, as after a search.
    await pool.evaluateTarget(target);
    await pool.evaluate(near(4));
    const tuned = candidateTarget(raw, near(1)[0]!, knobs)!;
    const runs = [
      { target: tuned, run: { trace: whole, scoreFrom: split, policy: 'governor' as const } },
      { target, run: { trace: whole, scoreFrom: split, policy: 'governor' as const } },
      { target, run: { trace: whole, scoreFrom: split, policy: 'aws-target-tracking' as const } },
    ];
    const fresh = runs.map(
      ({ target: t, run }) =>
        runBacktest({
          trace: whole,
          target: t,
          options,
          scoreFrom: split,
          fits: lookaheadMemo(),
          only: [run.policy],
        }).policies[0]!.summary,
    );
    expect(await pool.heldOut(runs)).toEqual(fresh);
    // In this thread too, one memo for the candidates and the held-out runs.
    const alone = candidatePool({ trace: training, options, raw, knobs }, 0);
    await alone.evaluate(near(2));
    expect(await alone.heldOut(runs)).toEqual(fresh);
  });

  it('gives the starting settings, under their own stop bound, the figures of the target as written (tune runs it once)', async () => {
    const init = { trace: dailyHistory(4, 3), options: referenceScenario(target), raw, knobs };
    const pool = candidatePool(init, 0);
    const written = await pool.evaluateTarget(target);
    const bound = stopBoundOf(goalOf(sloOf(target), 0.5, written.folds));
    const [asCandidate] = await pool.evaluate([start], bound);
    expect(asCandidate).toEqual(written);
    expect(asCandidate?.stopped).toBeUndefined();
  });
});
