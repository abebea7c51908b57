/**
 * Invariants of decideFallback() over random endpoints and timelines (fast-check, propertyRuns()):
 * the weights of a write are never all zero and a variant with 0 instances gets weight 0; a write
 * never leaves fewer instances serving than the primary served before; it names only the primary
 * and the listed fallbacks; nothing is written while the endpoint is not InService.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  capacityFailureOf,
  type EndpointView,
  type FallbackPolicy,
  type FallbackState,
  initialFallbackState,
} from '#shared/mix/fallback-types.ts';
import { decideFallback } from '#shared/mix/variant-fallback.ts';
import { propertyRuns } from './harness.ts';

const T0 = Date.parse('2025-06-02T12:00:00Z');
const POLICY: FallbackPolicy = {
  primary: 'p',
  variants: [
    { variantName: 'f1', instanceType: 'ml.g6.2xlarge' },
    { variantName: 'f2', instanceType: 'ml.g4dn.2xlarge' },
  ],
  holdMinutes: 60,
};
const TYPES: Record<string, string> = {
  p: 'ml.g5.2xlarge',
  f1: 'ml.g6.2xlarge',
  f2: 'ml.g4dn.2xlarge',
  other: 'ml.g5.xlarge',
};

const variantArb = (name: string) =>
  fc.record({
    variantName: fc.constant(name),
    instanceType: fc.constant(TYPES[name] ?? null),
    currentInstances: fc.integer({ min: 0, max: 12 }),
    desiredInstances: fc.integer({ min: 0, max: 12 }),
    currentWeight: fc.oneof(fc.constant(0), fc.double({ min: 0.1, max: 10, noNaN: true })),
  });

const endpointArb: fc.Arbitrary<EndpointView> = fc.record({
  status: fc.constantFrom('InService', 'InService', 'InService', 'Updating', 'RollingBack', 'SystemUpdating'),
  variants: fc
    .tuple(
      variantArb('p'),
      fc.option(variantArb('f1'), { nil: null }),
      fc.option(variantArb('f2'), { nil: null }),
      fc.option(variantArb('other'), { nil: null }),
    )
    .map((vs) => vs.filter((v) => v !== null)),
  capacityFailure: fc.option(
    fc
      .integer({ min: 1, max: 4 })
      .map((k) => capacityFailureOf('Unable to provision requested ML compute capacity.', `k${k}`)),
    { nil: null },
  ),
});

/** A timeline: each step an endpoint, the need and minutes since the step before. */
const timelineArb = fc.array(
  fc.record({
    endpoint: endpointArb,
    needed: fc.integer({ min: 1, max: 16 }),
    minutes: fc.integer({ min: 0, max: 90 }),
  }),
  { minLength: 1, maxLength: 12 },
);

function* decisions(steps: { endpoint: EndpointView; needed: number; minutes: number }[]) {
  let state: FallbackState = initialFallbackState();
  let now = T0;
  for (const s of steps) {
    now += s.minutes * 60_000;
    const d = decideFallback(s.endpoint, s.needed, state, POLICY, now);
    yield { step: s, d };
    state = d.state;
  }
}

describe('variant fallback invariants', () => {
  it('weights are never all zero, and a variant with 0 instances gets weight 0', () => {
    fc.assert(
      fc.property(timelineArb, (steps) => {
        for (const { d } of decisions(steps)) {
          if (!d.writes) continue;
          expect(d.writes.some((w) => w.desiredWeight > 0)).toBe(true);
          for (const w of d.writes) if (w.desiredInstances === 0) expect(w.desiredWeight).toBe(0);
        }
      }),
      { numRuns: propertyRuns() },
    );
  });

  it('a write leaves at least as many instances serving as the primary served before', () => {
    fc.assert(
      fc.property(timelineArb, (steps) => {
        for (const { step, d } of decisions(steps)) {
          if (!d.writes) continue;
          const before = step.endpoint.variants.find((v) => v.variantName === 'p')!.currentInstances;
          const serving = d.writes
            .filter((w) => w.desiredWeight > 0)
            .reduce((n, w) => n + w.desiredInstances, 0);
          expect(serving).toBeGreaterThanOrEqual(before);
        }
      }),
      { numRuns: propertyRuns() },
    );
  });

  it('a write names only the primary and the listed fallbacks', () => {
    fc.assert(
      fc.property(timelineArb, (steps) => {
        for (const { d } of decisions(steps))
          for (const w of d.writes ?? []) expect(['p', 'f1', 'f2']).toContain(w.variantName);
      }),
      { numRuns: propertyRuns() },
    );
  });

  it('nothing is written while the endpoint is not InService', () => {
    fc.assert(
      fc.property(timelineArb, (steps) => {
        for (const { step, d } of decisions(steps))
          if (step.endpoint.status !== 'InService') expect(d.writes).toBeNull();
      }),
      { numRuns: propertyRuns() },
    );
  });
});
