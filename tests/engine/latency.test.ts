/**
 * p95 latency guards an SLO instead of tracking a target: above sloMs x (1 + tolerance) it
 * asks for capacity x (p95 / SLO), capped at maxScaleOutFactor; above scaleInBlockFraction x
 * SLO it blocks scale-in; below that it lets the load signals decide.
 */
import { describe, expect, it } from 'vitest';
import { decide } from '#shared/engine/decide.ts';
import { at, snapshot, targetPolicy, UNDAMPED } from './harness.ts';

const policy = targetPolicy({
  scaling: { minCapacity: 1, maxCapacity: 100 },
  signals: [
    { metric: 'invocationsPerInstance', target: 100 },
    { metric: 'p95LatencyMs', sloMs: 2000 },
  ],
  damping: UNDAMPED,
  panic: { enabled: false },
});

describe('latency as a guard (SLO 2000 ms, tolerance 5 %, block above 80 %, factor at most 2)', () => {
  it.each([
    {
      case: 'p95 25 % over the SLO scales out in proportion: 10 x 1.25 = 13',
      desired: 10,
      values: { invocationsPerInstance: 100, p95LatencyMs: 2500 },
      expected: [13, ['LatencyGuard']],
    },
    {
      case: 'p95 at 2.5x the SLO asks for at most 2x capacity',
      desired: 10,
      values: { invocationsPerInstance: 100, p95LatencyMs: 5000 },
      expected: [20, ['LatencyGuard']],
    },
    {
      case: 'p95 inside the 5 % tolerance over the SLO is not a breach',
      desired: 10,
      values: { invocationsPerInstance: 100, p95LatencyMs: 2090 },
      expected: [10, ['WithinBand']],
    },
    {
      case: 'a load signal asking for more than latency wins, and says so',
      desired: 10,
      values: { invocationsPerInstance: 150, p95LatencyMs: 2500 },
      expected: [15, ['ScaleOutBreach']],
    },
    {
      case: 'latency asking for more than the load signal wins, and says so',
      desired: 10,
      values: { invocationsPerInstance: 120, p95LatencyMs: 3000 },
      expected: [15, ['LatencyGuard']],
    },
    {
      case: 'low load does not scale in while p95 is above 80 % of the SLO',
      desired: 10,
      values: { invocationsPerInstance: 50, p95LatencyMs: 1800 },
      expected: [10, ['ScaleInBlockedByLatency']],
    },
    {
      case: 'low load scales in once p95 is below 80 % of the SLO',
      desired: 10,
      values: { invocationsPerInstance: 50, p95LatencyMs: 1500 },
      expected: [5, ['ScaleInBreach']],
    },
    {
      case: 'p95 exactly at 80 % of the SLO does not block scale-in',
      desired: 10,
      values: { invocationsPerInstance: 50, p95LatencyMs: 1600 },
      expected: [5, ['ScaleInBreach']],
    },
    {
      case: 'latency never scales in by itself: low latency with load in band holds',
      desired: 10,
      values: { invocationsPerInstance: 100, p95LatencyMs: 200 },
      expected: [10, ['WithinBand']],
    },
    {
      case: 'a latency breach sized from ready instances is covered by those still starting',
      desired: 10,
      ready: 5,
      values: { invocationsPerInstance: 100, p95LatencyMs: 3000 },
      expected: [10, ['CapacityPending']],
    },
  ])('$case', ({ desired, ready, values, expected }) => {
    const { decision } = decide(undefined, snapshot({ now: at(0), desired, ready, values }), policy, at(0));
    expect([decision.desiredCapacity, decision.reasons]).toEqual(expected);
  });
});

describe('latency settings', () => {
  it.each([
    {
      case: 'a stricter block fraction (0.5) holds scale-in at 60 % of the SLO',
      signal: { metric: 'p95LatencyMs', sloMs: 2000, scaleInBlockFraction: 0.5 },
      values: { invocationsPerInstance: 50, p95LatencyMs: 1200 },
      expected: [10, ['ScaleInBlockedByLatency']],
    },
    {
      case: 'a larger maxScaleOutFactor (4) lets p95 at 3x the SLO triple capacity',
      signal: { metric: 'p95LatencyMs', sloMs: 2000, maxScaleOutFactor: 4 },
      values: { invocationsPerInstance: 100, p95LatencyMs: 6000 },
      expected: [30, ['LatencyGuard']],
    },
    {
      case: 'p99 guards the same way against its own SLO',
      signal: { metric: 'p99LatencyMs', sloMs: 4000 },
      values: { invocationsPerInstance: 100, p99LatencyMs: 6000 },
      expected: [15, ['LatencyGuard']],
    },
    {
      case: 'a zero tolerance makes any excess over the SLO a breach',
      signal: { metric: 'p95LatencyMs', sloMs: 2000, tolerance: 0 },
      values: { invocationsPerInstance: 100, p95LatencyMs: 2010 },
      expected: [11, ['LatencyGuard']],
    },
  ])('$case', ({ signal, values, expected }) => {
    const p = targetPolicy({
      scaling: { minCapacity: 1, maxCapacity: 100 },
      signals: [{ metric: 'invocationsPerInstance', target: 100 }, signal],
      damping: UNDAMPED,
      panic: { enabled: false },
    });
    const { decision } = decide(undefined, snapshot({ now: at(0), desired: 10, values }), p, at(0));
    expect([decision.desiredCapacity, decision.reasons]).toEqual(expected);
  });

  it('a latency-only policy scales out on the SLO and never scales in', () => {
    const p = targetPolicy({ signals: [{ metric: 'p95LatencyMs', sloMs: 2000 }], damping: UNDAMPED });
    const outcome = (p95: number) =>
      decide(undefined, snapshot({ now: at(0), desired: 10, values: { p95LatencyMs: p95 } }), p, at(0))
        .decision.desiredCapacity;
    expect([outcome(3000), outcome(1000), outcome(10)]).toEqual([15, 10, 10]);
  });
});
