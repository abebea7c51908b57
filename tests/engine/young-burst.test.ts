/**
 * A panic while the error budget holds the load targets below the written ones
 * (SignalSnapshot.headroomFactor under 1): for its first lead time it is sized at the written
 * targets, and holds when the fleet already meets them; after the lead time it is answered in
 * full. Without a factor below 1 a panic is what it always was (tests/engine/panic.test.ts).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decide } from '#shared/engine/decide.ts';
import {
  at,
  propertyRuns,
  repeat,
  runTimeline,
  snapshot,
  type Tick,
  targetPolicy,
  UNDAMPED,
} from './harness.ts';

const inv = (invocationsPerInstance: number) => ({ invocationsPerInstance });
const damping = { ...UNDAMPED, scaleOutBreaches: 3, scaleInBreaches: 3, scaleOutCooldownSeconds: 300 };
/** The targets the engine gets at factor 0.3: the written 100 stands at 30. */
const lowered = (overrides: object = {}) =>
  targetPolicy({
    scaling: { minCapacity: 1, maxCapacity: 200 },
    signals: [{ metric: 'invocationsPerInstance', target: 30, tolerance: 0.1 }],
    damping,
    ...overrides,
  });

describe('a young panic under the error budget (written target 100, lowered to 30)', () => {
  it.each<{ case: string; ticks: Tick[] }>([
    {
      case: 'a burst under the written target holds: the fleet already serves it as written',
      // 75 is 2.5x the lowered 30 (a panic) and 0.75x the written 100.
      ticks: [{ t: 0, values: inv(75), headroomFactor: 0.3, expect: [10, ['PanicAtWrittenTargets']] }],
    },
    {
      case: 'a burst over the written target is sized at it: 10 x 150 / 100 = 15, not 50',
      ticks: [
        {
          t: 0,
          values: inv(150),
          headroomFactor: 0.3,
          expect: [15, ['PanicScaleOut', 'PanicAtWrittenTargets']],
        },
      ],
    },
    {
      case: 'without a factor the same burst is sized at the targets it is given',
      ticks: [{ t: 0, values: inv(150), expect: [50, ['PanicScaleOut']] }],
    },
    {
      case: 'a factor of 1 or more (the forecast room) changes nothing',
      ticks: [{ t: 0, values: inv(150), headroomFactor: 1.3, expect: [50, ['PanicScaleOut']] }],
    },
    {
      case: 'a burst that outlasts the lead time (3 minutes here) is answered in full',
      ticks: [
        ...repeat(0, 3, inv(75), [10, ['PanicAtWrittenTargets']], {
          headroomFactor: 0.3,
          leadTime: { minutes: 3, configuredMinutes: 3, samples: 0 },
        }),
        {
          t: 3,
          values: inv(75),
          headroomFactor: 0.3,
          leadTime: { minutes: 3, configuredMinutes: 3, samples: 0 },
          expect: [25, ['PanicScaleOut']],
        },
      ],
    },
  ])('$case', ({ ticks }) => {
    expect(runTimeline(lowered(), 10, ticks).outcomes).toEqual(ticks.map((t) => t.expect));
  });

  it('reads the lead time from the policy when the snapshot has none', () => {
    const policy = lowered({ forecast: { enabled: true, leadTimeMinutes: 2 } });
    const ticks = repeat(0, 3, inv(75), [0, []], { headroomFactor: 0.3 });
    const reasons = runTimeline(policy, 10, ticks).outcomes.map(([, r]) => r);
    expect(reasons).toEqual([['PanicAtWrittenTargets'], ['PanicAtWrittenTargets'], ['PanicScaleOut']]);
  });

  it('keeps a latency signal as it is: the SLO is not scaled by the factor', () => {
    const policy = lowered({
      signals: [
        { metric: 'invocationsPerInstance', target: 30, tolerance: 0.1 },
        { metric: 'p95LatencyMs', sloMs: 1000 },
      ],
    });
    // Latency at 1.8x the SLO asks for 18 on its own; the load, at the written target, for 8.
    const [out] = runTimeline(policy, 10, [
      { t: 0, values: { invocationsPerInstance: 75, p95LatencyMs: 1800 }, headroomFactor: 0.3 },
    ]).outcomes;
    expect(out).toEqual([18, ['PanicScaleOut', 'PanicAtWrittenTargets']]);
  });

  it('records the factor, the burst age and the lead on the decision', () => {
    const { decisions } = runTimeline(lowered(), 10, [{ t: 0, values: inv(150), headroomFactor: 0.3 }]);
    expect(decisions[0]!.youngBurst).toEqual({ factor: 0.3, minutes: 1, leadMinutes: 10, capacity: 15 });
  });

  it('never asks for more than the panic at the lowered targets, nor less than the fleet', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100 }),
        fc.double({ min: 0, max: 2000, noNaN: true }),
        fc.double({ min: 0.1, max: 0.99, noNaN: true }),
        (current, load, factor) => {
          const policy = lowered();
          const snap = (f?: number) => ({
            ...snapshot({ now: at(0), desired: current, values: inv(load) }),
            ...(f !== undefined ? { headroomFactor: f } : {}),
          });
          const young = decide(undefined, snap(factor), policy, at(0)).decision.desiredCapacity;
          const full = decide(undefined, snap(), policy, at(0)).decision.desiredCapacity;
          expect(young).toBeLessThanOrEqual(full);
          expect(young).toBeGreaterThanOrEqual(Math.min(current, full));
        },
      ),
      { numRuns: propertyRuns() },
    );
  });
});
