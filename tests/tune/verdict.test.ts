/**
 * The held-out judgement and its guard: a tuned policy is written only when it holds the
 * objective where the starting policy held it, and costs no more; otherwise the starting policy
 * is kept, and the verdict says so in the objective's terms.
 */
import { describe, expect, it } from 'vitest';
import type { PolicySummary } from '#shared/backtest/types.ts';
import { goalOf } from '#shared/tune/objective.ts';
import { partRows, type TuneReport, windowNote } from '#shared/tune/report.ts';
import { judge } from '#shared/tune/verdict.ts';

const held = (name: string, instanceMinutes: number, violationRatio: number, requests = violationRatio) =>
  ({
    name,
    instanceMinutes,
    costUsd: 0,
    costVsOracle: instanceMinutes / 1000,
    violationMinutes: Math.round(violationRatio * 10_000),
    violationRatio,
    requestsInViolationRatio: requests,
    scalingActions: 0,
  }) satisfies PolicySummary;

const goal = goalOf({ minutes: 0.995 });
const baseline = held('aws-target-tracking', 2200, 0.07);

describe('judge: the held-out part against the objective', () => {
  it.each([
    {
      case: 'tuned meets it and is cheaper: written',
      tuned: held('governor', 1800, 0.004),
      start: held('governor', 2000, 0.001),
      kept: false,
      meets: true,
      cheaper: 0.1,
    },
    {
      case: 'tuned misses it where the starting policy met it: the starting policy is kept',
      tuned: held('governor', 1600, 0.006),
      start: held('governor', 2000, 0.001),
      kept: true,
      meets: true,
      cheaper: 0,
    },
    {
      case: 'tuned meets it but costs more than the starting policy, which met it: kept',
      tuned: held('governor', 2100, 0.001),
      start: held('governor', 2000, 0.002),
      kept: true,
      meets: true,
      cheaper: 0,
    },
    {
      case: 'the starting policy missed it and the tuned one meets it: written, dearer or not',
      tuned: held('governor', 2100, 0.004),
      start: held('governor', 2000, 0.02),
      kept: false,
      meets: true,
      cheaper: -0.05,
    },
    {
      case: 'both miss it: the tuned policy is written and the verdict says it misses',
      tuned: held('governor', 1900, 0.01),
      start: held('governor', 2000, 0.02),
      kept: false,
      meets: false,
      cheaper: 0.05,
    },
  ])('$case', ({ tuned, start, kept, meets, cheaper }) => {
    const v = judge({ tuned, start, baseline }, goal);
    expect(v.kept).toBe(kept);
    expect(v.meets).toBe(meets);
    expect(v.cheaperThanStart).toBeCloseTo(cheaper, 12);
    expect(v.sentence).toMatch(
      meets ? / meets the objective on the held-out part: / : / misses the objective/,
    );
    expect(v.sentence).toMatch(/against 99\.5 %.* than target tracking \(93\.00 %, 2\.20x\)$/);
    expect(v.written).toMatch(
      kept ? /^kept the starting policy, not the tuned one: / : /^wrote the tuned policy$/,
    );
  });

  it('reads a held-out part longer than the window by its worst window, as the backtest judged it', () => {
    // The tuned policy is at 99.6 % over the whole part but at 99.3 % in its worst 30 days.
    const tuned = { ...held('governor', 1800, 0.004), attainment: 0.993, traceAttainment: 0.996 };
    const v = judge({ tuned, start: held('governor', 2000, 0.001), baseline }, goal);
    expect(v.tuned.minutes).toBeCloseTo(0.993, 12);
    expect(v.tuned.meets).toBe(false);
    expect(v.kept).toBe(true);
  });

  it('shows a held-out part longer than the window as judged, with the whole part in a note', () => {
    const tuned = { ...held('governor', 1800, 0.004), attainment: 0.993, traceAttainment: 0.996 };
    const start = { ...held('governor', 2000, 0.001), attainment: 0.998, traceAttainment: 0.999 };
    const rows = partRows(
      { heldOut: { tuned, start, baseline } } as unknown as TuneReport,
      'heldOut',
      'p.yaml',
    );
    expect(rows.map((r) => r.attainment)).toEqual([0.993, 0.998, 1 - 0.07]);
    expect(windowNote(rows)).toEqual([
      "the held-out part is longer than the objective's window: attainment is each policy's worst window (the whole part: tuned 99.60 %, starting (p.yaml) 99.90 %, aws-target-tracking 93.00 %)",
    ]);
    // A part within the window: no note.
    expect(
      windowNote(
        partRows(
          {
            heldOut: { tuned: held('governor', 1, 0), start: held('governor', 1, 0), baseline },
          } as unknown as TuneReport,
          'heldOut',
          'p.yaml',
        ),
      ),
    ).toEqual([]);
  });

  it('counts requests when the objective has them', () => {
    const both = goalOf({ minutes: 0.995, requests: 0.99 });
    const v = judge(
      { tuned: held('governor', 1800, 0.004, 0.02), start: held('governor', 2000, 0.001, 0.002), baseline },
      both,
    );
    expect(v.tuned.meets).toBe(false);
    expect(v.kept).toBe(true);
    expect(v.sentence).toMatch(/and 99\.80 % of requests \(objective 99 %\)/);
  });
});
