/**
 * The backtest on two threads (shared/backtest/threads.ts) gives the result of one thread, value
 * for value: the governor's forecasting run in a worker, the other policies and the best-target
 * sweep here, put back in table order.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { lookaheadMemo } from '#shared/backtest/policies/lookahead.ts';
import { runBacktest } from '#shared/backtest/run.ts';
import { DEFAULT_SCENARIO } from '#shared/backtest/scenario.ts';
import { runBacktestInThreads } from '#shared/backtest/threads.ts';
import { parseTrace, type Trace } from '#shared/backtest/trace.ts';
import { parsePolicyText } from '#shared/policy/load.ts';

const parsed = parsePolicyText(readFileSync(new URL('../../examples/policy.yaml', import.meta.url), 'utf8'));
if (!parsed.ok) throw new Error('examples/policy.yaml is invalid');
const target = parsed.policy.targets[0]!;

/** NASA's first 2.5 days: a day of history, then forecasts refitted every 3 hours. */
function nasaDays(): Trace {
  const full = parseTrace(
    readFileSync(new URL('../../traces/nasa_http_1995_jul_per_minute.csv', import.meta.url), 'utf8'),
    'nasa-2.5-days.csv',
  );
  return { ...full, requests: full.requests.slice(0, 3600) };
}

describe('runBacktestInThreads', () => {
  const trace = nasaDays();

  it('gives the one-thread result, forecasts, decisions, sweep and verdict included', async () => {
    const input = { trace, target, options: DEFAULT_SCENARIO, scoreFrom: 600 };
    const one = runBacktest(input);
    const two = await runBacktestInThreads(input, 2);
    expect(two).toEqual(one);
    expect(JSON.stringify(two)).toBe(JSON.stringify(one));
    // It did forecast: the band is drawn and the governor's floor came from a forecast.
    expect(two.forecast?.p90.some((v) => v > 0)).toBe(true);
    const governor = two.policies.find((p) => p.summary.name === 'governor')!;
    expect(governor.decisions!.some((d) => d.reasons.includes('ForecastFloor'))).toBe(true);
  });

  it('reports progress from both threads, never moving back, ending at most at 1', async () => {
    const seen: number[] = [];
    await runBacktestInThreads(
      { trace, target, options: DEFAULT_SCENARIO, onProgress: (_, done) => seen.push(done) },
      2,
    );
    expect(seen.length).toBeGreaterThan(2);
    for (let i = 1; i < seen.length; i++) expect(seen[i]!).toBeGreaterThanOrEqual(seen[i - 1]!);
    expect(seen.at(-1)!).toBeLessThanOrEqual(1);
  });

  it('runs in this thread with shared fits (a function cannot cross), the same result', async () => {
    const input = { trace, target, options: DEFAULT_SCENARIO, only: ['governor', 'static-peak'] as const };
    const shared = await runBacktestInThreads({ ...input, fits: lookaheadMemo() }, 2);
    expect(shared).toEqual(runBacktest(input));
  });

  it('fails with the input error before any thread starts', async () => {
    await expect(
      runBacktestInThreads({ trace, target, options: DEFAULT_SCENARIO, scoreFrom: 99_999 }, 2),
    ).rejects.toThrow('scoring from minute 99999 leaves nothing to score (the trace has 3600 minutes)');
  });
});
