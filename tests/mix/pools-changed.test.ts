/**
 * PoolsChanged (shared/mix/plan.ts): a held plan spread over zones the group no longer runs in,
 * or by type where the zones are now known, is re-planned at once; a plan over fewer zones than
 * the policy names (a zone out of capacity, or one the group joined) waits for the usual damping.
 */
import { describe, expect, it } from 'vitest';
import { stepMix } from '#shared/mix/plan.ts';
import type { MixState } from '#shared/mix/types.ts';
import { at, flat, mixPolicy } from './harness.ts';

const ZONES = ['us-east-1a', 'us-east-1b', 'us-east-1c'];
const held = (zones?: string[]): MixState =>
  stepMix(
    { version: 1, plan: null, lastChangeAt: null, pendingSince: null },
    { forecast: flat(at(0), 10) },
    mixPolicy(zones ? { zones } : {}),
    at(0),
  ).state;
/** The same demand ten minutes later under `zones`: the dead band would hold any plan. */
const next = (state: MixState, zones?: string[], unavailablePools: string[] = []) =>
  stepMix(
    state,
    { forecast: flat(at(10), 10), availability: { breakerOpen: false, unavailablePools } },
    mixPolicy(zones ? { zones } : {}),
    at(10),
  );

describe('PoolsChanged', () => {
  it('re-plans at once a plan by type once the zones are known, and one over a zone the group left', () => {
    const byType = next(held(), ZONES);
    expect([byType.decision.reasons[0], byType.decision.changed]).toEqual(['PoolsChanged', true]);
    expect(byType.plan?.pools?.every((k) => k.includes('@'))).toBe(true);
    const left = next(held(ZONES), ['us-east-1a', 'us-east-1b']);
    expect(left.decision.reasons[0]).toBe('PoolsChanged');
    expect(left.plan?.pools?.some((k) => k.endsWith('@us-east-1c'))).toBe(false);
  });

  it('holds a plan over the same zones, over fewer (a zone joined), and one that left out a zone out of capacity', () => {
    expect(next(held(ZONES), ZONES).decision.reasons[0]).toBe('WithinDeadBand');
    expect(next(held(['us-east-1a', 'us-east-1b']), ZONES).decision.reasons[0]).toBe('WithinDeadBand');
    expect(next(held(), undefined).decision.reasons[0]).toBe('WithinDeadBand');
    // us-east-1c out of capacity for every type: the plan leaves it out, and is then held.
    const dry = ['g5.2xlarge@us-east-1c', 'g6.2xlarge@us-east-1c', 'g6e.xlarge@us-east-1c'];
    const shifted = next(held(ZONES), ZONES, dry);
    expect(shifted.decision.reasons[0]).toBe('AvailabilityShift');
    const after = stepMix(
      shifted.state,
      { forecast: flat(at(20), 10), availability: { breakerOpen: false, unavailablePools: dry } },
      mixPolicy({ zones: ZONES }),
      at(20),
    );
    expect(after.plan?.pools?.some((k) => k.endsWith('@us-east-1c'))).toBe(false);
    expect(after.decision.reasons[0]).toBe('WithinDeadBand');
  });
});
