/**
 * governor tune's run on a four-day history: the held-out part is judged, never searched. The
 * test the issue asks for: poison the held-out part (wild values after the split) and see the
 * tuned policy unchanged.
 */
import { describe, expect, it } from 'vitest';
import { referenceScenario } from '#shared/backtest/scenario.ts';
import { TuneInputError, tune } from '#shared/tune/tune.ts';
import { dailyHistory, exampleTarget } from './fixtures.ts';

const { target, raw } = exampleTarget();
const history = dailyHistory(4);
const run = (trace = history, extra: Record<string, unknown> = {}) =>
  tune({
    trace,
    raw,
    target,
    options: referenceScenario(target),
    trainFraction: 0.67,
    maxCandidates: 24,
    expired: () => false,
    workers: 0,
    ...extra,
  });

describe('governor tune', async () => {
  const clean = await run();

  it('trains on the first two thirds and judges the last third', () => {
    expect(clean.split).toBe(Math.floor(0.67 * 4 * 1440));
    expect(clean.heldOut.from).toBe(clean.split);
    expect(clean.tried.length + clean.refused).toBe(24);
  });

  it('aims at target tracking\u2019s own violation minutes on the training part, less 5 %, fold by fold', () => {
    expect(clean.goal.violationRatio).toBeCloseTo(0.95 * clean.baselineTrain.violationRatio, 12);
    expect(clean.goal.perFold).toEqual(clean.baselineTrain.folds.map((f) => 0.95 * f.violationRatio));
    expect(clean.goal.source).toMatch(
      /^target tracking's own violation minutes on the training part less 5 %/,
    );
  });

  it('never does worse on the training part than the starting policy by its own measure', () => {
    expect(clean.tried).toContain(clean.start);
    expect(
      clean.best.figures.instanceMinutes <= clean.start.figures.instanceMinutes || clean.best === clean.start,
    ).toBe(true);
  });

  it('gives the same policy when the held-out part is poisoned: the search never reads it', async () => {
    const poisoned = {
      ...history,
      requests: history.requests.map((r, m) => (m >= clean.split ? r * 37 + (m % 97) * 1000 : r)),
    };
    const again = await run(poisoned);
    expect([...again.best.settings]).toEqual([...clean.best.settings]);
    expect(again.tried.map((c) => c.figures)).toEqual(clean.tried.map((c) => c.figures));
    // ...while the held-out figures, which do read it, move.
    expect(again.heldOut.baseline.violationMinutes).not.toBe(clean.heldOut.baseline.violationMinutes);
  });

  it('aims at the operator\u2019s goal when given one', async () => {
    const strict = await run(history, { targetViolation: 0.001, maxCandidates: 6 });
    expect(strict.goal).toMatchObject({ violationRatio: 0.001, source: '--target-violation 0.10 %' });
    expect(strict.goal.perFold).toBeUndefined();
  });

  it('refuses a history too short to train on (two days) with the fix', async () => {
    await expect(run(dailyHistory(2))).rejects.toBeInstanceOf(TuneInputError);
    await expect(run(dailyHistory(2))).rejects.toThrow(
      /tune needs at least 2880 minutes \(2 days\) to train/,
    );
  });
});
