/**
 * The search on a made-up landscape (no backtest): cost falls with x and violations rise with
 * it, y only adds cost, so the cheapest setting within the goal is known in advance.
 */
import { describe, expect, it } from 'vitest';
import type { Figures } from '#shared/tune/evaluate.ts';
import type { Knob } from '#shared/tune/knobs.ts';
import { goalOf } from '#shared/tune/objective.ts';
import { SearchDeadlineError, type SearchInput, type Settings, search } from '#shared/tune/search.ts';

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
/** The starting settings of the landscape's searches. */
const START = () =>
  new Map<string, number | string>([
    ['x', 1],
    ['y', 3],
    ['z', 'b'],
  ]);
const goal = goalOf({ minutes: 0.94 }, 0.5); // 3 % a fold: x*x <= 30, x <= 5

/** A search of the landscape from START with the test's evaluation (batches of 4, 1,000 candidates). */
const searchLandscape = (evaluate: SearchInput['evaluate'], more: Partial<SearchInput> = {}) =>
  search({ knobs, start: START(), goal, seed: 1, maxCandidates: 1000, batchSize: 4, evaluate, ...more });
const run = (maxCandidates: number, seed = 1, refuse = (_s: Settings) => false, batchSize = 4) => {
  const batches: number[] = [];
  return search({
    knobs,
    start: START(),
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
    const cut = searchLandscape(async (batch) => batch.map(landscape), { expired: () => ++calls > 3 });
    await expect(cut).rejects.toBeInstanceOf(SearchDeadlineError);
    await expect(cut).rejects.toThrow(/passed its safety deadline after \d+ of 1000 candidates/);
  });

  it('counts settings the policy rules refuse and goes on without them', async () => {
    const r = await run(200, 1, (s) => s.get('y') === 0);
    expect(r.refused).toBeGreaterThan(0);
    expect(Object.fromEntries(r.best.settings)).toEqual({ x: 5, y: 1, z: 'a' });
  });

  it('tries the same candidates in the same order whether batches overlap or go one at a time', async () => {
    // Four knobs that each improve the best one at a time (so the batch sent ahead with each is
    // withdrawn), and a diagonal valley (cost falls along a = b) that one knob at a time cannot
    // follow, so the random changes around the best go on improving it.
    const valley: Knob[] = [
      ...['k1', 'k2', 'k3', 'k4'].map((name) => ({ name, path: [name], values: [0, 1, 2, 3, 4, 5, 6, 7] })),
      { name: 'a', path: ['a'], values: [0, 1, 2, 3, 4, 5] },
      { name: 'b', path: ['b'], values: [0, 1, 2, 3, 4, 5] },
    ];
    const figuresOf = (s: Settings): Figures | null => {
      const v = (k: string) => s.get(k) as number;
      if (v('k1') + v('k2') === 13) return null; // refused by the policy rules
      const cost =
        ['k1', 'k2', 'k3', 'k4'].reduce((sum, k, i) => sum + (v(k) - 2 * i + 1) ** 2, 0) +
        10 * (v('a') - v('b')) ** 2 -
        v('a') -
        v('b');
      return {
        ...landscape(
          new Map([
            ['x', 1],
            ['y', 0],
          ]),
        ),
        instanceMinutes: 100 + cost,
      };
    };
    // Evaluations that finish out of order, as worker threads do.
    const delayed = (speculate: boolean, seed: number, max: number) => {
      const sent: AbortSignal[] = [];
      let tick = seed;
      return search({
        knobs: valley,
        start: new Map([
          ['k1', 7],
          ['k2', 0],
          ['k3', 0],
          ['k4', 0],
          ['a', 0],
          ['b', 5],
        ]),
        goal,
        seed,
        maxCandidates: max,
        batchSize: 3,
        speculate,
        evaluate: (batch, signal) => {
          if (signal) sent.push(signal);
          return Promise.all(
            batch.map(
              (s) =>
                new Promise<Figures | null>((resolve) => {
                  tick = (tick * 7 + 3) % 11;
                  setTimeout(() => resolve(figuresOf(s)), tick);
                }),
            ),
          );
        },
      }).then((r) => {
        return { ...r, withdrawn: sent.filter((x) => x.aborted).length };
      });
    };
    let withdrawn = 0;
    // Budgets that end in each phase: the random one, the one knob at a time, the changes around the best.
    for (const [seed, max] of [
      [1, 12],
      [2, 30],
      [3, 41],
      [4, 57],
      [5, 90],
      [6, 160],
      [7, 300],
    ] as const) {
      const one = await delayed(false, seed, max);
      const overlapped = await delayed(true, seed, max);
      expect(overlapped.tried.map((c) => [...c.settings])).toEqual(one.tried.map((c) => [...c.settings]));
      expect(overlapped.tried.map((c) => c.figures)).toEqual(one.tried.map((c) => c.figures));
      expect([...overlapped.best.settings]).toEqual([...one.best.settings]);
      expect([overlapped.refused, overlapped.stoppedBy]).toEqual([one.refused, one.stoppedBy]);
      expect(one.withdrawn).toBe(0);
      withdrawn += overlapped.withdrawn;
    }
    // Batches did go out ahead, and were withdrawn when the best moved.
    expect(withdrawn).toBeGreaterThan(5);
  });
});

describe('search, when an evaluation fails', () => {
  it('rejects with the failure, even from a batch sent ahead and not yet judged', async () => {
    let batches = 0;
    // The third batch fails at once, while the first random batch is still being evaluated.
    const failing = searchLandscape((batch) => {
      batches++;
      if (batches === 3) return Promise.reject(new Error('worker lost'));
      return new Promise((resolve) => setTimeout(() => resolve(batch.map(landscape)), 20));
    });
    await expect(failing).rejects.toThrow('worker lost');
  });
});
