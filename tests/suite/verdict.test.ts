import { describe, expect, it } from 'vitest';
import { judge, lossReason } from '#shared/suite/verdict.ts';

const f = (instanceMinutes: number, violationMinutes: number) => ({ instanceMinutes, violationMinutes });

describe('judge: dominance as BACKTEST.md defines it', () => {
  it.each([
    {
      case: 'cheaper with as many violation minutes wins',
      policy: f(90, 5),
      baseline: f(100, 5),
      outcome: 'win',
    },
    {
      case: 'as dear with fewer violation minutes wins',
      policy: f(100, 4),
      baseline: f(100, 5),
      outcome: 'win',
    },
    {
      case: 'cheaper and fewer violation minutes wins',
      policy: f(90, 0),
      baseline: f(100, 5),
      outcome: 'win',
    },
    { case: 'equal on both is a tie, not a win', policy: f(100, 5), baseline: f(100, 5), outcome: 'tie' },
    {
      case: 'cheaper but one more violation minute loses',
      policy: f(50, 6),
      baseline: f(100, 5),
      outcome: 'loss',
    },
    { case: 'fewer violations but dearer loses', policy: f(101, 0), baseline: f(100, 5), outcome: 'loss' },
    { case: 'dearer and more violations loses', policy: f(120, 9), baseline: f(100, 5), outcome: 'loss' },
    {
      case: 'a cost difference of float noise (1e-9 relative) counts as equal',
      policy: f(100 * (1 + 1e-9), 4),
      baseline: f(100, 5),
      outcome: 'win',
    },
  ])('$case', ({ policy, baseline, outcome }) => {
    expect(judge(policy, baseline)).toBe(outcome);
  });
});

describe('lossReason names what lost, with the numbers', () => {
  it.each([
    { policy: f(104.2, 5), baseline: f(100, 5), reason: 'costs 4.2 % more' },
    { policy: f(90, 6), baseline: f(100, 5), reason: '1 more violation minute' },
    { policy: f(110, 17), baseline: f(100, 5), reason: 'costs 10.0 % more and 12 more violation minutes' },
  ])('$reason', ({ policy, baseline, reason }) => {
    expect(lossReason(policy, baseline)).toBe(reason);
  });
});
