/**
 * Scale to zero where the kind allows it (inference components, Auto Scaling groups). The
 * activation metric is a total, kept apart from the per-instance scaling targets (as in
 * KEDA): above its threshold a target at zero wakes to one instance; at or below it, a target
 * whose signals all agree to scale in may go to zero. Missing activation data keeps what runs.
 */
import { describe, expect, it } from 'vitest';
import { runTimeline, type Tick, targetPolicy, UNDAMPED, zeroPolicy } from './harness.ts';

const idle = { invocations: 0 };
const busy = { invocations: 12 };
const quiet = { invocationsPerInstance: 0 };

describe('to and from zero (activation: total invocations above 0)', () => {
  it.each<{ case: string; start: number; ticks: Tick[] }>([
    {
      case: 'a target at zero with no demand stays at zero',
      start: 0,
      ticks: [{ t: 0, values: {}, activation: idle, expect: [0, ['IdleAtZero']] }],
    },
    {
      case: 'a target at zero wakes to one instance when the activation total passes the threshold',
      start: 0,
      ticks: [{ t: 0, values: {}, activation: busy, expect: [1, ['ActivationFromZero']] }],
    },
    {
      case: 'a target at zero with no activation data holds with NoData',
      start: 0,
      ticks: [{ t: 0, values: {}, expect: [0, ['NoData']] }],
    },
    {
      case: 'a target at zero with stale activation data holds with NoData',
      start: 0,
      ticks: [{ t: 0, values: {}, activation: busy, ageSeconds: 600, expect: [0, ['NoData']] }],
    },
    {
      case: 'a woken target then scales on its per-instance signals',
      start: 0,
      ticks: [
        { t: 0, values: {}, activation: busy, expect: [1, ['ActivationFromZero']] },
        { t: 1, values: { invocationsPerInstance: 400 }, activation: busy, expect: [4, ['PanicScaleOut']] },
      ],
    },
    {
      case: 'one idle instance goes to zero',
      start: 1,
      ticks: [{ t: 0, values: quiet, activation: idle, expect: [0, ['ScaleInBreach', 'ScaleToZero']] }],
    },
    {
      case: 'an idle instance stays when the activation total is missing',
      start: 1,
      ticks: [{ t: 0, values: quiet, expect: [1, ['ScaleInBlockedByMissingData']] }],
    },
    {
      case: 'an idle instance stays while the activation total is above the threshold',
      start: 1,
      ticks: [{ t: 0, values: quiet, activation: busy, expect: [1, ['WithinBand']] }],
    },
    {
      case: 'an instance whose load signal is missing never goes to zero',
      start: 1,
      ticks: [{ t: 0, values: {}, activation: idle, expect: [1, ['NoData']] }],
    },
  ])('$case', ({ start, ticks }) => {
    const policy = zeroPolicy({ damping: UNDAMPED });
    expect(runTimeline(policy, start, ticks).outcomes).toEqual(ticks.map((t) => t.expect));
  });
});

describe('the activation threshold is separate from the scaling target', () => {
  // Target 100 invocations per instance; the target sleeps at 5 or fewer invocations a minute.
  const policy = zeroPolicy({ damping: UNDAMPED }, 5);
  it.each<{ case: string; start: number; ticks: Tick[] }>([
    {
      case: 'light traffic at or below the threshold lets one instance go to zero',
      start: 1,
      ticks: [
        {
          t: 0,
          values: { invocationsPerInstance: 5 },
          activation: { invocations: 5 },
          expect: [0, ['ScaleInBreach', 'ScaleToZero']],
        },
      ],
    },
    {
      case: 'traffic above the threshold keeps one instance, though far below the target',
      start: 1,
      ticks: [
        {
          t: 0,
          values: { invocationsPerInstance: 6 },
          activation: { invocations: 6 },
          expect: [1, ['WithinBand']],
        },
      ],
    },
    {
      case: 'traffic at or below the threshold does not wake a target at zero',
      start: 0,
      ticks: [{ t: 0, values: {}, activation: { invocations: 5 }, expect: [0, ['IdleAtZero']] }],
    },
    {
      case: 'traffic above the threshold wakes it',
      start: 0,
      ticks: [{ t: 0, values: {}, activation: { invocations: 6 }, expect: [1, ['ActivationFromZero']] }],
    },
  ])('$case', ({ start, ticks }) => {
    expect(runTimeline(policy, start, ticks).outcomes).toEqual(ticks.map((t) => t.expect));
  });
});

describe('scale-in to zero keeps its damping', () => {
  it('a fleet of 3 goes to zero one instance a period, after M quiet periods', () => {
    const policy = zeroPolicy({
      damping: { ...UNDAMPED, scaleInBreaches: 2, stepDown: { instances: 1, percent: 0 } },
    });
    const ticks: Tick[] = [
      { t: 0, values: quiet, activation: idle, expect: [3, ['ScaleInAwaitingBreaches']] },
      { t: 1, values: quiet, activation: idle, expect: [2, ['ScaleInBreach', 'StepLimitDown']] },
      { t: 2, values: quiet, activation: idle, expect: [1, ['ScaleInBreach', 'StepLimitDown']] },
      { t: 3, values: quiet, activation: idle, expect: [0, ['ScaleInBreach', 'ScaleToZero']] },
    ];
    expect(runTimeline(policy, 3, ticks).outcomes).toEqual(ticks.map((t) => t.expect));
  });

  it('the stabilization window holds the last instance until the window is all idle', () => {
    const policy = zeroPolicy({ damping: { ...UNDAMPED, scaleInStabilizationSeconds: 180 } }, 5);
    const ticks: Tick[] = [
      {
        t: 0,
        values: { invocationsPerInstance: 9 },
        activation: { invocations: 9 },
        expect: [1, ['WithinBand']],
      },
      {
        t: 1,
        values: { invocationsPerInstance: 2 },
        activation: { invocations: 2 },
        expect: [1, ['ScaleInStabilized']],
      },
      {
        t: 2,
        values: { invocationsPerInstance: 2 },
        activation: { invocations: 2 },
        expect: [1, ['ScaleInStabilized']],
      },
      {
        t: 3,
        values: { invocationsPerInstance: 2 },
        activation: { invocations: 2 },
        expect: [0, ['ScaleInBreach', 'ScaleToZero']],
      },
    ];
    expect(runTimeline(policy, 1, ticks).outcomes).toEqual(ticks.map((t) => t.expect));
  });

  it('without scaleToZero, zero load keeps minCapacity', () => {
    const policy = targetPolicy({ damping: UNDAMPED, scaling: { minCapacity: 1, maxCapacity: 10 } });
    const ticks: Tick[] = [
      { t: 0, values: quiet, expect: [1, ['ScaleInBreach']] },
      { t: 1, values: quiet, expect: [1, ['WithinBand']] },
    ];
    expect(runTimeline(policy, 4, ticks).outcomes).toEqual(ticks.map((t) => t.expect));
  });
});
