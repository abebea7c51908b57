/**
 * A synthetic BacktestResult shaped like a real one: a daily demand wave with bursts, the
 * oracle from it, and policies that follow the oracle late (so they violate the SLO in bursts)
 * or early (so they cost more), with Governor's decisions at every change. Deterministic.
 */
import type { BacktestResult, DecisionMark, PolicyRun } from '#shared/backtest/types.ts';

export interface FixtureOptions {
  minutes?: number;
  traceName?: string;
  policyNames?: string[];
  message?: string;
  forecast?: boolean;
  /** Whether the first policy is Governor, with decisions and reason counts (default true). */
  governed?: boolean;
  /**
   * The forecast is 0 before this minute, as the backtest's look-ahead records it before its
   * first forecast (a day of history in: minute 1441 on a real run). Default 0.
   */
  forecastFrom?: number;
  /** A day (0 is the first) whose demand is a third higher, to make it the busiest. */
  busiestDay?: number;
}

const PEAK_INSTANCES = 40;

function demandAt(m: number, busiestDay?: number): number {
  const busy = Math.floor(m / 1440) === busiestDay ? 4 / 3 : 1;
  const daily = 0.55 + 0.4 * Math.sin((2 * Math.PI * (m - 360)) / 1440);
  const burst = m % 997 < 25 ? 0.35 : 0;
  const wiggle = 0.05 * Math.sin(m * 0.7) + 0.03 * Math.sin(m * 2.3);
  return Math.max(0, Math.round(500 * busy * (daily + burst + wiggle)));
}

/** A policy that sets capacity to the oracle `lag` minutes late, times `headroom`, changing in steps. */
function follower(
  name: string,
  oracle: number[],
  demand: number[],
  mu: number,
  lag: number,
  headroom: number,
  governed: boolean,
  message: string,
): PolicyRun {
  const ready: number[] = [];
  const decisions: DecisionMark[] = [];
  let current = Math.ceil((oracle[0] ?? 1) * headroom);
  for (let m = 0; m < oracle.length; m++) {
    const want = Math.ceil((oracle[Math.max(0, m - lag)] ?? 1) * headroom);
    if (m % 15 === 0 && Math.abs(want - current) >= 3) {
      const action = want > current ? 'scale-out' : 'scale-in';
      const reasons =
        action === 'scale-out'
          ? (['ScaleOutBreach', 'StepLimitUp'] as const)
          : (['ScaleInStabilized'] as const);
      decisions.push({
        minute: m,
        action,
        from: current,
        to: want,
        reasons: [...reasons],
        message: `${message} (${current} -> ${want})`,
      });
      current = want;
    }
    ready.push(current);
  }
  const violationMinutes = ready.flatMap((r, m) => ((demand[m] ?? 0) > r * mu ? [m] : []));
  const instanceMinutes = ready.reduce((a, b) => a + b, 0);
  const oracleMinutes = oracle.reduce((a, b) => a + b, 0);
  return {
    summary: {
      name,
      instanceMinutes,
      costUsd: (instanceMinutes / 60) * 1.5,
      costVsOracle: instanceMinutes / oracleMinutes,
      violationMinutes: violationMinutes.length,
      violationRatio: violationMinutes.length / oracle.length,
      requestsInViolationRatio: violationMinutes.length / oracle.length / 2,
      scalingActions: decisions.length,
      ...(governed
        ? { reasonCounts: { ScaleOutBreach: 40, ScaleInStabilized: 31, WithinBand: 2900, StepLimitUp: 12 } }
        : {}),
    },
    series: {
      ready,
      provisioned: ready.map((r, m) => r + (m % 300 < 8 ? 2 : 0)),
      warmPool: ready.map(() => (governed ? 2 : 0)),
      violationMinutes,
    },
    ...(governed ? { decisions } : {}),
  };
}

export function syntheticResult(options: FixtureOptions = {}): BacktestResult {
  const minutes = options.minutes ?? 4320;
  const names = options.policyNames ?? [
    'governor',
    'target tracking (AWS default)',
    'target tracking (at mu)',
    'kubernetes HPA',
    'static peak',
  ];
  const message = options.message ?? 'invocations per instance above target for 3 periods';
  const demandOf = (m: number) => demandAt(m, options.busiestDay);
  const demand = Array.from({ length: minutes }, (_, m) => demandOf(m));
  const from = options.forecastFrom ?? 0;
  const band = (values: number[]) => values.map((v, m) => (m < from ? 0 : v));
  const peak = Math.max(...demand);
  const mu = peak / PEAK_INSTANCES;
  const oracle = demand.map((r) => Math.max(1, Math.ceil((r * PEAK_INSTANCES) / peak - 1e-9)));
  const shapes: [number, number][] = [
    [3, 1.1],
    [9, 1.3],
    [9, 1.0],
    [6, 1.15],
    [0, 0],
  ];
  const policies = names.map((name, i) => {
    if (i === names.length - 1 && names.length > 1)
      return follower(
        name,
        oracle.map(() => PEAK_INSTANCES),
        demand,
        mu,
        0,
        1,
        false,
        message,
      );
    const [lag, headroom] = shapes[i % (shapes.length - 1)]!;
    return follower(name, oracle, demand, mu, lag, headroom, i === 0 && options.governed !== false, message);
  });
  return {
    trace: {
      name: options.traceName ?? 'synthetic daily wave',
      minutes,
      totalRequests: demand.reduce((a, b) => a + b, 0),
      peakRequestsPerMinute: peak,
      resolution: 'minute',
    },
    scenario: {
      peakInstances: PEAK_INSTANCES,
      sloUtilization: 0.8,
      coldStartMinutes: 8,
      warmStartMinutes: 1,
      metricDelayMinutes: 1,
      minCapacity: 1,
      maxCapacity: 80,
      pricePerInstanceHour: 1.5,
      mu,
    },
    demand,
    oracle,
    ...(options.forecast === false
      ? {}
      : {
          forecast: {
            p50: band(demand.map((r, m) => 0.97 * demandOf(m + 1) + 0.03 * r)),
            p90: band(demand.map((r) => r * 1.12 + 4.25)),
            p99: band(demand.map((r) => r * 1.25 + 9.5)),
          },
        }),
    policies,
  };
}
