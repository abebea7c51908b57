import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  AlarmStreaks,
  AWS_DEFAULTS,
  awsTargetTrackingPolicy,
} from '#shared/backtest/policies/aws-target-tracking.ts';
import { datapoints, metricsOf, repeat, viewOf } from './views.ts';

// Target 10 requests per instance per minute: the high alarm is > 10, the low alarm < 9.
const policy = () => awsTargetTrackingPolicy({ name: 'aws-target-tracking', target: 10, ...AWS_DEFAULTS });

describe('AWS target tracking: the high alarm (3 of 3 above target)', () => {
  it.each([
    { case: 'two datapoints above target are not enough', values: [20, 20], ready: 4, desired: 4 },
    // ceil(4 x 20 / 10) = 8.
    {
      case: 'three in a row above target scale 4 instances to ceil(4 x 20 / 10) = 8',
      values: [5, 20, 20, 20],
      ready: 4,
      desired: 8,
    },
    { case: 'a dip inside the three resets the alarm', values: [20, 20, 9, 20], ready: 4, desired: 4 },
    { case: 'a datapoint at the target is not above it', values: [20, 20, 10], ready: 4, desired: 4 },
    // Capacity is the instances in service now: 6 x 15 / 10 = 9 (the lagging datapoint over-counts).
    {
      case: 'capacity is the instances in service now: 6 ready x 15 / 10 = 9',
      values: [15, 15, 15],
      ready: 6,
      desired: 9,
    },
  ])('$case', ({ values, ready, desired }) => {
    expect(policy().decide(viewOf(values, ready), values.length)).toBe(desired);
  });
});

describe('AWS target tracking: the low alarm (15 of 15 below 0.9 x target)', () => {
  it.each([
    // ceil(10 x 8 / 10) = 8.
    { case: '15 datapoints below 9 scale 10 instances in to 8', values: repeat(8, 15), desired: 8 },
    { case: '14 are not enough', values: repeat(8, 14), desired: 10 },
    { case: 'one datapoint at 0.9 x target keeps the alarm OK', values: [...repeat(8, 14), 9], desired: 10 },
    {
      case: 'a missing datapoint never scales in',
      values: [...repeat(8, 7), Number.NaN, ...repeat(8, 7)],
      desired: 10,
    },
  ])('$case', ({ values, desired }) => {
    expect(policy().decide(viewOf(values, 10), values.length)).toBe(desired);
  });

  it('holds when the newest datapoint is missing, whatever the alarms say', () => {
    expect(policy().decide(viewOf([20, 20, 20, Number.NaN], 4), 4)).toBe(4);
  });
});

describe('AWS target tracking: cooldowns (300 s each)', () => {
  it('blocks a second scale-in for five minutes after a scale-in', () => {
    const p = policy();
    expect(p.decide(viewOf(repeat(8, 15), 10), 20)).toBe(8);
    // Still in ALARM: ceil(8 x 6 / 10) = 5, but within the scale-in cooldown.
    expect(p.decide(viewOf(repeat(6, 16), 8), 21)).toBe(8);
    expect(p.decide(viewOf(repeat(6, 19), 8), 24)).toBe(8);
    expect(p.decide(viewOf(repeat(6, 20), 8), 25)).toBe(5);
  });

  it('scales out at once during a scale-in cooldown, and the scale-out ends that cooldown', () => {
    const p = policy();
    // One timeline, as the feed delivers it: 15 datapoints below 9 scale in, three above 10 then
    // scale out inside the scale-in cooldown, and 15 below again scale in at once.
    const low = repeat(8, 15);
    const high = [...low, 20, 20, 20];
    expect(p.decide(viewOf(low, 10), 20)).toBe(8);
    expect(p.decide(viewOf(high, 8), 21)).toBe(16);
    // Low again right away: ceil(16 x 5 / 10) = 8, allowed because the scale-out ended the cooldown.
    expect(p.decide(viewOf([...high, ...repeat(5, 15)], 16), 22)).toBe(8);
  });

  it('within the scale-out cooldown, only a larger scale-out proceeds (the capacity added counts)', () => {
    const p = policy();
    expect(p.decide(viewOf([5, 20, 20, 20], 4), 10)).toBe(8);
    // 4 ready + 4 starting; the lagging metric still asks for 8: nothing more.
    expect(p.decide(viewOf([5, 20, 20, 20, 20], 4, 4), 11)).toBe(8);
    // Demand grew: ceil(4 x 25 / 10) = 10 > 8 proceeds inside the cooldown.
    expect(p.decide(viewOf([5, 20, 20, 20, 20, 25], 4, 4), 12)).toBe(10);
  });
});

describe('AWS target tracking: the alarms counted as datapoints arrive', () => {
  /** The alarm as AWS states it: the newest `points` (before the newest `lag`) all present and breaching. */
  const mOfM = (values: readonly number[], points: number, breaches: (v: number) => boolean, lag: number) => {
    const end = values.length - lag;
    if (end < points) return false;
    return values.slice(end - points, end).every((v) => Number.isFinite(v) && breaches(v));
  };

  it('answers as reading the last M datapoints every minute would, gaps included', () => {
    const value = fc.oneof(fc.double({ min: 0, max: 30, noNaN: true }), fc.constant(Number.NaN));
    fc.assert(
      fc.property(
        fc.array(value, { maxLength: 60 }),
        fc.integer({ min: 1, max: 15 }),
        fc.integer({ min: 0, max: 3 }),
        fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 60 }),
        (values, points, lag, steps) => {
          const above = (v: number) => v > 10;
          const below = (v: number) => v < 9;
          const streaks = new AlarmStreaks('invocationsPerInstance', above, below);
          // The feed shows 0, 1, 2 or 3 more datapoints at each look, as a delay or a gap would.
          let shown = 0;
          for (const step of [...steps, values.length]) {
            shown = Math.min(values.length, shown + step);
            const visible = values.slice(0, shown);
            streaks.update(metricsOf(datapoints(visible, 1)));
            expect(streaks.high(points)).toBe(mOfM(visible, points, above, 0));
            expect(streaks.low(points, lag)).toBe(mOfM(visible, points, below, lag));
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
