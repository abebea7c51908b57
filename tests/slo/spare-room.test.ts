/**
 * The spare room (shared/slo/control.ts spareCap): the control loosens past the written targets
 * only while the error budget has been barely spent for days and both burn windows are calm, in
 * proportion to both; it comes back the moment the room shrinks (SpareRoomClosed); and it is
 * never open in a target's first day, so nothing an hour of traffic shows moves it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SloControlSchema } from '#shared/policy/slo-schema.ts';
import { controlHeadroom, type HeadroomState, spareCap } from '#shared/slo/control.ts';
import { budget } from './support.ts';

const C = SloControlSchema.parse({});
const S = C.spareRoom;
const T0 = Date.parse('2025-06-02T00:00:00Z');
const MIN = 60_000;
const DAY = 1440;
/** A status after `days` days of readings. */
const afterDays = (days: number, o: Parameters<typeof budget>[0] = {}) =>
  budget({ ...o, window: { observed: Math.round(days * DAY), bad: 0, requests: 0, badRequests: 0 } });

const arbBurn = fc.option(fc.double({ min: 0, max: 20, noNaN: true }), { nil: null });
const arbStatus = fc.record({
  fastBurn: arbBurn,
  slowBurn: arbBurn,
  pace: fc.double({ min: 0, max: 3, noNaN: true }),
  days: fc.double({ min: 0, max: 40, noNaN: true }),
});
const statusOf = (s: { fastBurn: number | null; slowBurn: number | null; pace: number; days: number }) =>
  afterDays(s.days, { fastBurn: s.fastBurn, slowBurn: s.slowBurn, pace: s.pace });

describe('spareCap', () => {
  it('is the written bound, raised by maxFactor - 1 x the pace share x the evidence share', () => {
    // Ten days at a pace of 0.04: 1 + 0.5 x (1 - 0.04 / 0.25) = 1.42 (docs/slo.md).
    expect(spareCap(afterDays(10, { pace: 0.04 }), C)).toBeCloseTo(1.42, 12);
    expect(spareCap(afterDays(10, { pace: 0.1 }), C)).toBeCloseTo(1.3, 12);
    // Day 4 (3 of the 6 days past the first): half the evidence.
    expect(spareCap(afterDays(4, { pace: 0.04 }), C)).toBeCloseTo(1.21, 12);
    expect(spareCap(afterDays(10, { pace: 0 }), C)).toBe(S.maxFactor);
  });

  it('stays shut in the first day, at a pace of belowPace or more, with a window burning, or switched off', () => {
    for (const s of [
      afterDays(0.99, { pace: 0 }),
      afterDays(10, { pace: S.belowPace }),
      afterDays(10, { pace: 0, fastBurn: 1 }),
      afterDays(10, { pace: 0, slowBurn: 1.5 }),
      afterDays(10, { pace: 0, fastBurn: null }),
    ])
      expect(spareCap(s, C)).toBe(C.maxTargetFactor);
    expect(spareCap(afterDays(10), { ...C, spareRoom: { ...S, enabled: false } })).toBe(C.maxTargetFactor);
  });

  it('lies between the written bound and maxFactor, never opens with a burning window, and never widens with the pace', () => {
    fc.assert(
      fc.property(arbStatus, fc.double({ min: 0, max: 2, noNaN: true }), (s, more) => {
        const cap = spareCap(statusOf(s), C);
        expect(cap).toBeGreaterThanOrEqual(C.maxTargetFactor);
        expect(cap).toBeLessThanOrEqual(S.maxFactor);
        if (!(s.fastBurn !== null && s.fastBurn < 1 && s.slowBurn !== null && s.slowBurn < 1))
          expect(cap).toBe(C.maxTargetFactor);
        expect(spareCap(statusOf({ ...s, pace: s.pace + more }), C)).toBeLessThanOrEqual(cap + 1e-12);
        expect(spareCap(statusOf({ ...s, days: s.days + more }), C)).toBeGreaterThanOrEqual(cap - 1e-12);
      }),
    );
  });
});

describe('the control with the spare room', () => {
  it('never stands above the cap of the status it decided on, and leaves the room at once when it shrinks', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.3, max: 1.6, noNaN: true }),
        arbStatus,
        fc.nat(3),
        (factor, s, newBad) => {
          const status = statusOf(s);
          const state: HeadroomState = { factor, lastLoosenAt: null, lastTightenAt: null };
          const d = controlHeadroom(state, { status, newBad, control: C, now: T0 });
          expect(d.factor).toBeLessThanOrEqual(spareCap(status, C) + 1e-12);
          expect(d.factor).toBeGreaterThanOrEqual(C.minTargetFactor);
          if (factor > C.maxTargetFactor && factor > spareCap(status, C) && status.remaining > 0) {
            expect(['SpareRoomClosed', 'BudgetBurning', 'SloNoData']).toContain(d.reason);
          }
        },
      ),
    );
  });

  it('on a clean month climbs past the written targets to the cap, one loosenStep at a time, and never turns around', () => {
    let state: HeadroomState | undefined;
    const factors: number[] = [];
    for (let m = 0; m < 14 * DAY; m += 10) {
      const d = controlHeadroom(state, {
        status: afterDays(m / DAY),
        newBad: 0,
        control: C,
        now: T0 + m * MIN,
      });
      factors.push(d.factor);
      state = d.state;
    }
    expect(factors.every((f, i) => i === 0 || f >= factors[i - 1]!)).toBe(true);
    // Nothing past 1 in the first day; the whole room by the end of two weeks.
    expect(factors[DAY / 10 - 1]).toBeLessThanOrEqual(1);
    expect(factors.at(-1)).toBeCloseTo(S.maxFactor, 9);
  });

  it('says why, and goes back to the written targets when a window burns', () => {
    const spare = controlHeadroom(
      { factor: 1.2, lastLoosenAt: null, lastTightenAt: null },
      { status: afterDays(10, { pace: 0.05 }), newBad: 0, control: C, now: T0 },
    );
    expect([spare.reason, spare.factor]).toEqual(['BudgetSpare', 1.2 * 1.01]);
    expect(spare.message).toBe(
      'error budget barely spent (burn rate 0.0x over 60 min, pace 0.05 of the budget): headroom down past the targets as written, load targets at 1.21x (was 1.20x; spare room up to 1.40x)',
    );
    const burnt = controlHeadroom(spare.state, {
      status: afterDays(10, { pace: 0.06, fastBurn: 3.3 }),
      newBad: 1,
      control: C,
      now: T0 + MIN,
    });
    expect([burnt.reason, burnt.factor]).toEqual(['SpareRoomClosed', 1]);
    expect(burnt.message).toBe(
      'spare room narrowed to 1.00x (burn rate 3.3x over 60 min, pace 0.06 of the budget): load targets back to 1.00x (was 1.21x)',
    );
  });

  it('is off on request: maxTargetFactor stays the leanest', () => {
    const off = { ...C, spareRoom: { ...S, enabled: false } };
    const d = controlHeadroom(
      { factor: 1, lastLoosenAt: null, lastTightenAt: null },
      { status: afterDays(30), newBad: 0, control: off, now: T0 },
    );
    expect([d.factor, d.reason]).toEqual([1, 'BudgetSteady']);
  });
});
