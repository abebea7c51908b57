/**
 * The error-budget control, as properties and as a timeline: within its bounds always; at the
 * most conservative bound while the budget is exhausted; never looser for a higher burn rate or
 * pace; never turned around by constant input; and the sentences an operator reads.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SloControlSchema } from '#shared/policy/slo-schema.ts';
import { controlHeadroom, type HeadroomState, tighteningShare } from '#shared/slo/control.ts';
import { budget } from './support.ts';

const C = SloControlSchema.parse({});
const T0 = Date.parse('2025-06-02T00:00:00Z');
const MIN = 60_000;

const status = budget;

const arbState = fc.record({
  factor: fc.double({ min: 0.05, max: 3, noNaN: true }),
  lastLoosenAt: fc.option(fc.integer({ min: T0 - 60 * MIN, max: T0 }), { nil: null }),
  lastTightenAt: fc.option(fc.integer({ min: T0 - 60 * MIN, max: T0 }), { nil: null }),
});
const arbStatus = fc.record({
  fastBurn: fc.option(fc.double({ min: 0, max: 200, noNaN: true }), { nil: null }),
  slowBurn: fc.option(fc.double({ min: 0, max: 200, noNaN: true }), { nil: null }),
  remaining: fc.double({ min: -1, max: 1, noNaN: true }),
  pace: fc.double({ min: 0, max: 50, noNaN: true }),
  pages: fc.boolean(),
});

describe('error-budget control, properties', () => {
  it('keeps the factor within the policy bounds', () => {
    fc.assert(
      fc.property(arbState, arbStatus, fc.nat(5), (state, s, newBad) => {
        const d = controlHeadroom(state, { status: status(s), newBad, control: C, now: T0 });
        expect(d.factor).toBeGreaterThanOrEqual(C.minTargetFactor);
        expect(d.factor).toBeLessThanOrEqual(C.maxTargetFactor);
        expect(d.state.factor).toBe(d.factor);
      }),
    );
  });

  it('stands at the most conservative headroom while the budget is exhausted', () => {
    fc.assert(
      fc.property(arbState, arbStatus, fc.nat(5), (state, s, newBad) => {
        const d = controlHeadroom(state, {
          status: status({ ...s, remaining: Math.min(0, s.remaining) }),
          newBad,
          control: C,
          now: T0,
        });
        expect([d.factor, d.reason]).toEqual([C.minTargetFactor, 'BudgetExhausted']);
      }),
    );
  });

  it('never chooses a looser factor for a higher burn rate or a faster pace', () => {
    fc.assert(
      fc.property(
        arbState,
        arbStatus,
        fc.double({ min: 0, max: 50, noNaN: true }),
        fc.double({ min: 0, max: 5, noNaN: true }),
        fc.nat(3),
        (state, s, moreBurn, morePace, newBad) => {
          const low = status({ ...s, fastBurn: s.fastBurn ?? 0 });
          const high = status({ ...low, fastBurn: low.fastBurn! + moreBurn, pace: low.pace + morePace });
          const a = controlHeadroom(state, { status: low, newBad, control: C, now: T0 });
          const b = controlHeadroom(state, { status: high, newBad, control: C, now: T0 });
          expect(b.factor).toBeLessThanOrEqual(a.factor + 1e-12);
        },
      ),
    );
  });

  it('never chooses a looser factor with more of the budget spent, or when the burn pages', () => {
    fc.assert(
      fc.property(
        arbState,
        arbStatus,
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.nat(3),
        (state, s, spentMore, newBad) => {
          const low = status({ ...s, pages: false });
          const spent = status({ ...low, remaining: low.remaining - spentMore });
          const paging = status({ ...low, pages: true });
          const a = controlHeadroom(state, { status: low, newBad, control: C, now: T0 });
          for (const high of [spent, paging]) {
            const b = controlHeadroom(state, { status: high, newBad, control: C, now: T0 });
            expect(b.factor).toBeLessThanOrEqual(a.factor + 1e-12);
          }
        },
      ),
    );
  });

  it('answers a burn with freshStepShare of a step on a fresh budget, the share spent after, a full one when it pages', () => {
    expect(tighteningShare(status({ remaining: 1 }), C)).toBe(0.4);
    expect(tighteningShare(status({ remaining: 0.3 }), C)).toBeCloseTo(0.7, 12);
    expect(tighteningShare(status({ remaining: 1, pages: true }), C)).toBe(1);
    expect(tighteningShare(status({ remaining: 1 }), { ...C, freshStepShare: 1 })).toBe(1);
  });

  it.each([
    { case: 'a clean steady trace only ever loosens', s: status(), bad: 0 },
    {
      case: 'a steady burn above the plan only ever tightens',
      s: status({ fastBurn: 3.3, pace: 1.2 }),
      bad: 1,
    },
    { case: 'a steady burn within the plan holds', s: status({ fastBurn: 3.3, pace: 0.5 }), bad: 1 },
  ])('never turns around on constant input: $case', ({ s, bad }) => {
    fc.assert(
      fc.property(fc.double({ min: 0.3, max: 1, noNaN: true }), (start) => {
        let state: HeadroomState = { factor: start, lastLoosenAt: null, lastTightenAt: null };
        const moves: number[] = [];
        for (let m = 0; m < 600; m++) {
          const d = controlHeadroom(state, { status: s, newBad: bad, control: C, now: T0 + m * MIN });
          if (d.factor !== state.factor) moves.push(Math.sign(d.factor - state.factor));
          state = d.state;
        }
        expect(new Set(moves).size).toBeLessThanOrEqual(1);
      }),
      { numRuns: 40 },
    );
  });
});

describe('error-budget control, timeline', () => {
  it('tightens once per incident, then loosens back slowly', () => {
    let state: HeadroomState | undefined;
    const reasons: string[] = [];
    const factors: number[] = [];
    for (let m = 0; m < 200; m++) {
      // Minutes 10-14: five bad minutes with the pace above plan; after: calm, pace back under.
      const incident = m >= 10 && m < 15;
      const s = incident
        ? status({ fastBurn: 3.3 * (m - 9), pace: 0.9 })
        : status({ fastBurn: m < 75 ? 1.5 : 0, pace: m < 75 ? 0.9 : 0.5 });
      const d = controlHeadroom(state, {
        status: s,
        newBad: incident ? 1 : 0,
        control: C,
        now: T0 + m * MIN,
      });
      reasons.push(d.reason);
      factors.push(d.factor);
      state = d.state;
    }
    // The first bad minute takes 0.03 x 3 x 0.4 = 3.6 % (a burn of 3.3 weighs at most 3, and an
    // untouched budget takes freshStepShare of a step); the next four fall within
    // tightenEveryMinutes.
    expect(factors[10]).toBeCloseTo(1 - 0.03 * 3 * C.freshStepShare, 9);
    expect(reasons.filter((r) => r === 'BudgetBurning')).toHaveLength(1);
    expect(factors[74]).toBeCloseTo(factors[10]!, 9);
    // Calm and on plan from minute 75: 1 % per 10 minutes, capped at 1.
    expect(reasons[75]).toBe('BudgetSpare');
    expect(factors[75]).toBeCloseTo(factors[10]! * 1.01, 9);
    expect(factors.at(-1)).toBeLessThanOrEqual(1);
    expect(factors.at(-1)).toBeGreaterThan(factors[75]!);
  });

  it.each([
    {
      case: 'burning',
      prev: { factor: 1, lastLoosenAt: null, lastTightenAt: null },
      s: status({ fastBurn: 3.3, pace: 0.9 }),
      bad: 1,
      message:
        'error budget burning (burn rate 3.3x over 60 min, pace 0.90 of the budget): headroom up, load targets at 0.96x (was 1.00x; 40 % of a step: 0 % of the budget spent)',
    },
    {
      case: 'burning, paging',
      prev: { factor: 1, lastLoosenAt: null, lastTightenAt: null },
      s: status({ fastBurn: 16.7, pace: 0.9, remaining: 0.6, pages: true }),
      bad: 1,
      message:
        'error budget burning (burn rate 16.7x over 60 min, pace 0.90 of the budget): headroom up, load targets at 0.91x (was 1.00x; a full step: the burn pages)',
    },
    {
      case: 'spare',
      prev: { factor: 0.5, lastLoosenAt: null, lastTightenAt: null },
      s: status({ fastBurn: 0, pace: 0.2 }),
      bad: 0,
      message:
        'error budget spare (burn rate 0.0x over 60 min, pace 0.20 of the budget): headroom down, load targets at 0.51x (was 0.50x)',
    },
    {
      case: 'exhausted',
      prev: { factor: 1, lastLoosenAt: null, lastTightenAt: null },
      s: status({ fastBurn: 0, pace: 1.2, remaining: -0.1 }),
      bad: 0,
      message:
        'error budget exhausted (burn rate 0.0x over 60 min, pace 1.20 of the budget): most headroom, load targets at 0.30x',
    },
    {
      case: 'no reading',
      prev: undefined,
      s: status({ fastBurn: null }),
      bad: 0,
      message: 'no SLI reading yet: load targets held at 1.00x',
    },
  ])('says why, $case', ({ prev, s, bad, message }) => {
    expect(controlHeadroom(prev, { status: s, newBad: bad, control: C, now: T0 }).message).toBe(message);
  });
});
