import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SuiteInputError } from '#shared/suite/load.ts';
import { type CellTask, cellTasks, runSuite, takeNext } from '#shared/suite/pool.ts';
import { selectVariants } from '#shared/suite/variants.ts';
import { suiteFixtures } from './fixtures.ts';

const fx = suiteFixtures();
const policyText = readFileSync('examples/policy.yaml', 'utf8');
const variants = selectVariants(['reference', 'cold-15', 'peak-10', 'noise-2']);
const input = { policyText, policyName: 'examples/policy.yaml', tracePaths: [fx.ramp, fx.surge], variants };

describe('runSuite', () => {
  it('runs every trace under every variant and returns the cells in table order', async () => {
    const cells = await runSuite({ ...input, workers: 0 });
    expect(cells.map((c) => `${c.trace} ${c.variant}`)).toEqual(
      ['ramp.csv', 'surge.csv'].flatMap((t) => variants.map((v) => `${t} ${v.id}`)),
    );
    for (const c of cells) {
      expect(c.governor.instanceMinutes).toBeGreaterThan(0);
      expect(c.baseline.instanceMinutes).toBeGreaterThan(0);
      expect(['win', 'tie', 'loss']).toContain(c.outcome);
    }
  });

  it('gives the same figures in two worker threads as in this thread, in the same order', async () => {
    const seen: number[] = [];
    const inThread = await runSuite({ ...input, workers: 0 });
    const threaded = await runSuite({ ...input, workers: 2, onCell: (done) => seen.push(done) });
    expect(threaded).toEqual(inThread);
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('numbers its tasks trace by trace', () => {
    expect(cellTasks(['a', 'b'], variants.slice(0, 2))).toEqual([
      { index: 0, tracePath: 'a', variant: 'reference' },
      { index: 1, tracePath: 'a', variant: 'cold-15' },
      { index: 2, tracePath: 'b', variant: 'reference' },
      { index: 3, tracePath: 'b', variant: 'cold-15' },
    ]);
  });

  describe('takeNext: a worker stays on its trace, then starts one nobody is on, then helps', () => {
    const queue = (): CellTask[] => [
      { index: 0, tracePath: 'nasa', variant: 'reference' },
      { index: 1, tracePath: 'nasa', variant: 'cold-4' },
      { index: 2, tracePath: 'nasa', variant: 'noise-5' },
      { index: 3, tracePath: 'twitter', variant: 'reference' },
      { index: 4, tracePath: 'twitter', variant: 'cold-4' },
      { index: 5, tracePath: 'azure', variant: 'reference' },
    ];

    it('a first worker takes the first cell, a second the first cell of another trace', () => {
      const q = queue();
      expect(takeNext(q, undefined, new Set())?.index).toBe(0);
      expect(takeNext(q, undefined, new Set(['nasa']))?.index).toBe(3);
      expect(q.map((t) => t.index)).toEqual([1, 2, 4, 5]);
    });

    it("its own trace's next cell first, in table order (the reference cell fills the memo the others read)", () => {
      const q = queue();
      expect(takeNext(q, 'twitter', new Set(['nasa']))?.index).toBe(3);
      expect(takeNext(q, 'twitter', new Set(['nasa']))?.index).toBe(4);
    });

    it('with its own trace done, a trace nobody is on; with none left, the last queued cell of another', () => {
      const q = queue().filter((t) => t.tracePath !== 'twitter');
      expect(takeNext(q, 'twitter', new Set(['nasa']))?.index).toBe(5);
      expect(takeNext(q, 'azure', new Set(['nasa']))?.index).toBe(2);
      expect(takeNext(q, 'azure', new Set(['nasa']))?.index).toBe(1);
      expect(takeNext(q, 'nasa', new Set())?.index).toBe(0);
      expect(takeNext(q, 'nasa', new Set())).toBeUndefined();
    });
  });

  it.each([
    {
      case: 'a trace that does not parse',
      patch: { tracePaths: [fx.ramp, fx.badTrace] },
      message: /bad\.csv: .*header/,
    },
    {
      case: 'a trace that does not exist',
      patch: { tracePaths: ['/nope/x.csv'] },
      message: /cannot read the trace \(ENOENT\)/,
    },
    {
      case: 'an invalid policy',
      patch: { policyText: 'version: 1\ntargets: []\n' },
      message: /needs at least one target/,
    },
    { case: 'an unknown target', patch: { targetId: 'nope' }, message: /--target nope is not in/ },
  ])('refuses $case before starting any thread', async ({ patch, message }) => {
    const run = runSuite({ ...input, workers: 2, ...patch });
    await expect(run).rejects.toBeInstanceOf(SuiteInputError);
    await expect(runSuite({ ...input, workers: 2, ...patch })).rejects.toThrow(message);
  });
});
