import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { boundNotes } from '#shared/backtest/bounds.ts';
import { runBacktest } from '#shared/backtest/run.ts';
import { referenceScenario } from '#shared/backtest/scenario.ts';
import { parseTrace } from '#shared/backtest/trace.ts';
import { parsePolicyText } from '#shared/policy/load.ts';

const text = readFileSync('examples/policy.yaml', 'utf8');
const targetWithMax = (max: number) => {
  const parsed = parsePolicyText(text.replace(/maxCapacity: \d+/, `maxCapacity: ${max}`));
  if (!parsed.ok) throw new Error('example policy invalid');
  return parsed.policy.targets[0]!;
};
// An hour that needs the whole peak fleet for 20 minutes.
const trace = parseTrace(
  ['minute,requests', ...Array.from({ length: 60 }, (_, m) => `${m},${m >= 20 && m < 40 ? 4000 : 500}`)].join(
    '\n',
  ),
  'surge.csv',
);

describe('boundNotes: a maxCapacity below what the busiest minute needs is said in one line', () => {
  it('names the bound, how often it capped governor, and what the baselines may use', () => {
    const target = targetWithMax(10);
    const result = runBacktest({ trace, target, options: referenceScenario(target) });
    const notes = boundNotes(result, target);
    expect(notes.length).toBeGreaterThan(0);
    expect(notes[0]).toMatch(
      /^governor: scaling\.maxCapacity 10 of chat-llm is below the 40 instances the busiest minute needs and capped \d+ decisions? \(the baselines may go to 80\); raise it to compare like with like$/,
    );
  });

  it('says nothing when the bound leaves room for the busiest minute', () => {
    const target = targetWithMax(400);
    const result = runBacktest({ trace, target, options: referenceScenario(target) });
    expect(boundNotes(result, target)).toEqual([]);
  });
});
