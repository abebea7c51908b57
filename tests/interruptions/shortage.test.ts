/**
 * Spot shortages keyed by the event's own fields (issue 18): the zone from
 * Details["Availability Zone"], the code and, when named, the type from StatusMessage. Fixtures
 * are real-shaped Auto Scaling events (events/spot/, the shape of AWS's event reference).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseSpotBody } from '#shared/interruptions/events.ts';
import { handleSpotBatch } from '#shared/interruptions/handle.ts';
import { shortageKey, spotShortage } from '#shared/interruptions/shortage.ts';
import { availabilityAt } from '#shared/interruptions/state.ts';
import { mixPolicy, planFor } from './harness.ts';

const event = (name: string) => readFileSync(`events/spot/${name}.json`, 'utf8');
const NOW = Date.parse('2026-01-05T12:03:00Z');

describe('spot shortages from the event itself', () => {
  it.each([
    {
      case: 'spot InsufficientInstanceCapacity naming no type: spot as a whole, in the zone of the event',
      name: 'launch-unsuccessful-spot-ice',
      shortage: { instanceType: null, availabilityZone: 'us-east-1b', code: 'InsufficientInstanceCapacity' },
      key: 'spot in us-east-1b',
    },
    {
      case: 'spot UnfulfillableCapacity: a shortage too',
      name: 'launch-unsuccessful-spot-unfulfillable',
      shortage: { instanceType: null, availabilityZone: 'us-east-1c', code: 'UnfulfillableCapacity' },
      key: 'spot in us-east-1c',
    },
    {
      case: 'an on-demand shortage naming g5.2xlarge: not spot, no shortage',
      name: 'launch-unsuccessful-on-demand-ice',
      shortage: null,
      key: null,
    },
  ])('$case', ({ name, shortage, key }) => {
    const parsed = parseSpotBody(event(name));
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    const e = parsed.events[0]!;
    expect(e.kind === 'launch-failed' && e.shortage).toEqual(shortage ?? null);
    if (e.kind === 'launch-failed' && e.shortage) expect(shortageKey(e.shortage)).toBe(key);
  });

  it('a launch event without its group name is refused, naming the field', () => {
    const parsed = parseSpotBody(event('launch-unsuccessful-malformed'));
    expect(parsed).toMatchObject({ ok: false, problem: /AutoScalingGroupName/ });
  });

  it('a spot message that names a type is a shortage of that pool, and a zone not shaped like one is left out', () => {
    expect(
      spotShortage(
        'Could not launch Spot Instances. InsufficientInstanceCapacity - We currently do not have sufficient g6.2xlarge capacity in the Availability Zone you requested (us-east-1a).',
        'us-east-1a',
      ),
    ).toEqual({
      instanceType: 'g6.2xlarge',
      availabilityZone: 'us-east-1a',
      code: 'InsufficientInstanceCapacity',
    });
    expect(
      spotShortage('There is no Spot capacity available.', 'x'.repeat(300))?.availabilityZone,
    ).toBeNull();
  });

  it('reads at most 2,000 characters of a message: a 400 KB one is still one shortage', () => {
    const huge = `Could not launch Spot Instances. UnfulfillableCapacity ${'a1-'.repeat(130_000)}`;
    expect(spotShortage(huge, 'us-east-1a')).toMatchObject({
      instanceType: null,
      code: 'UnfulfillableCapacity',
    });
  });

  it('a shortage in one zone leaves every pool out (a pool is a type across zones) and its sentence names the zone', () => {
    const policy = mixPolicy();
    const parsed = parseSpotBody(event('launch-unsuccessful-spot-ice'));
    if (!parsed.ok) throw new Error(parsed.problem);
    const r = handleSpotBatch({
      state: null,
      events: parsed.events,
      policy,
      plan: planFor(20, policy),
      now: NOW,
    });
    expect(availabilityAt(r.state, NOW).unavailablePools).toEqual(
      policy.mix.pools.map((p) => p.instanceType).sort(),
    );
    const pool = r.decisions.find((d) => d.kind === 'pool')!;
    expect(pool.message).toMatch(
      /^Left every spot pool out of the plan until 12:3\d UTC: a spot launch failed for lack of capacity in us-east-1b \(InsufficientInstanceCapacity\)/,
    );
  });
});
