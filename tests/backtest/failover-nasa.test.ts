/**
 * The bar, pinned on the reference scenario: NASA July, us-east-1 down for two hours from
 * the busiest day's peak, the example policy. The issue asks 20 minutes at no more than 15 % over
 * one region; the planner does 15 minutes (detection 4 + cold start 8 + the re-sized rest 3, no
 * check time off a primary that serves nothing), so the bound is 15. Route-only (Route 53
 * failover to a cold standby) is slower.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runFailoverBacktest } from '#shared/backtest/failover/run.ts';
import { DEFAULT_SCENARIO } from '#shared/backtest/scenario.ts';
import { parseTrace } from '#shared/backtest/trace.ts';
import { parsePolicyText } from '#shared/policy/load.ts';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

describe('NASA July, a 2-hour primary outage at the daily peak', () => {
  it('warm standby recovers within 15 minutes at no more than 15 % extra cost; route-only takes longer', () => {
    const parsed = parsePolicyText(read('examples/policy.yaml'));
    if (!parsed.ok) throw new Error('examples/policy.yaml does not validate');
    const trace = parseTrace(read('traces/nasa_http_1995_jul_per_minute.csv'), 'nasa');
    const result = runFailoverBacktest({
      trace,
      target: parsed.policy.targets[0]!,
      policy: parsed.policy,
      options: DEFAULT_SCENARIO,
      outage: { region: 'us-east-1', start: 'peak', durationMinutes: 120 },
      only: ['warm-standby', 'route-only'],
    });
    const warm = result.strategies.find((s) => s.name === 'warm-standby')!;
    const route = result.strategies.find((s) => s.name === 'route-only')!;
    expect(warm.recoveryMinutes).not.toBeNull();
    expect(warm.recoveryMinutes!).toBeLessThanOrEqual(15);
    expect(warm.extraCostPercent!).toBeLessThanOrEqual(15);
    expect(route.recoveryMinutes ?? Number.POSITIVE_INFINITY).toBeGreaterThan(warm.recoveryMinutes!);
  }, 120_000);
});
