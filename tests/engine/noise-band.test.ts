/**
 * The invocationsPerInstance dead band widened to the load's measured noise (policy noise.bandSigmas,
 * snapshot.noise): noise the floor already covers does not trigger scaling, while a real rise
 * still does.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bandFor } from '#shared/engine/signals.ts';
import { propertyRuns, runTimeline, snapshot, targetPolicy, UNDAMPED } from './harness.ts';

const NOISE_ON = { enabled: true, floorSigmas: 0, bandSigmas: 1, historyMinutes: 2880, levelMinutes: 15 };
const policy = targetPolicy({ damping: UNDAMPED, panic: { enabled: false }, noise: NOISE_ON });
const plain = targetPolicy({ damping: UNDAMPED, panic: { enabled: false } });
const signal = policy.signals[0]! as Extract<(typeof policy.signals)[number], { target: number }>;
const counts = { a: 1, b: 0, samples: 1000 };
const snap = (noise = counts) =>
  snapshot({ now: 0, desired: 2, values: { invocationsPerInstance: 100 }, noise });

describe('bandFor', () => {
  it.each([
    // Count noise a = 1: sd sqrt(20) = 4.5 on 20 requests, relative 0.224.
    { case: 'a quiet load widens the 10 % band to its relative noise', load: 20, band: Math.sqrt(20) / 20 },
    // 2,000 requests: relative 0.022, under the tolerance.
    { case: 'a busy load keeps the tolerance as written', load: 2000, band: 0.1 },
    { case: 'a load of one request a minute is capped at 0.9', load: 1, band: 0.9 },
  ])('$case', ({ load, band }) => {
    expect(bandFor(policy, signal, load, snap())).toBeCloseTo(band, 9);
  });

  it('keeps the tolerance without a noise model, with noise off in the policy, or for other metrics', () => {
    expect(bandFor(policy, signal, 20, snapshot({ now: 0, desired: 2 }))).toBe(0.1);
    expect(bandFor(plain, signal, 20, snap())).toBe(0.1);
    expect(bandFor(policy, { ...signal, metric: 'concurrencyPerInstance' }, 20, snap())).toBe(0.1);
  });

  it('is never narrower than the tolerance nor wider than 0.9, and narrows as the load grows', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 100, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0.01, max: 1e6, noNaN: true }),
        (a, b, load) => {
          const s = snap({ a, b, samples: 100 });
          const band = bandFor(policy, signal, load, s);
          expect(band).toBeGreaterThanOrEqual(signal.tolerance);
          expect(band).toBeLessThanOrEqual(0.9);
          expect(bandFor(policy, signal, load * 2, s)).toBeLessThanOrEqual(band + 1e-12);
        },
      ),
      { numRuns: propertyRuns() },
    );
  });
});

describe('a noisy low-volume target', () => {
  // 2 instances at 115 requests each (1.15x the target of 100): 230 a minute with count noise
  // a = 9 (sd 45, relative 0.2).
  const tick = {
    t: 0,
    values: { invocationsPerInstance: 115 },
    noise: { a: 9, b: 0, samples: 500 },
    forecastFloor: 1,
  };

  it('holds inside the widened band where the plain 10 % band scales out', () => {
    expect(runTimeline(policy, 2, [tick]).outcomes).toEqual([[2, ['WithinBand']]]);
    expect(runTimeline(plain, 2, [tick]).outcomes).toEqual([[3, ['ScaleOutBreach']]]);
  });

  it('still scales out on a rise beyond its noise (1.3x the target)', () => {
    const rise = { ...tick, values: { invocationsPerInstance: 130 } };
    expect(runTimeline(policy, 2, [rise]).outcomes).toEqual([[3, ['ScaleOutBreach']]]);
  });

  it('records the widened band on the signal it widened', () => {
    const d = runTimeline(policy, 2, [tick]).decisions[0]!;
    expect(d.signals[0]!.noiseBand).toBeCloseTo(Math.sqrt(9 * 230) / 230, 9);
  });
});

describe('above the target the band widens only under a forecast floor', () => {
  // 2 instances at 115 (1.15x): inside the widened band (+-20 %), outside the plain 10 %.
  const base = { t: 0, values: { invocationsPerInstance: 115 }, noise: { a: 9, b: 0, samples: 500 } };

  it('with a forecast floor covering the lead time, noise above the target holds', () => {
    expect(runTimeline(policy, 2, [{ ...base, forecastFloor: 1 }]).outcomes).toEqual([[2, ['WithinBand']]]);
  });

  it('with only a level floor (no forecast yet), a rise past the tolerance scales out as written', () => {
    expect(
      runTimeline(policy, 2, [{ ...base, forecastFloor: 1, floorKind: 'level' as const }]).outcomes,
    ).toEqual([[3, ['ScaleOutBreach']]]);
  });

  it('below the target the band is widened either way: 0.85x holds with a level floor too', () => {
    const low = {
      ...base,
      values: { invocationsPerInstance: 85 },
      forecastFloor: 1,
      floorKind: 'level' as const,
    };
    expect(runTimeline(policy, 2, [low]).outcomes).toEqual([[2, ['WithinBand']]]);
  });
});
