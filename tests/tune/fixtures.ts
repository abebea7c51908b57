/** Small histories and the example policy for the tune tests: four days keep a run to seconds. */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { mulberry32, poisson } from '#shared/backtest/noise.ts';
import { referenceScenario } from '#shared/backtest/scenario.ts';
import type { Trace } from '#shared/backtest/trace.ts';
import { parsePolicyText } from '#shared/policy/load.ts';
import { type TuneInput, tune } from '#shared/tune/tune.ts';

export const EXAMPLE_TEXT = readFileSync('examples/policy.yaml', 'utf8');

export function exampleTarget() {
  const parsed = parsePolicyText(EXAMPLE_TEXT);
  if (!parsed.ok) throw new Error('examples/policy.yaml is invalid');
  const raw = (parse(EXAMPLE_TEXT) as { targets: Record<string, unknown>[] }).targets[0]!;
  return { target: parsed.policy.targets[0]!, raw };
}

/** Days of a daily cycle (40 to 400 requests a minute) with Poisson noise, seeded. */
export function dailyHistory(days: number, seed = 1): Trace {
  const random = mulberry32(seed);
  const requests = Array.from({ length: days * 1440 }, (_, m) => {
    const hour = (m % 1440) / 60;
    const level = 220 - 180 * Math.cos((2 * Math.PI * (hour - 2)) / 24);
    return poisson(level, random);
  });
  return { name: 'daily.csv', resolution: 'minute', requests, inputTokens: null, outputTokens: null };
}

export const csvOf = (t: Trace) => ['minute,requests', ...t.requests.map((r, m) => `${m},${r}`)].join('\n');

/** tune() on a history with the example target, two thirds trained, 24 candidates in this thread. */
export function tuneExample(trace: Trace, extra: Partial<TuneInput> = {}) {
  const { target, raw } = exampleTarget();
  return tune({
    trace,
    raw,
    target,
    options: referenceScenario(target),
    trainFraction: 0.67,
    maxCandidates: 24,
    workers: 0,
    ...extra,
  });
}
