import { describe, expect, it } from 'vitest';
import { Fleet } from '#shared/backtest/fleet.ts';
import type { Datapoint } from '#shared/backtest/metrics.ts';
import type { FleetView, Policy } from '#shared/backtest/policies/types.ts';
import { buildScenario, DEFAULT_SCENARIO, type ScenarioOptions } from '#shared/backtest/scenario.ts';
import { simulate } from '#shared/backtest/simulate.ts';

interface Seen {
  minute: number;
  ready: number;
  pending: number;
  visible: number;
  latest: Datapoint | undefined;
}

/** A policy that asks for a scripted capacity each minute and records what it saw. */
function scripted(desired: number[], initialReady: number) {
  const seen: Seen[] = [];
  const policy: Policy = {
    name: 'scripted',
    initialReady,
    decide: (view: FleetView, minute: number) => {
      seen.push({
        minute,
        ready: view.ready,
        pending: view.pending,
        visible: view.metrics.count,
        latest: view.metrics.latest(),
      });
      return desired[minute]!;
    },
  };
  return { policy, seen };
}

function run(requests: number[], desired: number[], initialReady: number, options: Partial<ScenarioOptions>) {
  const workload = { requests, work: requests };
  const scenario = buildScenario(workload, { ...DEFAULT_SCENARIO, ...options }, undefined);
  const { policy, seen } = scripted(desired, initialReady);
  const result = simulate(policy, { scenario, workload, oracleInstanceMinutes: 1 });
  return { result, seen, scenario };
}

describe('one tick, in BACKTEST.md order', () => {
  // Peak 20 with 2 at peak: mu = 10, muSat = 12.5. Cold start 2, metric delay 1.
  //  m  r   decide  ready pending  cost  violation (r + backlog > ready x 10)   backlog after
  //  0  10  1       1     0        1     10 + 0 > 10? no                          max(0, 10 - 12.5) = 0
  //  1  0   2       1     1 (at 3) 2     no                                       0
  //  2  20  2       1     1        2     20 > 10 yes                              20 - 12.5 = 7.5
  //  3  20  2       2     0        2     27.5 > 20 yes                            7.5 + 20 - 25 = 2.5
  //  4  5   1       1     0        1     7.5 > 10? no                             max(0, 2.5 + 5 - 12.5) = 0
  //  5  0   3       1     2 (at 7) 3     no                                       0
  // Instance-minutes 11; violations at 2 and 3 with 40 of 55 requests; 3 scaling actions.
  const requests = [10, 0, 20, 20, 5, 0];
  const desired = [1, 2, 2, 2, 1, 3];
  const options = { peakInstances: 2, coldStartMinutes: 2, metricDelayMinutes: 1 };

  it('bills ready and pending instances, counts violations with the carried backlog, and counts each change once', () => {
    const { result } = run(requests, desired, 1, options);
    expect(result.summary.instanceMinutes).toBe(11);
    expect(result.series.ready).toEqual([1, 1, 1, 2, 1, 1]);
    expect(result.series.provisioned).toEqual([1, 2, 2, 2, 1, 3]);
    expect(result.series.violationMinutes).toEqual([2, 3]);
    expect(result.summary.requestsInViolationRatio).toBeCloseTo(40 / 55, 12);
    expect(result.summary.violationRatio).toBeCloseTo(2 / 6, 12);
    expect(result.summary.scalingActions).toBe(3);
  });

  it('promotes started instances before the policy decides: the one requested at minute 1 is ready at minute 3', () => {
    const { seen } = run(requests, desired, 1, options);
    expect(seen.map((s) => [s.ready, s.pending])).toEqual([
      [1, 0],
      [1, 0],
      [1, 1],
      [2, 0],
      [2, 0],
      [1, 0],
    ]);
  });

  it('publishes the backlog it carries: GPU utilization counts it, queue depth is what is left', () => {
    const { seen } = run([...requests, 0, 0], [...desired, 3, 3], 1, { ...options, metricDelayMinutes: 0 });
    // With delay 0, the decision at minute m + 1 sees minute m.
    const at = (m: number) => seen[m + 1]!.latest!;
    // Minute 2: (20 + 0) / (1 x 12.5) = 160 %, capped at 100; 7.5 left waiting.
    expect(at(2).gpuUtilization).toBe(100);
    expect(at(2).queueDepth).toBe(7.5);
    // Minute 4: (5 + 2.5) / 12.5 = 60 %; the queue drains.
    expect(at(4).gpuUtilization).toBeCloseTo(60, 12);
    expect(at(4).queueDepth).toBe(0);
    expect(at(3).invocationsPerInstance).toBe(10);
    expect(at(3).ready).toBe(2);
  });
});

describe('start-up delays', () => {
  it.each([
    { case: 'cold start 8: an instance requested at minute 0 serves from minute 8', cold: 8, firstReady: 8 },
    { case: 'cold start 3: from minute 3', cold: 3, firstReady: 3 },
    { case: 'cold start 0: the same minute', cold: 0, firstReady: 0 },
  ])('$case', ({ cold, firstReady }) => {
    const n = 10;
    const { result } = run(
      Array.from({ length: n }, () => 10),
      Array.from({ length: n }, () => 2),
      1,
      { peakInstances: 1, coldStartMinutes: cold },
    );
    expect(result.series.ready.indexOf(2)).toBe(firstReady);
    // Billed from the request on: 2 every minute.
    expect(result.series.provisioned.every((p) => p === 2)).toBe(true);
  });
});

describe('the metric delay', () => {
  it.each([
    // Datapoint j is visible at the start of minute j + 1 + delay: at minute m, minutes 0..m-1-delay.
    { case: 'delay 1: the decision at minute 5 sees minutes 0 to 3', delay: 1, visible: [0, 0, 1, 2, 3, 4] },
    { case: 'delay 0: minutes 0 to 4', delay: 0, visible: [0, 1, 2, 3, 4, 5] },
    { case: 'delay 3: minutes 0 to 1', delay: 3, visible: [0, 0, 0, 0, 1, 2] },
  ])('$case', ({ delay, visible }) => {
    const { seen } = run([1, 2, 3, 4, 5, 6], [1, 1, 1, 1, 1, 1], 1, {
      peakInstances: 1,
      metricDelayMinutes: delay,
    });
    expect(seen.map((s) => s.visible)).toEqual(visible);
    const last = seen.at(-1)!.latest;
    expect(last?.minute).toBe(visible.at(-1)! - 1);
    expect(last?.timestamp).toBe((visible.at(-1)! - 1) * 60_000);
  });
});

describe('the fleet', () => {
  it('cancels starting instances before it removes ready ones, the last to be ready first', () => {
    const fleet = new Fleet({ initialReady: 2, coldStartMinutes: 5, warmStartMinutes: 1, warmPoolSize: 0 });
    fleet.scaleTo(4, 0); // 2 pending, ready at 5
    fleet.scaleTo(6, 1); // 2 more, ready at 6
    fleet.scaleTo(3, 2); // cancels the 2 of minute 1 and 1 of minute 0
    expect([fleet.ready, fleet.pending]).toEqual([2, 1]);
    fleet.promote(5);
    expect([fleet.ready, fleet.pending]).toEqual([3, 0]);
    fleet.scaleTo(1, 6);
    expect(fleet.ready).toBe(1);
  });

  it('draws on the warm pool first, refills it over a cold start, and bills idle warm instances at 5 %', () => {
    const fleet = new Fleet({ initialReady: 1, coldStartMinutes: 8, warmStartMinutes: 1, warmPoolSize: 2 });
    expect(fleet.scaleTo(4, 0)).toBe(true); // 2 from the pool (ready at 1), 1 cold (ready at 8)
    expect([fleet.warmIdle, fleet.filling, fleet.pending]).toEqual([0, 2, 3]);
    fleet.promote(1);
    expect([fleet.ready, fleet.pending]).toEqual([3, 1]);
    fleet.promote(8);
    expect([fleet.ready, fleet.warmIdle, fleet.filling]).toEqual([4, 2, 0]);
  });

  it('bills a warm pool in a run: 1 ready + 2 idle x 0.05 = 1.1 instance-minutes a minute', () => {
    const workload = { requests: [1, 1, 1], work: [1, 1, 1] };
    const scenario = buildScenario(workload, { ...DEFAULT_SCENARIO, peakInstances: 1 }, undefined);
    const policy: Policy = { name: 'warm', warmPoolSize: 2, decide: () => 1 };
    const result = simulate(policy, { scenario, workload, oracleInstanceMinutes: 3 });
    expect(result.summary.instanceMinutes).toBeCloseTo(3.3, 9);
    expect(result.series.warmPool).toEqual([2, 2, 2]);
  });

  it('clamps what a policy asks for to [1, 2 x peakInstances]', () => {
    const { result } = run([5, 5, 5], [0, 500, 500], 1, { peakInstances: 2, coldStartMinutes: 0 });
    expect(result.series.ready).toEqual([1, 4, 4]);
  });

  it('a run asked for its summary only (series: false) has the same summary and no series', () => {
    const requests = [3, 9, 14, 2, 0, 11, 20, 6];
    const workload = { requests, work: requests };
    const scenario = buildScenario(workload, { ...DEFAULT_SCENARIO, peakInstances: 2 }, undefined);
    const input = { scenario, workload, oracleInstanceMinutes: 8 };
    const full = simulate(scripted([1, 2, 3, 3, 1, 2, 4, 4], 1).policy, input);
    const bare = simulate(scripted([1, 2, 3, 3, 1, 2, 4, 4], 1).policy, { ...input, series: false });
    expect(bare.summary).toEqual(full.summary);
    expect(full.series.ready).toHaveLength(8);
    expect([bare.series.ready, bare.series.provisioned, bare.series.warmPool]).toEqual([[], [], []]);
  });

  it('a stop rule ends the run in the minute it says so, with what each minute provisioned and whether it was bad', () => {
    const requests = [3, 9, 14, 2, 0, 11, 20, 6];
    const workload = { requests, work: requests };
    const scenario = buildScenario(workload, { ...DEFAULT_SCENARIO, peakInstances: 2 }, undefined);
    const input = { scenario, workload, oracleInstanceMinutes: 8 };
    const desired = [1, 2, 3, 3, 1, 2, 4, 4];
    const full = simulate(scripted(desired, 1).policy, input);
    const asked: [number, number, boolean][] = [];
    const { policy, seen } = scripted(desired, 1);
    const stopped = simulate(policy, {
      ...input,
      stopWhen: (minute, provisioned, violated) => {
        asked.push([minute, provisioned, violated]);
        return minute === 4;
      },
    });
    // The rule saw the series the full run records, minute by minute, and nothing after minute 4.
    expect(asked).toEqual(
      [0, 1, 2, 3, 4].map((m) => [m, full.series.provisioned[m], full.series.violationMinutes.includes(m)]),
    );
    expect(seen.map((s) => s.minute)).toEqual([0, 1, 2, 3, 4]);
    expect(stopped.stoppedAt).toBe(4);
    expect(full.stoppedAt).toBeUndefined();
    expect(stopped.series.provisioned.slice(0, 5)).toEqual(full.series.provisioned.slice(0, 5));
    // Its figures cover minutes 0-4 only.
    const bad = full.series.violationMinutes.filter((m) => m <= 4);
    expect(stopped.summary.violationMinutes).toBe(bad.length);
    expect(stopped.summary.violationRatio).toBe(bad.length / 5);
    const billed = full.series.provisioned.slice(0, 5).reduce((a, b) => a + b, 0);
    expect(stopped.summary.instanceMinutes).toBe(billed);
  });
});
