/**
 * The search on a made-up landscape (no backtest): cost falls with x and violations rise with
 * it, y only adds cost, so the cheapest setting within the goal is known in advance.
 */
import { describe, expect, it } from 'vitest';
import type { Figures } from '#shared/tune/evaluate.ts';
import type { Knob } from '#shared/tune/knobs.ts';
import { goalOf } from '#shared/tune/objective.ts';
import { SearchDeadlineError, type Settings, search } from '#shared/tune/search.ts';

const knobs: Knob[] = [
  { name: 'x', path: ['x'], values: [1, 2, 3, 4, 5, 6, 7, 8] },
  { name: 'y', path: ['y'], values: [0, 1, 2, 3] },
  { name: 'z', path: ['z'], values: ['a', 'b'] },
];
const landscape = (s: Settings): Figures => {
  const x = s.get('x') as number;
  const y = s.get('y') as number;
  const violations = x * x;
  return {
    instanceMinutes: 1000 - 50 * x + 30 * y + (s.get('z') === 'b' ? 5 : 0),
    costVsOracle: 1,
    violationMinutes: violations,
    violationRatio: violations / 1000,
    requestsViolationRatio: violations / 1000,
    scalingActions: 0,
    folds: [0, 1, 2].map(() => ({
      costVsOracle: 1,
      violationRatio: violations / 1000,
      requestsViolationRatio: violations / 1000,
    })),
  };
};
const goal = goalOf({ minutes: 0.94 }, 0.5); // 3 % a fold: x*x <= 30, x <= 5
const run = (maxCandidates: number, seed = 1, refuse = (_s: Settings) => false, batchSize = 4) => {
  const batches: number[] = [];
  return search({
    knobs,
    start: new Map<string, number | string>([
      ['x', 1],
      ['y', 3],
      ['z', 'b'],
    ]),
    goal,
    seed,
    maxCandidates,
    batchSize,
    evaluate: async (batch) => {
      batches.push(batch.length);
      return batch.map((s) => (refuse(s) ? null : landscape(s)));
    },
  }).then((r) => ({ ...r, batches }));
};

describe('search', () => {
  it('finds the cheapest setting within the goal: x 5, y 0, z a', async () => {
    const r = await run(200);
    expect(Object.fromEntries(r.best.settings)).toEqual({ x: 5, y: 0, z: 'a' });
    expect(r.start.settings.get('x')).toBe(1);
  });

  it('is the same for the same seed and budget, and never tries a setting twice', async () => {
    const a = await run(40, 7);
    const b = await run(40, 7);
    expect(a.tried.map((c) => [...c.settings])).toEqual(b.tried.map((c) => [...c.settings]));
    const keys = a.tried.map((c) => JSON.stringify([...c.settings]));
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('stops at the candidate budget and says so', async () => {
    const r = await run(10);
    expect(r.tried.length + r.refused).toBe(10);
    expect(r.stoppedBy).toBe('candidates');
  });

  it('never stops early on the clock: a safety deadline throws instead of returning another result', async () => {
    let calls = 0;
    const cut = search({
      knobs,
      start: new Map<string, number | string>([
        ['x', 1],
        ['y', 3],
        ['z', 'b'],
      ]),
      goal,
      seed: 1,
      maxCandidates: 1000,
      batchSize: 4,
      evaluate: async (batch) => batch.map(landscape),
      expired: () => ++calls > 3,
    });
    await expect(cut).rejects.toBeInstanceOf(SearchDeadlineError);
    await expect(cut).rejects.toThrow(/passed its safety deadline after \d+ of 1000 candidates/);
  });

  it('counts settings the policy rules refuse and goes on without them', async () => {
    const r = await run(200, 1, (s) => s.get('y') === 0);
    expect(r.refused).toBeGreaterThan(0);
    expect(Object.fromEntries(r.best.settings)).toEqual({ x: 5, y: 1, z: 'a' });
  });
});
