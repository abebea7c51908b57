/** The suite's table says which traces are longer than the objective's window (judged by their worst window). */
import { describe, expect, it } from 'vitest';
import type { CellFigures, CellResult } from '#shared/suite/cell.ts';
import { formatSuite } from '#shared/suite/format.ts';

const f = (costVsOracle: number, attainment: number): CellFigures => ({
  instanceMinutes: costVsOracle * 1000,
  costVsOracle,
  violationMinutes: 0,
  violationRatio: 1 - attainment,
  scalingActions: 0,
  attainment,
  meetsObjective: attainment >= 0.995,
});

const cell = (trace: string, minutes: number): CellResult => ({
  trace,
  variant: 'reference',
  minutes,
  objective: { minutes: 0.995, windowMinutes: 43_200 },
  governor: f(1.4, 0.996),
  baseline: f(1.7, 0.996),
  best: { ...f(1.7, 0.996), fraction: 0.5 },
  savingAtEqualSlo: 0.2,
  outcome: 'win',
  reason: '',
  sentence: '',
  dominance: 'win',
  notes: [],
  reasonCounts: {},
});

describe('formatSuite', () => {
  it('names the traces longer than the window, whose "attained" is their worst window', () => {
    const text = formatSuite([cell('year', 525_600), cell('nasa', 39_693)]);
    expect(text).toContain(
      'longer than the objective\'s window, so "attained" is the worst 30-day window: year',
    );
    expect(text).not.toContain('window: year, nasa');
  });

  it('says nothing of it when every trace is within the window', () => {
    expect(formatSuite([cell('nasa', 39_693)])).not.toContain('worst 30-day window');
  });
});
