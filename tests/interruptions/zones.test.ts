/**
 * Zone-keyed shortage events replayed (issue 22, item 3): the real "EC2 Instance Launch
 * Unsuccessful" event of events/spot/, its zone set to one of the group's, through the event
 * parser and handleSpotBatch. With capacityMix.zones the shortage leaves out that (type, zone)
 * pool only, the held plan shifts its spot off it and keeps the type in the other zones; without
 * zones, or in a zone the group does not list, the type (or spot) goes everywhere, as before.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseSpotBody, type SpotEvent } from '#shared/interruptions/events.ts';
import { handleSpotBatch } from '#shared/interruptions/handle.ts';
import { availabilityAt } from '#shared/interruptions/state.ts';
import { zonedAsPlanned } from '#shared/mix/pools.ts';
import type { MixPlan, MixPolicy } from '#shared/mix/types.ts';
import { at, mixPolicy, planFor } from './harness.ts';

const ZONES = ['us-east-1a', 'us-east-1b', 'us-east-1c'];
const raw = JSON.parse(readFileSync('events/spot/launch-unsuccessful-spot-ice.json', 'utf8'));

/** The recorded event, its message naming `type` (or none) and its zone `zone`. */
function replayed(type: string | null, zone: string): SpotEvent {
  const body = structuredClone(raw);
  body.detail.Details['Availability Zone'] = zone;
  if (type)
    body.detail.StatusMessage = `Could not launch Spot Instances. InsufficientInstanceCapacity - We currently do not have sufficient ${type} capacity in the Availability Zone you requested (${zone}).`;
  const parsed = parseSpotBody(JSON.stringify(body));
  if (!parsed.ok) throw new Error(parsed.problem);
  return { ...parsed.events[0]!, at: at(0) };
}

/** The replayed shortage of g6.2xlarge in us-east-1b, handled against `plan`. */
const g6ShortIn1b = (policy: MixPolicy, plan: MixPlan) =>
  handleSpotBatch({ state: null, events: [replayed('g6.2xlarge', 'us-east-1b')], policy, plan, now: at(1) });

describe('zone-keyed spot shortages', () => {
  it('with zones: the (type, zone) pool alone is left out, and the plan moves its spot off it only', () => {
    const policy = mixPolicy({ zones: ZONES });
    const plan = planFor(10, policy);
    expect(plan.spotByPool['g6.2xlarge@us-east-1b']).toBeGreaterThan(0);
    const r = g6ShortIn1b(policy, plan);
    expect(Object.keys(r.state.poolsUnavailableUntil)).toEqual(['g6.2xlarge@us-east-1b']);
    expect(availabilityAt(r.state, at(2)).unavailablePools).toEqual(['g6.2xlarge@us-east-1b']);
    const shift = r.actions.find((a) => a.kind === 'shift');
    expect(shift?.kind === 'shift' && (shift.plan.spotByPool['g6.2xlarge@us-east-1b'] ?? 0)).toBe(0);
    expect(shift?.kind === 'shift' && shift.plan.spotByPool['g6.2xlarge@us-east-1a']).toBeGreaterThan(0);
    expect(r.decisions.map((d) => d.message).join(' ')).toContain(
      'spot pool g6.2xlarge in us-east-1b (only there)',
    );
  });

  it('with zones, a shortage naming no type leaves out every pool of that zone, not spot as a whole', () => {
    const policy = mixPolicy({ zones: ZONES });
    const r = handleSpotBatch({
      state: null,
      events: [replayed(null, 'us-east-1c')],
      policy,
      plan: planFor(10, policy),
      now: at(1),
    });
    expect(Object.keys(r.state.poolsUnavailableUntil).sort()).toEqual([
      'g5.2xlarge@us-east-1c',
      'g6.2xlarge@us-east-1c',
      'g6e.xlarge@us-east-1c',
    ]);
    expect(r.state.spotUnavailableUntil).toBeNull();
  });

  it('zones read from the group (the policy lists none, the plan was spread over them): the pool alone, as with zones', () => {
    // The mix function planned over the group's zones (functions/mix/zones.ts); the spot-events
    // function takes them from the plan in force (zonedAsPlanned), so the shift keeps the spread.
    const plan = planFor(10, mixPolicy({ zones: ZONES }));
    const policy = zonedAsPlanned(mixPolicy(), plan);
    expect(policy.mix.zones).toEqual(ZONES);
    const r = g6ShortIn1b(policy, plan);
    expect(Object.keys(r.state.poolsUnavailableUntil)).toEqual(['g6.2xlarge@us-east-1b']);
    const shift = r.actions.find((a) => a.kind === 'shift');
    expect(shift?.kind === 'shift' && shift.plan.spotByPool['g6.2xlarge@us-east-1a']).toBeGreaterThan(0);
    // A plan by type keeps the policy as it is; so do listed zones.
    const byType = mixPolicy();
    expect(zonedAsPlanned(byType, planFor(10, byType))).toBe(byType);
    const listed = mixPolicy({ zones: ['us-east-1a'] });
    expect(zonedAsPlanned(listed, plan)).toBe(listed);
    expect(zonedAsPlanned(byType, null)).toBe(byType);
  });

  it.each([
    { case: 'without zones', zones: undefined },
    { case: 'in a zone the group does not list', zones: ['us-east-1a', 'us-east-1c'] },
  ])('$case: the type is left out everywhere, as before', ({ zones }) => {
    const policy = mixPolicy(zones ? { zones } : {});
    const r = g6ShortIn1b(policy, planFor(10, policy));
    expect(Object.keys(r.state.poolsUnavailableUntil)).toEqual(['g6.2xlarge']);
  });
});
