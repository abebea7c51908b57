/**
 * Hysteresis and stabilization as timelines, one tick a minute (period 60 s): N consecutive
 * breaching periods before a scale-out, M before a scale-in, and scale-in only down to the
 * highest recommendation of the stabilization window.
 */
import { describe, expect, it } from 'vitest';
import { decide } from '#shared/engine/decide.ts';
import { at, repeat, runTimeline, snapshot, type Tick, targetPolicy, UNDAMPED } from './harness.ts';

const HIGH = { invocationsPerInstance: 150 };
const OK = { invocationsPerInstance: 100 };
const LOW = { invocationsPerInstance: 50 };

describe('consecutive breaching periods (N = 2 out, M = 3 in)', () => {
  const policy = targetPolicy({
    damping: { ...UNDAMPED, scaleOutBreaches: 2, scaleInBreaches: 3 },
    panic: { enabled: false },
  });
  it.each<{ case: string; ticks: Tick[] }>([
    {
      case: 'a breach scales out on its second consecutive period',
      ticks: [
        { t: 0, values: HIGH, expect: [10, ['ScaleOutAwaitingBreaches']] },
        { t: 1, values: HIGH, expect: [15, ['ScaleOutBreach']] },
      ],
    },
    {
      case: 'a period back in band restarts the count',
      ticks: [
        { t: 0, values: HIGH, expect: [10, ['ScaleOutAwaitingBreaches']] },
        { t: 1, values: OK, expect: [10, ['WithinBand']] },
        { t: 2, values: HIGH, expect: [10, ['ScaleOutAwaitingBreaches']] },
        { t: 3, values: HIGH, expect: [15, ['ScaleOutBreach']] },
      ],
    },
    {
      case: 'one missed evaluation keeps the count (2 periods apart)',
      ticks: [
        { t: 0, values: HIGH, expect: [10, ['ScaleOutAwaitingBreaches']] },
        { t: 2, values: HIGH, expect: [15, ['ScaleOutBreach']] },
      ],
    },
    {
      case: 'two missed evaluations restart the count (3 periods apart)',
      ticks: [
        { t: 0, values: HIGH, expect: [10, ['ScaleOutAwaitingBreaches']] },
        { t: 3, values: HIGH, expect: [10, ['ScaleOutAwaitingBreaches']] },
        { t: 4, values: HIGH, expect: [15, ['ScaleOutBreach']] },
      ],
    },
    {
      case: 'an extra evaluation 30 s into a period does not count as a period',
      ticks: [
        { t: 0, values: HIGH, expect: [10, ['ScaleOutAwaitingBreaches']] },
        { t: 0.5, values: HIGH, expect: [10, ['ScaleOutAwaitingBreaches']] },
        { t: 1, values: HIGH, expect: [15, ['ScaleOutBreach']] },
      ],
    },
    {
      case: 'scale-in waits for its third consecutive period below the band',
      ticks: [
        ...repeat(0, 2, LOW, [10, ['ScaleInAwaitingBreaches']]),
        { t: 2, values: LOW, expect: [5, ['ScaleInBreach']] },
      ],
    },
    {
      case: 'a period in band restarts the scale-in count',
      ticks: [
        ...repeat(0, 2, LOW, [10, ['ScaleInAwaitingBreaches']]),
        { t: 2, values: OK, expect: [10, ['WithinBand']] },
        ...repeat(3, 2, LOW, [10, ['ScaleInAwaitingBreaches']]),
        { t: 5, values: LOW, expect: [5, ['ScaleInBreach']] },
      ],
    },
    {
      case: 'a breach the other way restarts the scale-in count',
      ticks: [
        ...repeat(0, 2, LOW, [10, ['ScaleInAwaitingBreaches']]),
        { t: 2, values: HIGH, expect: [10, ['ScaleOutAwaitingBreaches']] },
        ...repeat(3, 2, LOW, [10, ['ScaleInAwaitingBreaches']]),
      ],
    },
  ])('$case', ({ ticks }) => {
    expect(runTimeline(policy, 10, ticks).outcomes).toEqual(ticks.map((t) => t.expect));
  });
});

describe('scale-in stabilization', () => {
  it.each<{ case: string; windowSeconds: number; ticks: Tick[] }>([
    {
      case: 'scale-in holds at the in-band 10 of t0 until it leaves the 5-minute window',
      windowSeconds: 300,
      ticks: [
        { t: 0, values: OK, expect: [10, ['WithinBand']] },
        ...repeat(1, 4, LOW, [10, ['ScaleInStabilized']]),
        { t: 5, values: LOW, expect: [5, ['ScaleInBreach']] },
      ],
    },
    {
      case: 'scale-in goes to the highest recommendation of the window, above its own proposal',
      windowSeconds: 180,
      ticks: [
        { t: 0, values: OK, expect: [10, ['WithinBand']] },
        { t: 1, values: { invocationsPerInstance: 80 }, expect: [10, ['ScaleInStabilized']] },
        { t: 2, values: { invocationsPerInstance: 60 }, expect: [10, ['ScaleInStabilized']] },
        { t: 3, values: { invocationsPerInstance: 60 }, expect: [8, ['ScaleInBreach', 'ScaleInStabilized']] },
        { t: 4, values: { invocationsPerInstance: 75 }, expect: [6, ['ScaleInBreach']] },
      ],
    },
    {
      case: 'a scale-out recommendation in the window holds scale-in up too',
      windowSeconds: 180,
      ticks: [
        { t: 0, values: HIGH, expect: [15, ['ScaleOutBreach']] },
        { t: 1, values: { invocationsPerInstance: 40 }, expect: [15, ['ScaleInStabilized']] },
        { t: 2, values: { invocationsPerInstance: 40 }, expect: [15, ['ScaleInStabilized']] },
        { t: 3, values: { invocationsPerInstance: 40 }, expect: [6, ['ScaleInBreach']] },
      ],
    },
    {
      case: 'a window of one period applies the raw recommendation at once',
      windowSeconds: 60,
      ticks: [
        { t: 0, values: OK, expect: [10, ['WithinBand']] },
        { t: 1, values: LOW, expect: [5, ['ScaleInBreach']] },
      ],
    },
  ])('$case', ({ windowSeconds, ticks }) => {
    const policy = targetPolicy({
      damping: { ...UNDAMPED, scaleInStabilizationSeconds: windowSeconds },
      panic: { enabled: false },
    });
    expect(runTimeline(policy, 10, ticks).outcomes).toEqual(ticks.map((t) => t.expect));
  });

  it('the window keeps one recommendation per period, however often it is evaluated', () => {
    const policy = targetPolicy({ damping: { scaleInStabilizationSeconds: 300 } });
    const ticks = [0, 0.25, 0.5, 1, 1.5, 2].map((t) => ({
      t,
      values: OK,
      expect: [10, []] as Tick['expect'],
    }));
    const { states } = runTimeline(policy, 10, ticks);
    expect(states.at(-1)!.recommendations).toEqual([
      [at(0), 10],
      [at(1), 10],
      [at(2), 10],
    ]);
  });

  it('recommendations older than the window are dropped from the state', () => {
    const policy = targetPolicy({ damping: { scaleInStabilizationSeconds: 120 } });
    const ticks = repeat(0, 6, OK, [10, ['WithinBand']]);
    const { states } = runTimeline(policy, 10, ticks);
    expect(states.at(-1)!.recommendations.map(([t]) => (t - at(0)) / 60_000)).toEqual([4, 5]);
  });

  it('the default damping (N 2, M 10, window 300 s, -1 or 20 % a period) walks 10 down to 5 slowly', () => {
    const policy = targetPolicy({ damping: { scaleInCooldownSeconds: 0 } });
    let state: ReturnType<typeof decide>['state'] | undefined;
    let current = 10;
    const path: number[] = [];
    for (let t = 0; t < 20; t++) {
      // Load of 500 requests a minute spread over the current fleet: 5 instances' worth.
      const values = { invocationsPerInstance: 500 / current };
      const result = decide(state, snapshot({ now: at(t), desired: current, values }), policy, at(t));
      state = result.state;
      current = result.decision.desiredCapacity;
      path.push(current);
    }
    // Ten periods below the band, then -2 (20 % of 10), -1 (max(1, floor(8 x 0.2))), ...
    expect(path).toEqual([10, 10, 10, 10, 10, 10, 10, 10, 10, 8, 7, 6, 5, 5, 5, 5, 5, 5, 5, 5]);
  });
});
