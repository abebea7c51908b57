/**
 * Step limits per period (the larger of an instance count and a percent of current capacity,
 * up and down) and the min/max clamp, as functions and through decide().
 */
import { describe, expect, it } from 'vitest';
import { decide } from '#shared/engine/decide.ts';
import { clamp, stepLimit } from '#shared/engine/limits.ts';
import { DampingSchema, ScalingSchema } from '#shared/policy/schema.ts';
import { at, snapshot, targetPolicy, UNDAMPED } from './harness.ts';

describe('stepLimit', () => {
  const damping = DampingSchema.parse({
    stepUp: { instances: 4, percent: 100 },
    stepDown: { instances: 1, percent: 20 },
  });
  it.each([
    {
      case: 'the worked example: 10 may grow by max(4, 100 %) = 10',
      current: 10,
      desired: 25,
      expected: [20, 'StepLimitUp'],
    },
    {
      case: 'the worked example: 10 may shrink by max(1, 20 %) = 2',
      current: 10,
      desired: 5,
      expected: [8, 'StepLimitDown'],
    },
    {
      case: 'a small fleet may still grow by the instance count (2 -> 6)',
      current: 2,
      desired: 9,
      expected: [6, 'StepLimitUp'],
    },
    {
      case: 'a percent that rounds to 0 leaves the instance count (3 -> 2)',
      current: 3,
      desired: 1,
      expected: [2, 'StepLimitDown'],
    },
    { case: 'the percent up rounds up: 5 x 100 % allows +5', current: 5, desired: 10, expected: [10, null] },
    {
      case: 'the percent down rounds down: 14 x 20 % = 2.8 allows -2',
      current: 14,
      desired: 10,
      expected: [12, 'StepLimitDown'],
    },
    { case: 'a change inside the limits passes untouched', current: 10, desired: 12, expected: [12, null] },
    {
      case: 'a change exactly at the limit passes untouched',
      current: 10,
      desired: 20,
      expected: [20, null],
    },
    { case: 'no change is no change', current: 7, desired: 7, expected: [7, null] },
    {
      case: 'growing from zero is limited by the instance count',
      current: 0,
      desired: 9,
      expected: [4, 'StepLimitUp'],
    },
  ])('$case', ({ current, desired, expected }) => {
    const { capacity, reason } = stepLimit(current, desired, damping);
    expect([capacity, reason]).toEqual(expected);
  });
});

describe('clamp', () => {
  const scaling = ScalingSchema.parse({ minCapacity: 2, maxCapacity: 10 });
  it.each([
    { case: 'below minCapacity is raised to it', desired: 1, expected: [2, 'ClampedToMin'] },
    { case: 'above maxCapacity is lowered to it', desired: 11, expected: [10, 'ClampedToMax'] },
    { case: 'the bounds themselves pass', desired: 10, expected: [10, null] },
    { case: 'inside the bounds passes', desired: 5, expected: [5, null] },
  ])('$case', ({ desired, expected }) => {
    const { capacity, reason } = clamp(desired, scaling);
    expect([capacity, reason]).toEqual(expected);
  });
});

describe('step limits and clamps in a decision (min 2, max 30; +max(4, 100 %), -max(1, 20 %))', () => {
  const policy = targetPolicy({
    scaling: { minCapacity: 2, maxCapacity: 30 },
    damping: { ...UNDAMPED, stepUp: { instances: 4, percent: 100 }, stepDown: { instances: 1, percent: 20 } },
    panic: { enabled: false },
  });
  it.each([
    {
      case: 'a scale-out past the step limit goes as far as the limit',
      desired: 10,
      values: { invocationsPerInstance: 250 },
      expected: [20, 'scale-out', ['ScaleOutBreach', 'StepLimitUp']],
    },
    {
      case: 'a scale-in past the step limit goes as far as the limit',
      desired: 10,
      values: { invocationsPerInstance: 50 },
      expected: [8, 'scale-in', ['ScaleInBreach', 'StepLimitDown']],
    },
    {
      case: 'a scale-out past maxCapacity stops at it',
      desired: 25,
      values: { invocationsPerInstance: 140 },
      expected: [30, 'scale-out', ['ScaleOutBreach', 'ClampedToMax']],
    },
    {
      case: 'a step limit and the max clamp both leave their reasons',
      desired: 20,
      values: { invocationsPerInstance: 300 },
      expected: [30, 'scale-out', ['ScaleOutBreach', 'StepLimitUp', 'ClampedToMax']],
    },
    {
      case: 'at minCapacity a scale-in is held by the clamp, and says so',
      desired: 2,
      values: { invocationsPerInstance: 10 },
      expected: [2, 'hold', ['ScaleInBreach', 'ClampedToMin']],
    },
    {
      case: 'capacity below a raised minCapacity is brought up to it',
      desired: 1,
      values: { invocationsPerInstance: 100 },
      expected: [2, 'scale-out', ['WithinBand', 'ClampedToMin']],
    },
    {
      case: 'capacity above a lowered maxCapacity is brought down to it at once',
      desired: 40,
      values: { invocationsPerInstance: 100 },
      expected: [30, 'scale-in', ['WithinBand', 'ClampedToMax']],
    },
  ])('$case', ({ desired, values, expected }) => {
    const { decision } = decide(undefined, snapshot({ now: at(0), desired, values }), policy, at(0));
    expect([decision.desiredCapacity, decision.action, decision.reasons]).toEqual(expected);
  });
});
