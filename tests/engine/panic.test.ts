/**
 * Panic mode: a proportional signal at or above panic.threshold x target for panic.periods
 * consecutive periods scales out at once (no breach count, no cooldown) and blocks scale-in
 * until the signal has stayed below the threshold for stableWindowSeconds.
 */
import { describe, expect, it } from 'vitest';
import { repeat, runTimeline, type Tick, targetPolicy, UNDAMPED } from './harness.ts';

const inv = (invocationsPerInstance: number) => ({ invocationsPerInstance });

/** Damped as in production (N 3, M 3, 300 s cooldown) so panic's shortcuts are visible. */
const damping = { ...UNDAMPED, scaleOutBreaches: 3, scaleInBreaches: 3, scaleOutCooldownSeconds: 300 };

describe('panic mode (threshold 2x, stable window 600 s)', () => {
  it.each<{
    case: string;
    panic?: object;
    stepUp?: object;
    tolerance?: number;
    start?: number;
    ticks: Tick[];
  }>([
    {
      case: 'load at 2.5x target scales out at once, without waiting for 3 breaches',
      ticks: [{ t: 0, values: inv(250), expect: [25, ['PanicScaleOut']] }],
    },
    {
      case: 'exactly 2x target is panic',
      ticks: [{ t: 0, values: inv(200), expect: [20, ['PanicScaleOut']] }],
    },
    {
      case: 'just under 2x target is an ordinary breach that waits',
      ticks: [{ t: 0, values: inv(199), expect: [10, ['ScaleOutAwaitingBreaches']] }],
    },
    {
      case: 'panic passes the scale-out cooldown',
      ticks: [
        { t: 0, values: inv(250), expect: [25, ['PanicScaleOut']] },
        { t: 1, values: inv(200), expect: [50, ['PanicScaleOut']] },
      ],
    },
    {
      case: 'panic still respects maxCapacity',
      start: 20,
      ticks: [{ t: 0, values: inv(400), expect: [50, ['PanicScaleOut', 'ClampedToMax']] }],
    },
    {
      case: 'panic still respects the step limit (+max(4, 100 %) from 10 is 20)',
      stepUp: { instances: 4, percent: 100 },
      ticks: [{ t: 0, values: inv(400), expect: [20, ['PanicScaleOut', 'StepLimitUp']] }],
    },
    {
      case: 'scale-in is blocked for 600 s after the last period at the threshold',
      ticks: [
        { t: 0, values: inv(250), expect: [25, ['PanicScaleOut']] },
        ...repeat(1, 9, inv(20), [25, ['PanicHold']]),
        { t: 10, values: inv(20), expect: [5, ['ScaleInBreach']] },
      ],
    },
    {
      case: 'another period at the threshold restarts the calm window',
      ticks: [
        { t: 0, values: inv(250), expect: [25, ['PanicScaleOut']] },
        ...repeat(1, 3, inv(20), [25, ['PanicHold']]),
        { t: 4, values: inv(200), expect: [50, ['PanicScaleOut']] },
        ...repeat(5, 9, inv(20), [50, ['PanicHold']]),
        { t: 14, values: inv(20), expect: [10, ['ScaleInBreach']] },
      ],
    },
    {
      case: 'with panic.periods 2, one period at the threshold waits like any breach',
      panic: { periods: 2 },
      ticks: [
        { t: 0, values: inv(250), expect: [10, ['ScaleOutAwaitingBreaches']] },
        { t: 1, values: inv(250), expect: [25, ['PanicScaleOut']] },
      ],
    },
    {
      case: 'with panic.periods 2, a single period at the threshold in the window still is not calm',
      panic: { periods: 2 },
      ticks: [
        { t: 0, values: inv(250), expect: [10, ['ScaleOutAwaitingBreaches']] },
        { t: 1, values: inv(250), expect: [25, ['PanicScaleOut']] },
        ...repeat(2, 4, inv(80), [25, ['PanicHold']]),
        { t: 6, values: inv(200), expect: [25, ['ScaleOutAwaitingBreaches']] },
        ...repeat(7, 9, inv(20), [25, ['PanicHold']]),
        { t: 16, values: inv(20), expect: [5, ['ScaleInBreach']] },
      ],
    },
    {
      case: 'a threshold inside a wide dead band still scales out (1.5x with tolerance 0.6)',
      panic: { threshold: 1.5 },
      tolerance: 0.6,
      ticks: [{ t: 0, values: inv(155), expect: [16, ['PanicScaleOut']] }],
    },
    {
      case: 'a higher threshold (3x) leaves 2.5x to ordinary damping',
      panic: { threshold: 3 },
      ticks: [{ t: 0, values: inv(250), expect: [10, ['ScaleOutAwaitingBreaches']] }],
    },
    {
      case: 'panic disabled leaves even 5x to ordinary damping',
      panic: { enabled: false },
      ticks: [{ t: 0, values: inv(500), expect: [10, ['ScaleOutAwaitingBreaches']] }],
    },
  ])('$case', ({ panic, stepUp = damping.stepUp, tolerance = 0.1, start = 10, ticks }) => {
    const policy = targetPolicy({
      scaling: { minCapacity: 1, maxCapacity: 50 },
      signals: [{ metric: 'invocationsPerInstance', target: 100, tolerance }],
      damping: { ...damping, stepUp },
      panic,
    });
    expect(runTimeline(policy, start, ticks).outcomes).toEqual(ticks.map((t) => t.expect));
  });

  it('the decision says it is in panic for exactly the stable window', () => {
    const policy = targetPolicy({ damping, panic: { stableWindowSeconds: 180 } });
    const ticks = [0, 1, 2, 3].map((t): Tick => ({ t, values: inv(t === 0 ? 250 : 100), expect: [0, []] }));
    const { decisions, states } = runTimeline(policy, 10, ticks);
    expect(decisions.map((d) => d.panic)).toEqual([true, true, true, false]);
    expect(states.map((s) => s.panicUntil !== null)).toEqual([true, true, true, false]);
  });

  it('latency far over the SLO is not panic: it is a guard with its own damping', () => {
    const policy = targetPolicy({
      signals: [
        { metric: 'invocationsPerInstance', target: 100 },
        { metric: 'p95LatencyMs', sloMs: 1000 },
      ],
      damping,
    });
    const ticks: Tick[] = [
      {
        t: 0,
        values: { invocationsPerInstance: 100, p95LatencyMs: 5000 },
        expect: [10, ['ScaleOutAwaitingBreaches']],
      },
    ];
    expect(runTimeline(policy, 10, ticks).outcomes).toEqual(ticks.map((t) => t.expect));
  });
});
