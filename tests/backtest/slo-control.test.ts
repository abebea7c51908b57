/**
 * The error-budget control in the backtest's governor policy: on traffic whose bursts are
 * shorter than a cold start, the policy as written misses 99.5 % of minutes; with the control it
 * buys headroom until the objective holds, records why (BudgetBurning), and on calm traffic it
 * leaves the policy as written. The SLI is read only from delivered datapoints.
 */
import { describe, expect, it } from 'vitest';
import { runBacktest } from '#shared/backtest/run.ts';
import { referenceScenario } from '#shared/backtest/scenario.ts';
import type { Trace } from '#shared/backtest/trace.ts';
import { DAY, variantTarget } from './fixtures.ts';

/** Three days at 200 a minute with a 4-minute burst to 400 every 90 minutes (shorter than a cold start). */
function bursty(): Trace {
  const requests = Array.from({ length: 3 * DAY }, (_, m) => (m % 90 < 4 && m > 60 ? 400 : 200));
  return { name: 'bursty', resolution: 'minute', requests, inputTokens: null, outputTokens: null };
}

const policy = (control: boolean) =>
  variantTarget(`    scaling: { minCapacity: 1, maxCapacity: 200 }
    instanceCapacity: { requestsPerMinuteAtSlo: 10 }
    signals:
      - { metric: invocationsPerInstance, target: 6.25, tolerance: 0.05 }
      - { metric: p95LatencyMs, sloMs: 2000 }
    damping: { scaleOutBreaches: 3, scaleInBreaches: 6 }
    slo: { control: { enabled: ${control} } }`);

const governor = (trace: Trace, control: boolean) => {
  const target = policy(control);
  const result = runBacktest({ trace, target, options: referenceScenario(target), only: ['governor'] });
  return result.policies[0]!;
};

describe('the error-budget control in the backtest', () => {
  it('buys the headroom that bursts shorter than a cold start need, and says why', () => {
    const off = governor(bursty(), false).summary;
    const on = governor(bursty(), true);
    expect(1 - off.violationRatio).toBeLessThan(0.995);
    expect(1 - on.summary.violationRatio).toBeGreaterThan(1 - off.violationRatio);
    expect(on.summary.violationMinutes).toBeLessThan(off.violationMinutes / 2);
    expect(on.summary.costVsOracle).toBeGreaterThan(off.costVsOracle);
    expect(on.summary.reasonCounts?.BudgetBurning ?? 0).toBeGreaterThan(0);
    const burned = on.decisions?.find((d) => d.reasons.includes('BudgetBurning'));
    expect(burned?.message).toMatch(
      /the error budget burns .* so load targets stand at 0\.\d\dx of the policy's/,
    );
  });

  it('leaves calm traffic that meets the objective as written', () => {
    const calm: Trace = {
      ...bursty(),
      name: 'calm',
      requests: bursty().requests.map((_, m) => 200 + (m % 7)),
    };
    const off = governor(calm, false).summary;
    const on = governor(calm, true).summary;
    expect(1 - off.violationRatio).toBeGreaterThanOrEqual(0.995);
    expect(on.instanceMinutes).toBeLessThanOrEqual(off.instanceMinutes * 1.02);
    expect(on.reasonCounts?.BudgetExhausted ?? 0).toBe(0);
  });
});
