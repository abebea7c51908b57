/**
 * The forecast room in the backtest (shared/slo/forecast-room.ts): on ten days of the synthetic
 * year (smooth daily and weekly cycles, count noise: a forecast whose band is narrow) the room
 * opens once the forecast has a day of history, and the governor policy holds the objective for
 * less than the same policy with the room off. On NASA July it opens for 5 minutes of holds and
 * changes no instance-minute (tests/backtest/identical.test.ts pins that run).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runBacktest } from '#shared/backtest/run.ts';
import { referenceScenario } from '#shared/backtest/scenario.ts';
import type { Trace } from '#shared/backtest/trace.ts';
import { parsePolicyText } from '#shared/policy/load.ts';
import type { TargetPolicy } from '#shared/policy/schema.ts';
import { yearTrace } from '../../scripts/year-trace.ts';

const MINUTES = 10 * 1440;

function example(room: boolean): TargetPolicy {
  const text = readFileSync('examples/policy.yaml', 'utf8').replace(
    /\n {4}noise:\n/,
    `\n    slo: { control: { forecastRoom: { enabled: ${room} } } }\n    noise:\n`,
  );
  const parsed = parsePolicyText(text);
  if (!parsed.ok) throw new Error(`example policy invalid: ${JSON.stringify(parsed)}`);
  return parsed.policy.targets[0]!;
}

describe('the forecast room on ten smooth days', () => {
  it('opens where the band is narrow and holds the objective for less than the policy as written', () => {
    const trace: Trace = {
      name: 'year-10-days.csv',
      resolution: 'minute',
      requests: yearTrace(MINUTES),
      inputTokens: null,
      outputTokens: null,
    };
    const run = (room: boolean) => {
      const target = example(room);
      const result = runBacktest({ trace, target, options: referenceScenario(target), only: ['governor'] });
      return result.policies.find((p) => p.summary.name === 'governor')!.summary;
    };
    const [on, off] = [run(true), run(false)];
    expect(off.reasonCounts?.ForecastConfident).toBeUndefined();
    expect(on.reasonCounts?.ForecastConfident ?? 0).toBeGreaterThan(1440);
    expect(on.instanceMinutes).toBeLessThan(off.instanceMinutes * 0.95);
    expect(on.attainment).toBeGreaterThanOrEqual(0.995);
  });
});
