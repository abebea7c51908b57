/**
 * Multi-signal target tracking: each proportional signal proposes ceil(capacity x value /
 * target); any breaching signal may scale out, scale-in needs every signal below its band, and
 * the largest proposal wins. Damping is off (UNDAMPED) so one decision shows the raw math. A
 * breach confirmed over N periods is sized on the highest proposal of those periods.
 */
import { describe, expect, it } from 'vitest';
import { decide } from '#shared/engine/decide.ts';
import { ceilCapacity } from '#shared/engine/signals.ts';
import { at, runTimeline, snapshot, type Tick, targetPolicy, UNDAMPED } from './harness.ts';

const policy = targetPolicy({
  scaling: { minCapacity: 1, maxCapacity: 200 },
  signals: [
    { metric: 'invocationsPerInstance', target: 100 },
    { metric: 'gpuUtilization', target: 70 },
    { metric: 'queueDepthPerInstance', target: 4, tolerance: 0.25 },
  ],
  damping: UNDAMPED,
  panic: { enabled: false },
});

describe('target tracking over several signals', () => {
  it.each([
    {
      case: 'every signal at target holds',
      desired: 10,
      values: { invocationsPerInstance: 100, gpuUtilization: 70, queueDepthPerInstance: 4 },
      expected: [10, 'hold', ['WithinBand']],
    },
    {
      case: 'one signal 50 % over target scales out to ceil(10 x 1.5) = 15',
      desired: 10,
      values: { invocationsPerInstance: 150, gpuUtilization: 70, queueDepthPerInstance: 4 },
      expected: [15, 'scale-out', ['ScaleOutBreach']],
    },
    {
      case: 'a signal inside its 10 % band is left alone (105 of 100)',
      desired: 10,
      values: { invocationsPerInstance: 105, gpuUtilization: 70, queueDepthPerInstance: 4 },
      expected: [10, 'hold', ['WithinBand']],
    },
    {
      case: 'a signal just past its band scales out by the rounded-up proposal (111 -> 12)',
      desired: 10,
      values: { invocationsPerInstance: 111, gpuUtilization: 70, queueDepthPerInstance: 4 },
      expected: [12, 'scale-out', ['ScaleOutBreach']],
    },
    {
      case: 'each signal has its own band: queue depth 4.9 of 4 is within its 25 %',
      desired: 10,
      values: { invocationsPerInstance: 100, gpuUtilization: 70, queueDepthPerInstance: 4.9 },
      expected: [10, 'hold', ['WithinBand']],
    },
    {
      case: 'the largest proposal wins: GPU at 2x (20) beats invocations at 1.5x (15)',
      desired: 10,
      values: { invocationsPerInstance: 150, gpuUtilization: 140, queueDepthPerInstance: 4 },
      expected: [20, 'scale-out', ['ScaleOutBreach']],
    },
    {
      case: 'one signal asking is enough to scale out, even with the others far below target',
      desired: 10,
      values: { invocationsPerInstance: 30, gpuUtilization: 20, queueDepthPerInstance: 6 },
      expected: [15, 'scale-out', ['ScaleOutBreach']],
    },
    {
      case: 'scale-in waits while any signal is inside its band',
      desired: 10,
      values: { invocationsPerInstance: 50, gpuUtilization: 70, queueDepthPerInstance: 1 },
      expected: [10, 'hold', ['WithinBand']],
    },
    {
      case: 'when every signal is below its band, scale-in goes to the largest proposal (GPU 0.6 -> 6)',
      desired: 10,
      values: { invocationsPerInstance: 50, gpuUtilization: 42, queueDepthPerInstance: 1 },
      expected: [6, 'scale-in', ['ScaleInBreach']],
    },
    {
      case: 'a scale-in that rounds up to the current capacity holds (3 x 0.85 -> 3)',
      desired: 3,
      values: { invocationsPerInstance: 85, gpuUtilization: 50, queueDepthPerInstance: 2 },
      expected: [3, 'hold', ['WithinBand']],
    },
    {
      case: 'float noise does not add an instance: 25 x 112/100 is 28, not 29',
      desired: 25,
      values: { invocationsPerInstance: 112, gpuUtilization: 70, queueDepthPerInstance: 4 },
      expected: [28, 'scale-out', ['ScaleOutBreach']],
    },
    {
      case: 'zero load everywhere scales in to one instance (never to zero without scaleToZero)',
      desired: 8,
      values: { invocationsPerInstance: 0, gpuUtilization: 0, queueDepthPerInstance: 0 },
      expected: [1, 'scale-in', ['ScaleInBreach']],
    },
  ])('$case', ({ desired, values, expected }) => {
    const { decision } = decide(undefined, snapshot({ now: at(0), desired, values }), policy, at(0));
    expect([decision.desiredCapacity, decision.action, decision.reasons]).toEqual(expected);
  });
});

describe('the instances a per-instance value describes', () => {
  const one = targetPolicy({
    scaling: { minCapacity: 1, maxCapacity: 200 },
    damping: UNDAMPED,
    panic: { enabled: false },
  });
  it.each([
    {
      case: 'with no basis the ready count is used: 5 ready at 300 ask for 15 of 10 desired',
      spec: { desired: 10, ready: 5, values: { invocationsPerInstance: 300 } },
      expected: [15, ['ScaleOutBreach']],
    },
    {
      case: 'instances already starting cover a breach: 5 ready at 150 ask for 8, 10 are coming',
      spec: { desired: 10, ready: 5, values: { invocationsPerInstance: 150 } },
      expected: [10, ['CapacityPending']],
    },
    {
      case: 'a reading averaged over 4 instances is scaled from 4, not from the 10 now ready',
      spec: { desired: 10, basis: 4, values: { invocationsPerInstance: 200 } },
      expected: [10, ['CapacityPending']],
    },
    {
      case: 'the basis also sizes a scale-in: 4 instances at 50 need 2',
      spec: { desired: 10, basis: 4, values: { invocationsPerInstance: 50 } },
      expected: [2, ['ScaleInBreach']],
    },
    {
      case: 'with nothing ready the desired count is the basis',
      spec: { desired: 4, ready: 0, values: { invocationsPerInstance: 200 } },
      expected: [8, ['ScaleOutBreach']],
    },
  ])('$case', ({ spec, expected }) => {
    const { decision } = decide(undefined, snapshot({ now: at(0), ...spec }), one, at(0));
    expect([decision.desiredCapacity, decision.reasons]).toEqual(expected);
  });
});

describe('a confirmed breach is sized on its peak (N = 2 unless stated)', () => {
  const confirmed = (damping: Record<string, unknown> = {}) =>
    targetPolicy({
      scaling: { minCapacity: 1, maxCapacity: 200 },
      damping: { ...UNDAMPED, scaleOutBreaches: 2, scaleInBreaches: 2, ...damping },
      panic: { enabled: false },
    });
  const inv = (invocationsPerInstance: number) => ({ invocationsPerInstance });
  it.each<{ case: string; damping?: Record<string, unknown>; start: number; ticks: Tick[] }>([
    {
      case: 'a ramp that dips in its last confirming period is covered at its peak: 28 x 1.41 -> 40, not 28 x 1.33 -> 38',
      start: 28,
      ticks: [
        { t: 0, values: inv(141), expect: [28, ['ScaleOutAwaitingBreaches']] },
        { t: 1, values: inv(133), expect: [40, ['ScaleOutBreach', 'BreachPeak']] },
      ],
    },
    {
      case: 'a rising breach is sized on its newest period and needs no BreachPeak',
      start: 10,
      ticks: [
        { t: 0, values: inv(120), expect: [10, ['ScaleOutAwaitingBreaches']] },
        { t: 1, values: inv(150), expect: [15, ['ScaleOutBreach']] },
      ],
    },
    {
      case: 'a breach that lapsed does not size the next one, however long the window',
      damping: { scaleInStabilizationSeconds: 600 },
      start: 10,
      ticks: [
        { t: 0, values: inv(300), expect: [10, ['ScaleOutAwaitingBreaches']] },
        { t: 1, values: inv(100), expect: [10, ['WithinBand']] },
        { t: 2, values: inv(130), expect: [10, ['ScaleOutAwaitingBreaches']] },
        { t: 3, values: inv(130), expect: [13, ['ScaleOutBreach']] },
      ],
    },
    {
      case: 'only the last N periods of a longer breach count: the 25 of t0 is two periods old at t2',
      damping: { scaleInStabilizationSeconds: 600 },
      start: 20,
      ticks: [
        // 10 of 20 are ready throughout: at t1 the 10 still starting cover the proposal of 18.
        { t: 0, ready: 10, values: inv(250), expect: [20, ['ScaleOutAwaitingBreaches']] },
        { t: 1, ready: 10, values: inv(180), expect: [20, ['CapacityPending']] },
        { t: 2, ready: 10, values: inv(210), expect: [21, ['ScaleOutBreach']] },
      ],
    },
    {
      case: 'with N = 3 and a one-period stabilization window, all three confirming periods are kept',
      damping: { scaleOutBreaches: 3, scaleInBreaches: 3, scaleInStabilizationSeconds: 60 },
      start: 10,
      ticks: [
        { t: 0, values: inv(150), expect: [10, ['ScaleOutAwaitingBreaches']] },
        { t: 1, values: inv(140), expect: [10, ['ScaleOutAwaitingBreaches']] },
        { t: 2, values: inv(120), expect: [15, ['ScaleOutBreach', 'BreachPeak']] },
      ],
    },
    {
      case: 'the peak still passes the step limit: 30 asked, +7 allowed',
      damping: { stepUp: { instances: 7, percent: 0 } },
      start: 10,
      ticks: [
        { t: 0, values: inv(300), expect: [10, ['ScaleOutAwaitingBreaches']] },
        { t: 1, values: inv(150), expect: [17, ['ScaleOutBreach', 'BreachPeak', 'StepLimitUp']] },
      ],
    },
  ])('$case', ({ damping, start, ticks }) => {
    expect(runTimeline(confirmed(damping), start, ticks).outcomes).toEqual(ticks.map((t) => t.expect));
  });
});

describe('ceilCapacity', () => {
  it.each([
    { case: 'a whole number stays itself', x: 3, expected: 3 },
    { case: 'float noise just above a whole number rounds down to it', x: 55.00000000000001, expected: 55 },
    { case: 'a real fraction rounds up', x: 3.3000000000000003, expected: 4 },
    { case: 'zero stays zero', x: 0, expected: 0 },
    { case: 'a tiny positive demand still needs one instance', x: 0.001, expected: 1 },
    { case: 'nothing is ever negative', x: -2, expected: 0 },
  ])('$case', ({ x, expected }) => {
    expect(ceilCapacity(x)).toBe(expected);
  });
});
