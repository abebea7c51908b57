/**
 * The forecast room (shared/slo/forecast-room.ts): the worked example of its module comment,
 * what keeps it closed, its properties (never past maxFactor, never a target above the SLO
 * capacity over 1 + bandWeight bands, never narrower with a wider band, never below the budget's
 * factor, closed unless both burn windows are calm), and the ForecastConfident sentence on a decision.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decide } from '#shared/engine/decide.ts';
import type { SignalSnapshot } from '#shared/engine/types.ts';
import { ForecastRoomSchema, SloControlSchema } from '#shared/policy/slo-schema.ts';
import { controlHeadroom } from '#shared/slo/control.ts';
import { forecastRoom, roomFactor, writtenRoomOf } from '#shared/slo/forecast-room.ts';
import { annotateDecision, withHeadroom } from '#shared/slo/headroom.ts';
import { targetPolicy } from '../engine/harness.ts';
import { budget } from './support.ts';

const T0 = Date.parse('2025-06-02T12:00:00Z');
const ROOM = ForecastRoomSchema.parse({});
/** Both burn-rate windows calm: no bad minute lately. */
const CALM = { fastBurn: 0, slowBurn: 0 };
/** Scale-outs as planned: the floor's lead is the configured one. */
const LEAD = { minutes: 10, configuredMinutes: 10 };
const target = targetPolicy({
  instanceCapacity: { requestsPerMinuteAtSlo: 120 },
  signals: [
    { metric: 'invocationsPerInstance', target: 75 },
    { metric: 'p95LatencyMs', sloMs: 2000 },
  ],
  forecast: { quantile: 'p50', requestsPerInstance: 75 },
  damping: { scaleOutBreaches: 1, scaleInBreaches: 1, scaleOutCooldownSeconds: 0, scaleInCooldownSeconds: 0 },
  panic: { enabled: false },
});

describe('the written room', () => {
  it('is the SLO capacity over the planned requests per instance', () => {
    expect(writtenRoomOf(target)).toBe(1.6);
  });

  it('is unknown without instanceCapacity or without a forecast: the room never opens', () => {
    const { instanceCapacity: _, ...noCapacity } = target;
    expect(writtenRoomOf(noCapacity)).toBeNull();
    expect(writtenRoomOf({ ...target, forecast: { ...target.forecast!, enabled: false } })).toBeNull();
  });
});

describe('the room of a band', () => {
  it('keeps bandWeight bands of room below the SLO capacity, capped at maxFactor', () => {
    // 1.6 / (1 + 4 x 0.04) = 1.379, capped at 1.3; 1.6 / (1 + 4 x 0.1) = 1.143; 1.6 / 1.6 = 1.
    expect(roomFactor(1.04, 1.6, ROOM)).toBe(1.3);
    expect(roomFactor(1.1, 1.6, ROOM)).toBeCloseTo(1.6 / 1.4, 12);
    expect(roomFactor(1.15, 1.6, ROOM)).toBe(1);
    expect(roomFactor(1.5, 1.6, ROOM)).toBe(1);
  });

  it.each([
    { case: 'the budget control has tightened', factor: 0.97, bandRatio: 1.01, writtenRoom: 1.6 },
    {
      case: 'there is no band (no forecast floor, or a median of 0)',
      factor: 1,
      bandRatio: null,
      writtenRoom: 1.6,
    },
    { case: 'the written room is unknown', factor: 1, bandRatio: 1.01, writtenRoom: null },
    { case: 'the band is wide', factor: 1, bandRatio: 1.3, writtenRoom: 1.6 },
    { case: 'a band with p90 below p50 (no trust in it)', factor: 1, bandRatio: 0.9, writtenRoom: 1.6 },
    {
      case: 'a bad minute in the last hour',
      factor: 1,
      bandRatio: 1.01,
      writtenRoom: 1.6,
      burn: { fastBurn: 3.3, slowBurn: 0.6 },
    },
    {
      case: 'two in the last six hours',
      factor: 1,
      bandRatio: 1.01,
      writtenRoom: 1.6,
      burn: { fastBurn: 0, slowBurn: 1.1 },
    },
    {
      case: 'no burn reading yet',
      factor: 1,
      bandRatio: 1.01,
      writtenRoom: 1.6,
      burn: { fastBurn: null, slowBurn: null },
    },
    {
      case: 'scale-outs take longer than planned (a measured lead of 16 minutes, 10 configured)',
      factor: 1,
      bandRatio: 1.01,
      writtenRoom: 1.6,
      lead: { minutes: 16, configuredMinutes: 10 },
    },
  ])('stays closed when $case', ({ factor, bandRatio, writtenRoom, burn, lead }) => {
    expect(
      forecastRoom({ factor, bandRatio, writtenRoom, room: ROOM, burn: burn ?? CALM, lead: lead ?? LEAD }),
    ).toEqual({
      factor,
    });
  });

  it('opens with one bad minute in six hours, none in the last hour (both windows below 1)', () => {
    const burn = { fastBurn: 0, slowBurn: 1 / 360 / 0.005 };
    expect(
      forecastRoom({ factor: 1, bandRatio: 1.04, writtenRoom: 1.6, room: ROOM, burn, lead: LEAD }).factor,
    ).toBe(1.3);
  });

  it('stays closed when disabled', () => {
    const off = { ...ROOM, enabled: false };
    expect(
      forecastRoom({ factor: 1, bandRatio: 1.01, writtenRoom: 1.6, room: off, burn: CALM, lead: LEAD }),
    ).toEqual({
      factor: 1,
    });
  });

  it('opens above the budget factor and says from what', () => {
    const open = forecastRoom({
      factor: 1,
      bandRatio: 1.1,
      writtenRoom: 1.6,
      room: ROOM,
      burn: CALM,
      lead: LEAD,
    });
    expect(open.factor).toBeCloseTo(1.6 / 1.4, 12);
    expect(open.opened).toEqual({ bandRatio: 1.1, writtenRoom: 1.6, bandWeight: 4, budgetFactor: 1 });
    // A budget control allowed leaner than the room: the budget's factor stands.
    expect(
      forecastRoom({ factor: 1.5, bandRatio: 1.05, writtenRoom: 1.6, room: ROOM, burn: CALM, lead: LEAD }),
    ).toEqual({
      factor: 1.5,
    });
  });

  const arbRoom = fc.record({
    enabled: fc.constant(true),
    bandWeight: fc.double({ min: 1, max: 20, noNaN: true }),
    maxFactor: fc.double({ min: 1, max: 2, noNaN: true }),
  });
  const arbInput = fc.record({
    factor: fc.double({ min: 0.1, max: 2, noNaN: true }),
    bandRatio: fc.option(fc.double({ min: 0, max: 5, noNaN: true })),
    writtenRoom: fc.option(fc.double({ min: 0.5, max: 4, noNaN: true })),
    room: arbRoom,
    burn: fc.record({
      fastBurn: fc.option(fc.double({ min: 0, max: 10, noNaN: true })),
      slowBurn: fc.option(fc.double({ min: 0, max: 10, noNaN: true })),
    }),
    lead: fc.record({
      minutes: fc.integer({ min: 1, max: 30 }),
      configuredMinutes: fc.integer({ min: 1, max: 30 }),
    }),
  });

  it('never goes below the budget factor nor past maxFactor, and opens only on a healthy, calm budget and the planned lead', () => {
    fc.assert(
      fc.property(arbInput, (inp) => {
        const d = forecastRoom(inp);
        expect(d.factor).toBeGreaterThanOrEqual(inp.factor);
        if (d.opened) {
          expect(inp.factor).toBeGreaterThanOrEqual(1);
          expect([inp.burn.fastBurn! < 1, inp.burn.slowBurn! < 1]).toEqual([true, true]);
          expect(inp.lead.minutes).toBeLessThanOrEqual(inp.lead.configuredMinutes);
          expect(d.factor).toBeLessThanOrEqual(inp.room.maxFactor);
        } else expect(d.factor).toBe(inp.factor);
      }),
    );
  });

  it('never plans an instance above its SLO capacity over 1 + bandWeight bands', () => {
    fc.assert(
      fc.property(arbInput, (inp) => {
        const d = forecastRoom(inp);
        if (!d.opened) return;
        const { bandRatio, writtenRoom, bandWeight } = d.opened;
        // In units of the planned target: it stands at d.factor, the SLO capacity at writtenRoom.
        expect(d.factor * (1 + bandWeight * (bandRatio - 1))).toBeLessThanOrEqual(writtenRoom * (1 + 1e-12));
      }),
    );
  });

  it('is never leaner with a wider band (monotone)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1, max: 3, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0.5, max: 4, noNaN: true }),
        arbRoom,
        (ratio, wider, written, room) => {
          expect(roomFactor(ratio + wider, written, room)).toBeLessThanOrEqual(
            roomFactor(ratio, written, room),
          );
        },
      ),
    );
  });
});

describe('a decision with the room open', () => {
  it('stands the targets at the room, adds ForecastConfident and says why', () => {
    const snapshot: SignalSnapshot = {
      capacity: { desired: 10, ready: 10 },
      readings: {
        invocationsPerInstance: { value: 84, timestamp: T0 - 60_000 },
        p95LatencyMs: { value: 800, timestamp: T0 - 60_000 },
      },
    };
    const s = budget({ fastBurn: 0, pace: 0.9 });
    const C = SloControlSchema.parse({});
    const h = controlHeadroom(undefined, { status: s, newBad: 0, control: C, now: T0 });
    // As written, 84 requests per instance breach the target of 75 (beyond its tolerance): a scale-out.
    expect(decide(undefined, snapshot, target, T0).decision.action).toBe('scale-out');
    const room = forecastRoom({
      factor: h.factor,
      bandRatio: 1.1,
      writtenRoom: 1.6,
      room: C.forecastRoom,
      burn: s,
      lead: LEAD,
    });
    const policy = withHeadroom(target, room.factor);
    const d = annotateDecision(decide(undefined, snapshot, policy, T0), h, s, policy, true, room).decision;
    // With the room the target is 75 x 1.6 / 1.4 = 85.7: 84 is within its band, the fleet holds.
    expect([d.action, d.desiredCapacity, d.reasons]).toEqual([
      'hold',
      10,
      ['WithinBand', 'ForecastConfident'],
    ]);
    expect(d.headroom).toMatchObject({
      factor: room.factor,
      reason: 'BudgetSteady',
      forecastRoom: { bandRatio: 1.1, writtenRoom: 1.6, bandWeight: 4, budgetFactor: 1 },
    });
    expect(d.message).toBe(
      "Hold at 10 instances: every signal is within its band; the forecast has been accurate (its p90 10 % above its median) and the error budget is healthy, so load targets stand at 1.14x of the policy's, keeping 4 bands of room below the SLO capacity (written room 1.60x).",
    );
  });
});
