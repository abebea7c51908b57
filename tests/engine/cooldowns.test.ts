/**
 * Cooldowns as timelines: after a scale-out only a step at least as large may pass within
 * scaleOutCooldownSeconds; after a scale-in no scale-in within scaleInCooldownSeconds, and a
 * scale-out ends that cooldown.
 */
import { describe, expect, it } from 'vitest';
import { runTimeline, type Tick, targetPolicy, UNDAMPED } from './harness.ts';

const inv = (invocationsPerInstance: number) => ({ invocationsPerInstance });

describe('scale-out cooldown (300 s)', () => {
  it.each<{
    case: string;
    damping?: object;
    start?: number;
    minCapacity?: number;
    maxCapacity?: number;
    ticks: Tick[];
  }>([
    {
      case: 'a smaller scale-out within the cooldown waits',
      ticks: [
        { t: 0, values: inv(150), expect: [15, ['ScaleOutBreach']] },
        { t: 1, values: inv(120), expect: [15, ['ScaleOutCooldown']] },
      ],
    },
    {
      case: 'a scale-out as large as the last (+5) passes the cooldown',
      ticks: [
        { t: 0, values: inv(150), expect: [15, ['ScaleOutBreach']] },
        { t: 1, values: inv(133), expect: [20, ['ScaleOutBreach']] },
      ],
    },
    {
      case: 'a larger scale-out passes, and the next must match it',
      ticks: [
        { t: 0, values: inv(150), expect: [15, ['ScaleOutBreach']] },
        { t: 1, values: inv(160), expect: [24, ['ScaleOutBreach']] },
        { t: 2, values: inv(130), expect: [24, ['ScaleOutCooldown']] },
      ],
    },
    {
      case: 'the cooldown ends 300 s after the scale-out',
      ticks: [
        { t: 0, values: inv(150), expect: [15, ['ScaleOutBreach']] },
        { t: 4, values: inv(120), expect: [15, ['ScaleOutCooldown']] },
        { t: 5, values: inv(120), expect: [18, ['ScaleOutBreach']] },
      ],
    },
    {
      case: 'a step limited to +4 does not pass a cooldown started by +8 (raising minCapacity)',
      damping: { stepUp: { instances: 4, percent: 0 } },
      start: 2,
      minCapacity: 10,
      ticks: [
        { t: 0, values: inv(100), expect: [10, ['WithinBand', 'ClampedToMin']] },
        { t: 1, values: inv(200), expect: [10, ['ScaleOutCooldown']] },
        { t: 5, values: inv(200), expect: [14, ['ScaleOutBreach', 'StepLimitUp']] },
      ],
    },
    {
      case: 'a step cut below the last by maxCapacity does not pass',
      maxCapacity: 18,
      ticks: [
        { t: 0, values: inv(150), expect: [15, ['ScaleOutBreach']] },
        { t: 1, values: inv(200), expect: [15, ['ScaleOutCooldown']] },
        { t: 5, values: inv(200), expect: [18, ['ScaleOutBreach', 'ClampedToMax']] },
      ],
    },
    {
      case: 'a zero cooldown lets every breach act',
      damping: { scaleOutCooldownSeconds: 0 },
      ticks: [
        { t: 0, values: inv(150), expect: [15, ['ScaleOutBreach']] },
        { t: 1, values: inv(120), expect: [18, ['ScaleOutBreach']] },
      ],
    },
  ])('$case', ({ damping, start = 10, minCapacity = 1, maxCapacity = 100, ticks }) => {
    const policy = targetPolicy({
      scaling: { minCapacity, maxCapacity },
      damping: { ...UNDAMPED, scaleOutCooldownSeconds: 300, ...damping },
      panic: { enabled: false },
    });
    expect(runTimeline(policy, start, ticks).outcomes).toEqual(ticks.map((t) => t.expect));
  });
});

describe('scale-in cooldown (300 s, one instance a period)', () => {
  const policy = targetPolicy({
    damping: {
      ...UNDAMPED,
      scaleInCooldownSeconds: 300,
      stepDown: { instances: 1, percent: 0 },
    },
    panic: { enabled: false },
  });
  it.each<{ case: string; ticks: Tick[] }>([
    {
      case: 'no scale-in within 300 s of the last, then the next step',
      ticks: [
        { t: 0, values: inv(50), expect: [9, ['ScaleInBreach', 'StepLimitDown']] },
        ...[1, 2, 3, 4].map((t): Tick => ({ t, values: inv(50), expect: [9, ['ScaleInCooldown']] })),
        { t: 5, values: inv(50), expect: [8, ['ScaleInBreach', 'StepLimitDown']] },
      ],
    },
    {
      case: 'a scale-out ends the scale-in cooldown',
      ticks: [
        { t: 0, values: inv(50), expect: [9, ['ScaleInBreach', 'StepLimitDown']] },
        { t: 1, values: inv(150), expect: [14, ['ScaleOutBreach']] },
        { t: 2, values: inv(50), expect: [13, ['ScaleInBreach', 'StepLimitDown']] },
      ],
    },
    {
      case: 'the scale-in cooldown never holds back a scale-out',
      ticks: [
        { t: 0, values: inv(50), expect: [9, ['ScaleInBreach', 'StepLimitDown']] },
        { t: 1, values: inv(200), expect: [18, ['ScaleOutBreach']] },
      ],
    },
  ])('$case', ({ ticks }) => {
    expect(runTimeline(policy, 10, ticks).outcomes).toEqual(ticks.map((t) => t.expect));
  });
});

describe('cooldowns end each other', () => {
  it('a scale-in ends the scale-out cooldown: a small scale-out may follow it', () => {
    const policy = targetPolicy({
      damping: { ...UNDAMPED, scaleOutCooldownSeconds: 600 },
      panic: { enabled: false },
    });
    const ticks: Tick[] = [
      { t: 0, values: inv(150), expect: [15, ['ScaleOutBreach']] },
      { t: 1, values: inv(120), expect: [15, ['ScaleOutCooldown']] },
      { t: 2, values: inv(60), expect: [9, ['ScaleInBreach']] },
      { t: 3, values: inv(120), expect: [11, ['ScaleOutBreach']] },
    ];
    expect(runTimeline(policy, 10, ticks).outcomes).toEqual(ticks.map((t) => t.expect));
  });
});
