/**
 * The failover backtest's simulation on a synthetic trace: six hours of a service at 400
 * requests a minute with a daily-ish wobble, the example policy's target, us-east-1 down from
 * minute 200 for 60 minutes. Each strategy is the real governor policy per region and the real
 * failover planner (or Route 53's health check for route-only).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  type FailoverBacktestInput,
  runFailoverBacktest,
  simulateStrategy,
} from '#shared/backtest/failover/run.ts';
import { ROUTE53_CHECK_MINUTES } from '#shared/backtest/failover/simulate.ts';
import { STRATEGY_NAMES, type StrategyName } from '#shared/backtest/failover/strategies.ts';
import { runBacktest } from '#shared/backtest/run.ts';
import { DEFAULT_SCENARIO } from '#shared/backtest/scenario.ts';
import type { Trace } from '#shared/backtest/trace.ts';
import { FailoverHealthSchema, FailoverShiftSchema } from '#shared/policy/failover-schema.ts';
import { parsePolicyText } from '#shared/policy/load.ts';
import type { PolicyFile } from '#shared/policy/schema.ts';

const EAST = 'us-east-1';
const WEST = 'us-west-2';
const START = 200;
const END = 260;

const parsed = parsePolicyText(readFileSync(new URL('../../examples/policy.yaml', import.meta.url), 'utf8'));
if (!parsed.ok) throw new Error('examples/policy.yaml does not validate');
const target = parsed.policy.targets[0]!;

const trace: Trace = {
  name: 'synthetic',
  resolution: 'minute',
  requests: Array.from({ length: 360 }, (_, m) => 300 + Math.round(100 * Math.sin(m / 40)) + (m % 7)),
  inputTokens: null,
  outputTokens: null,
};

const input: FailoverBacktestInput = {
  trace,
  target,
  policy: parsed.policy,
  options: DEFAULT_SCENARIO,
  outage: { region: EAST, start: START, durationMinutes: END - START },
};

const sims = Object.fromEntries(STRATEGY_NAMES.map((s) => [s, simulateStrategy(s, input)])) as Record<
  StrategyName,
  ReturnType<typeof simulateStrategy>
>;

describe('the outage', () => {
  it.each(['pilot-light', 'warm-standby', 'route-only', 'no-failover'] as const)(
    '%s: us-east-1 serves until minute 199, nothing in minutes 200-259, and starts again after',
    (name) => {
      const ready = sims[name].ready[EAST]!;
      expect(ready[START - 1]).toBeGreaterThan(0);
      for (let m = START; m < END; m++) expect(ready[m]).toBe(0);
      for (let m = START; m < END; m++) expect(sims[name].provisioned[EAST]![m]).toBe(0);
      expect(sims[name].provisioned[EAST]![END]).toBeGreaterThan(0);
    },
  );

  it('one-region has no outage: us-east-1 serves every minute', () => {
    expect([...sims['one-region'].ready[EAST]!].every((r) => r > 0)).toBe(true);
  });
});

describe('routing', () => {
  it.each(STRATEGY_NAMES.map((name) => ({ name })))(
    '$name: traffic always goes somewhere (weights sum to 100 every minute)',
    ({ name }) => {
      const w = sims[name].weights;
      for (let m = 0; m < trace.requests.length; m++) {
        expect((w[EAST]?.[m] ?? 0) + (w[WEST]?.[m] ?? 0)).toBe(100);
      }
    },
  );

  it('route-only moves all traffic at once, when the health check has failed for 90 s, and back when it passes', () => {
    const w = sims['route-only'].weights[EAST]!;
    expect(w[START + ROUTE53_CHECK_MINUTES - 1]).toBe(100);
    expect(w[START + ROUTE53_CHECK_MINUTES]).toBe(0);
    expect(sims['route-only'].marks.map((m) => [m.minute, m.weights[EAST]])).toEqual([
      [START + ROUTE53_CHECK_MINUTES, 0],
      [expect.any(Number), 100],
    ]);
    expect(sims['route-only'].marks[1]!.minute).toBeGreaterThan(END);
  });

  it('the planner moves traffic only after detecting the failure, and off a primary that serves nothing by the largest step the standby serves, with no check between', () => {
    const marks = sims['warm-standby'].marks.filter((m) => m.minute >= START && m.minute < END);
    expect(marks.map((m) => m.reasons)).toEqual([
      ['FailoverStarted'],
      ['ShiftStep', 'SourceServesNothing'],
      ['FailedOver', 'SourceServesNothing'],
    ]);
    // 50 % when the first prescaled instances are ready; 100 % when the re-sized rest are.
    expect(marks.map((m) => m.weights[WEST])).toEqual([0, 50, 100]);
    // The minute's datapoint arrives 2 minutes later, then 3 of 5 periods must breach.
    expect(marks[0]!.minute).toBe(START + 4);
  });
});

describe('a p95 threshold in the health settings (examples/failover.yaml sets 4000 ms)', () => {
  // The backtest reads health settings from a group of the file that has the target.
  const withLatency = {
    ...parsed.policy,
    failover: {
      groups: [
        {
          id: 'chat',
          members: [{ targetId: target.id, role: 'primary' }],
          health: FailoverHealthSchema.parse({ p95LatencyMs: 4000 }),
          shift: FailoverShiftSchema.parse({}),
        },
      ],
    },
  } as unknown as PolicyFile;
  const pilot = simulateStrategy('pilot-light', { ...input, policy: withLatency });

  it('pilot light fails over: a standby with no instance has no p95 to read, so it is idle, not unknown', () => {
    const marks = pilot.marks.filter((m) => m.minute >= START && m.minute < END);
    expect(marks[0]?.reasons[0]).toBe('FailoverStarted');
    expect(marks.at(-1)?.reasons[0]).toBe('FailedOver');
    expect(pilot.weights[EAST]![END - 1]).toBe(0);
  });
});

describe('cost', () => {
  it('pilot light pays nothing for the standby before the outage', () => {
    const west = sims['pilot-light'].provisioned[WEST]!;
    for (let m = 0; m < START; m++) expect(west[m]).toBe(0);
    expect(sims['pilot-light'].regionInstanceMinutes[WEST]).toBeGreaterThan(0);
  });

  it('warm standby pays its floor every minute before the outage', () => {
    const west = sims['warm-standby'].provisioned[WEST]!;
    for (let m = 0; m < START; m++) expect(west[m]).toBe(1);
  });

  it('one-region is the backtest governor itself: the same instance-minutes and violation minutes', () => {
    const single = runBacktest({ trace, target, options: DEFAULT_SCENARIO, only: ['governor'] }).policies[0]!
      .summary;
    expect(sims['one-region'].instanceMinutes).toBe(single.instanceMinutes);
    expect(sims['one-region'].violated.reduce((a, b) => a + b, 0)).toBe(single.violationMinutes);
  });
});

describe('the report', () => {
  const result = runFailoverBacktest(input);
  const row = (name: StrategyName) => result.strategies.find((s) => s.name === name)!;

  it('is deterministic: the same input gives the same figures', () => {
    expect(runFailoverBacktest(input)).toEqual(result);
  });

  it('measures extra cost against one-region, and recovery from the outage start', () => {
    expect(row('one-region').extraCostPercent).toBe(0);
    const ws = row('warm-standby');
    expect(ws.extraCostPercent).toBeCloseTo(
      (100 * (ws.instanceMinutes - row('one-region').instanceMinutes)) / row('one-region').instanceMinutes,
      9,
    );
    expect(row('no-failover').recoveryMinutes).toBeGreaterThanOrEqual(END - START);
    expect(row('route-only').failedOverMinutes).toBe(ROUTE53_CHECK_MINUTES);
  });
});
