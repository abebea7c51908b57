/**
 * Spot headroom in decide() (shared/engine/spot-headroom.ts): the extra spot instances
 * capacityMix.spot.overProvision holds on top of what the load asks, never on top of the committed
 * base, and never a reason for the engine to decide its own capacity differently.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decide } from '#shared/engine/decide.ts';
import { ownView, withSpotHeadroom } from '#shared/engine/spot-headroom.ts';
import type { EngineState } from '#shared/engine/types.ts';
import { at, propertyRuns, type SnapshotSpec, snapshot, targetPolicy, UNDAMPED } from './harness.ts';

const policy = targetPolicy({ damping: UNDAMPED });

/** One decision at minute `t` of a group at `desired` reading `load` requests a minute in all. */
function step(
  state: EngineState | undefined,
  t: number,
  desired: number,
  load: number,
  more: Partial<SnapshotSpec> = {},
) {
  const snap = snapshot({ now: at(t), desired, values: { invocationsPerInstance: load / desired }, ...more });
  return decide(state, snap, policy, at(t));
}

describe('spot headroom', () => {
  it('goes on top of what the load asks, not of the committed base (the worked example)', () => {
    const mix = { committedFloor: { capacity: 11 }, spotHeadroom: { instances: 2 } };
    // 1,500 requests a minute at 100 per instance ask 15: with 2 of headroom, 17.
    const day = step(undefined, 1, 12, 1500, mix);
    expect([day.decision.desiredCapacity, day.decision.reasons, day.state.spotHeadroom?.held]).toEqual([
      17,
      ['ScaleOutBreach', 'SpotHeadroom'],
      2,
    ]);
    expect(day.decision.message).toBe(
      'Scale out from 12 to 17 instances: invocationsPerInstance at 125 is 1.25x its target of 100; 2 spot instances held beyond what the load asks, as headroom while the capacity mix runs spot (capacityMix.spot.overProvision 2).',
    );
    // At night 600 ask 6: the committed 11 run, and their idle instances are the headroom.
    const night = step(day.state, 2, 17, 600, mix);
    expect([night.decision.desiredCapacity, night.decision.reasons, night.state.spotHeadroom?.held]).toEqual([
      11,
      ['ScaleInBreach', 'CommittedFloor'],
      undefined,
    ]);
    // Holding at the committed 11 with the load in its band: no headroom on top of the floor, or it
    // would come and go with every scale-in the floor absorbs (11 -> 12 -> 11, each an action).
    const held = step(night.state, 3, 11, 1050, mix);
    expect([held.decision.action, held.decision.reasons, held.state.spotHeadroom?.held]).toEqual([
      'hold',
      ['WithinBand'],
      undefined,
    ]);
  });

  it('reads the group less the extra it held as the engine own capacity: a steady load holds', () => {
    const one = { spotHeadroom: { instances: 1 } };
    const first = step(undefined, 1, 10, 1000, one);
    expect(first.decision.desiredCapacity).toBe(11);
    // The same 1,000 requests over 11 ready instances: per own instance still 100, within the band.
    const second = step(first.state, 2, 11, 1000, one);
    expect([second.decision.action, second.decision.desiredCapacity, second.decision.reasons]).toEqual([
      'hold',
      11,
      ['WithinBand', 'SpotHeadroom'],
    ]);
    // Spot gone (the plan runs none): the extra goes in one decision, and nothing else moves.
    const third = step(second.state, 3, 11, 1000);
    expect([third.decision.desiredCapacity, third.state.spotHeadroom?.held]).toEqual([10, undefined]);
  });

  it('reconciles with the group it reads: headroom never applied (shadow mode, a refused write) is not taken out again', () => {
    const one = { spotHeadroom: { instances: 2 } };
    const asked = step(undefined, 1, 2, 200, one);
    expect(asked.decision.desiredCapacity).toBe(4);
    // The group was never set to 4: it still runs 2, and the engine's own capacity is those 2.
    const again = step(asked.state, 2, 2, 200, one);
    expect([again.decision.action, again.decision.desiredCapacity, again.decision.reasons]).toEqual([
      'scale-out',
      4,
      ['WithinBand', 'SpotHeadroom'],
    ]);
    // Set to 4 at last, then to 7 by someone else: the 3 beyond count as the engine's own, and
    // the load asks for 2 of them, so it scales in to 2 + 2.
    const applied = step(again.state, 3, 4, 200, one);
    expect(applied.decision.action).toBe('hold');
    const raised = step(applied.state, 4, 7, 200, one);
    expect([raised.decision.action, raised.decision.desiredCapacity, raised.decision.reasons]).toEqual([
      'scale-in',
      4,
      ['ScaleInBreach', 'SpotHeadroom'],
    ]);
  });

  it('stays within maxCapacity and the budget ceiling', () => {
    expect(withSpotHeadroom(2, 15, 0, 15, 16)).toEqual({ capacity: 16, extra: 1 });
    expect(withSpotHeadroom(2, 15, 0, 15, 15)).toEqual({ capacity: 15, extra: 0 });
    expect(withSpotHeadroom(2, 0, 0, 1, 50)).toEqual({ capacity: 1, extra: 0 });
    // At or below a paid floor the floor's instances are the headroom.
    expect(withSpotHeadroom(2, 11, 11, 11, 50)).toEqual({ capacity: 11, extra: 0 });
    expect(withSpotHeadroom(2, 12, 11, 12, 50)).toEqual({ capacity: 14, extra: 2 });
    const capped = decide(
      undefined,
      snapshot({
        now: at(1),
        desired: 10,
        values: { invocationsPerInstance: 120 },
        budgetCeiling: { capacity: 12, maxUsdPerHour: 10 },
        spotHeadroom: { instances: 3 },
      }),
      policy,
      at(1),
    );
    expect([capped.decision.desiredCapacity, capped.state.spotHeadroom?.held]).toEqual([12, undefined]);
  });

  it('reads per-instance loads per own instance, latency as it is', () => {
    const snap = snapshot({
      now: at(1),
      desired: 12,
      basis: 12,
      values: { invocationsPerInstance: 90, p95LatencyMs: 800 },
    });
    const view = ownView(snap, 2, 10);
    expect(view.readings.invocationsPerInstance).toMatchObject({ value: 108, basis: 10 });
    expect(view.readings.p95LatencyMs?.value).toBe(800);
    expect(view.capacity).toEqual({ desired: 10, ready: 10 });
    // The extra not ready yet (the basis counts 10): nothing to take out.
    expect(
      ownView(
        { ...snap, readings: { invocationsPerInstance: { value: 90, timestamp: 0, basis: 10 } } },
        2,
        10,
      ).readings.invocationsPerInstance?.value,
    ).toBe(90);
    expect(ownView(snap, 0, 12)).toBe(snap);
  });

  it('never changes what the engine decides for its own capacity (random timelines)', () => {
    const tick = fc.record({
      demand: fc.integer({ min: 0, max: 6000 }),
      extra: fc.integer({ min: 0, max: 3 }),
      committed: fc.option(fc.integer({ min: 0, max: 30 }), { nil: undefined }),
    });
    const damped = targetPolicy({
      damping: { scaleOutBreaches: 2, scaleInBreaches: 3, scaleInStabilizationSeconds: 180 },
    });
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.array(tick, { maxLength: 25 }), (start, ticks) => {
        let plain = start;
        let group = start;
        let plainState: EngineState | undefined;
        let state: EngineState | undefined;
        ticks.forEach(({ demand, extra, committed }, i) => {
          const now = at(i + 1);
          const spec = (desired: number, own: number) => ({
            now,
            desired,
            // The extra not ready yet: every reading is averaged over the own instances.
            basis: own,
            values: { invocationsPerInstance: own > 0 ? demand / own : 0 },
            ...(committed !== undefined ? { committedFloor: { capacity: committed } } : {}),
          });
          const a = decide(plainState, snapshot(spec(plain, plain)), damped, now);
          const own = group - (state?.spotHeadroom?.held ?? 0);
          const b = decide(
            state,
            snapshot({ ...spec(group, own), ...(extra > 0 ? { spotHeadroom: { instances: extra } } : {}) }),
            damped,
            now,
          );
          const held = b.state.spotHeadroom?.held ?? 0;
          expect(b.decision.desiredCapacity - held).toBe(a.decision.desiredCapacity);
          expect(held).toBeLessThanOrEqual(extra);
          plainState = a.state;
          state = b.state;
          plain = a.decision.desiredCapacity;
          group = b.decision.desiredCapacity;
        });
      }),
      { numRuns: propertyRuns() },
    );
  });
});
