/**
 * The bar, pinned loosely on the reference scenario: NASA July, us-east-1 down for two
 * hours from the busiest day's peak, the example policy. A warm standby must recover within 20
 * minutes at no more than 15 % over one region; route-only (Route 53 failover to a cold standby)
 * is slower. Loose on purpose: it survives small changes elsewhere, not a broken failover.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runFailoverBacktest } from '#shared/backtest/failover/run.ts';
import { DEFAULT_SCENARIO } from '#shared/backtest/scenario.ts';
import { parseTrace } from '#shared/backtest/trace.ts';
import { parsePolicyText } from '#shared/policy/load.ts';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

describe('NASA July, a 2-hour primary outage at the daily peak', () => {
  it('warm standby recovers within 20 minutes at no more than 15 % extra cost; route-only takes longer', () => {
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
    expect(warm.recoveryMinutes!).toBeLessThanOrEqual(20);
    expect(warm.extraCostPercent!).toBeLessThanOrEqual(15);
    expect(route.recoveryMinutes ?? Number.POSITIVE_INFINITY).toBeGreaterThan(warm.recoveryMinutes!);
  }, 120_000);
});
