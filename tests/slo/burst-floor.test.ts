/**
 * The burst floor (shared/slo/burst-floor.ts): the measurement (the window's demand at the
 * quantile the objective must cover, the last windowMinutes only, none on too few minutes), and the
 * floor (stands only once triggered, for a window after the last trigger, at the measured demand
 * over the SLO capacity, targets as written exactly where it holds what the lowered ones would),
 * as properties, then the floor through decide() with its sentence.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decide } from '#shared/engine/decide.ts';
import type { SignalSnapshot } from '#shared/engine/types.ts';
import { quantileOfSorted } from '#shared/forecast/stats.ts';
import { SloControlSchema } from '#shared/policy/slo-schema.ts';
import {
  type BurstDemand,
  type BurstFloorInput,
  burstFloor,
  burstQuantile,
  burstTriggered,
  MIN_MEASURED_MINUTES,
  measureBurstDemand,
} from '#shared/slo/burst-floor.ts';
import { targetPolicy } from '../engine/harness.ts';

const T0 = Date.parse('2026-11-28T12:00:00Z');
const MIN = 60_000;
const CONTROL = SloControlSchema.parse({});
const WINDOW = CONTROL.burstFloor.windowMinutes;

/** One minute's input: at the most headroom and over pace unless told otherwise. */
const input = (over: Partial<BurstFloorInput> = {}): BurstFloorInput => ({
  now: T0,
  pace: 2,
  budgetFactor: CONTROL.minTargetFactor,
  appliedFactor: CONTROL.minTargetFactor,
  control: CONTROL,
  measured: { demand: 1180, quantile: 0.996, minutes: 1440, measuredAt: T0 - 30 * MIN },
  level: 300,
  requestsPerMinuteAtSlo: 120,
  plannedRequestsPerInstance: 75,
  ...over,
});

describe('measuring the demand the floor covers', () => {
  it('is the quantile 1 - (1 - objective) x spendTarget of the window: 99.6 % at the defaults', () => {
    expect(burstQuantile(0.995, 0.8)).toBeCloseTo(0.996, 12);
    // 1,000 minutes of 100 and 440 of 1,000: the 99.6th percentile is a burst minute.
    const demand = [...new Array(1000).fill(100), ...new Array(440).fill(1000)];
    const m = measureBurstDemand(demand, 0.995, CONTROL, T0)!;
    expect(m).toEqual({ demand: 1000, quantile: burstQuantile(0.995, 0.8), minutes: 1440, measuredAt: T0 });
  });

  it('reads the last windowMinutes only, skips missing minutes, and needs an hour of them', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 1e5, noNaN: true }), { minLength: 0, maxLength: 3000 }),
        fc.array(fc.double({ min: 0, max: 1e5, noNaN: true }), { maxLength: 50 }),
        (values, older) => {
          const m = measureBurstDemand([...older, ...values], 0.995, CONTROL, T0);
          const window = [...older, ...values].slice(-WINDOW);
          if (window.length < MIN_MEASURED_MINUTES) return m === null;
          const sorted = Float64Array.from(window).sort();
          expect(m?.demand).toBe(quantileOfSorted(sorted, burstQuantile(0.995, 0.8)));
          expect(m?.minutes).toBe(window.length);
          return true;
        },
      ),
    );
    const gaps = [...new Array(59).fill(10), Number.NaN, Number.NaN];
    expect(measureBurstDemand(gaps, 0.995, CONTROL, T0)).toBeNull();
  });

  it('never falls when demand rises, and is off with the floor off', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 1e4, noNaN: true }), { minLength: 60, maxLength: 600 }),
        fc.double({ min: 1, max: 3, noNaN: true }),
        (values, k) => {
          const a = measureBurstDemand(values, 0.995, CONTROL, T0)!.demand;
          const b = measureBurstDemand(
            values.map((v) => v * k),
            0.995,
            CONTROL,
            T0,
          )!.demand;
          return b >= a - 1e-9 * Math.max(1, a);
        },
      ),
    );
    const off = SloControlSchema.parse({ burstFloor: { enabled: false } });
    expect(measureBurstDemand(new Array(600).fill(5), 0.995, off, T0)).toBeNull();
  });
});

describe('the floor', () => {
  it('stands at the measured demand over the SLO capacity, with the targets as written when it holds what the lowered ones would', () => {
    const d = burstFloor(undefined, input());
    // 1,180 / 120 = 9.8 -> 10 instances; the lowered targets at the level: 300 / (75 x 0.3) = 13.3 -> 14.
    expect(d.floor).toEqual({
      capacity: 10,
      demand: 1180,
      quantile: 0.996,
      until: T0 + WINDOW * MIN,
      asWritten: false,
    });
    expect([d.asWritten, d.lowered]).toEqual([false, 14]);
    // At night (a level of 100): the lowered targets would hold 5, the floor holds 10: as written.
    const night = burstFloor(undefined, input({ level: 100 }));
    expect([night.asWritten, night.lowered, night.floor?.asWritten]).toEqual([true, 5, true]);
  });

  it('never stands untriggered: below the most headroom or on pace, nothing', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: CONTROL.minTargetFactor + 0.001, max: 1.5, noNaN: true }),
        (pace, factor) => {
          for (const i of [input({ pace }), input({ budgetFactor: factor })]) {
            expect(burstTriggered(i)).toBe(false);
            const d = burstFloor(undefined, i);
            expect([d.floor, d.asWritten, d.state]).toEqual([null, false, { standUntil: null }]);
          }
        },
      ),
    );
  });

  it('once triggered, stands for a window after the last trigger, then goes', () => {
    fc.assert(
      fc.property(
        fc.array(fc.boolean(), { minLength: 1, maxLength: 200 }),
        fc.integer({ min: 60, max: 600 }),
        (triggers, windowMinutes) => {
          const control = SloControlSchema.parse({ burstFloor: { windowMinutes } });
          let state: ReturnType<typeof burstFloor>['state'] | undefined;
          let last: number | null = null;
          // One evaluation every 7 minutes; a fresh measurement each time.
          triggers.forEach((on, k) => {
            const now = T0 + k * 7 * MIN;
            if (on) last = now;
            const d = burstFloor(
              state,
              input({
                now,
                control,
                pace: on ? 2 : 0.5,
                measured: { demand: 1180, quantile: 0.996, minutes: 600, measuredAt: now },
              }),
            );
            const stands = last !== null && now < last + windowMinutes * MIN;
            expect(d.floor !== null).toBe(stands);
            expect(d.state.standUntil).toBe(stands ? last! + windowMinutes * MIN : null);
            state = d.state;
          });
        },
      ),
    );
  });

  it('holds ceil(demand / SLO capacity), never less for more demand, and goes as written only where it covers the lowered targets', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1, max: 1e5, noNaN: true }),
        fc.double({ min: 1, max: 2, noNaN: true }),
        fc.double({ min: 0, max: 1e5, noNaN: true }),
        fc.double({ min: 0.1, max: 1, noNaN: true }),
        (demand, more, level, factor) => {
          const at = (d: number, l: number) =>
            burstFloor(
              undefined,
              input({
                measured: { demand: d, quantile: 0.996, minutes: 1440, measuredAt: T0 },
                level: l,
                budgetFactor: 0.3,
                appliedFactor: factor,
              }),
            );
          const a = at(demand, level);
          const b = at(demand * more, level);
          expect(a.floor?.capacity).toBe(Math.ceil(demand / 120));
          expect(b.floor!.capacity).toBeGreaterThanOrEqual(a.floor!.capacity);
          expect(a.asWritten).toBe(factor < 1 && a.floor!.capacity >= Math.ceil(level / (75 * factor)));
          // More floor never takes the written targets away; a higher level never gives them.
          if (a.asWritten) expect(b.asWritten).toBe(true);
          if (!a.asWritten) expect(at(demand, level * more).asWritten).toBe(false);
        },
      ),
    );
  });

  it('never makes the targets stricter: with a room open (a factor of 1 or more) they stay where it holds them', () => {
    for (const appliedFactor of [1, 1.3]) {
      const d = burstFloor(undefined, input({ level: 1, appliedFactor }));
      expect([d.floor?.capacity, d.asWritten]).toEqual([10, false]);
    }
  });

  it('keeps the lowered targets when the level or the planned requests per instance is unknown', () => {
    expect(burstFloor(undefined, input({ level: null })).asWritten).toBe(false);
    expect(burstFloor(undefined, input({ plannedRequestsPerInstance: null })).asWritten).toBe(false);
    expect(burstFloor(undefined, input({ level: null })).floor?.capacity).toBe(10);
  });

  it('stands on no measurement, or one older than its window, without a floor, and is off when disabled or without an SLO capacity', () => {
    const none = burstFloor(undefined, input({ measured: null }));
    expect([none.floor, none.state.standUntil]).toEqual([null, T0 + WINDOW * MIN]);
    const stale: BurstDemand = {
      demand: 1180,
      quantile: 0.996,
      minutes: 1440,
      measuredAt: T0 - WINDOW * MIN - 1,
    };
    expect(burstFloor(undefined, input({ measured: stale })).floor).toBeNull();
    const off = SloControlSchema.parse({ burstFloor: { enabled: false } });
    expect(burstFloor({ standUntil: T0 + MIN }, input({ control: off }))).toEqual({
      floor: null,
      asWritten: false,
      lowered: null,
      state: { standUntil: null },
    });
    expect(burstFloor(undefined, input({ requestsPerMinuteAtSlo: undefined })).floor).toBeNull();
  });
});

describe('the floor in a decision', () => {
  const policy = targetPolicy({
    instanceCapacity: { requestsPerMinuteAtSlo: 120 },
    signals: [{ metric: 'invocationsPerInstance', target: 75 }],
    damping: {
      scaleOutBreaches: 1,
      scaleInBreaches: 1,
      scaleOutCooldownSeconds: 0,
      scaleInCooldownSeconds: 0,
    },
    panic: { enabled: false },
  });
  const snapshot = (
    desired: number,
    perInstance: number,
    extra: Partial<SignalSnapshot> = {},
  ): SignalSnapshot => ({
    capacity: { desired, ready: desired },
    readings: { invocationsPerInstance: { value: perInstance, timestamp: T0 - MIN } },
    ...extra,
  });

  it('holds the fleet at the floor with BurstFloor, and the budget ceiling caps it as it caps the forecast floor', () => {
    const floor = burstFloor(undefined, input({ level: 100 })).floor!;
    const held = decide(undefined, snapshot(12, 20, { burstFloor: floor }), policy, T0).decision;
    expect([held.desiredCapacity, held.reasons.includes('BurstFloor'), held.burstFloor]).toEqual([
      10,
      true,
      floor,
    ]);
    expect(held.message).toContain(
      'bursts shorter than a scale-out spend the error budget at the most headroom',
    );
    const capped = decide(
      undefined,
      snapshot(4, 20, { burstFloor: floor, budgetCeiling: { capacity: 7, maxUsdPerHour: 10.64 } }),
      policy,
      T0,
    ).decision;
    expect([capped.desiredCapacity, capped.reasons]).toEqual([
      7,
      ['ScaleInBreach', 'BurstFloor', 'BudgetCapped'],
    ]);
  });
});
