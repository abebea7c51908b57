/**
 * The zones a target's spot is planned over (functions/mix/zones.ts): capacityMix.zones when the
 * policy lists them, else the zones the group runs in, read before planning; a failed read or a
 * group naming none plans a pool per type, as before, and the record says which.
 */
import { describe, expect, it } from 'vitest';
import { zonesFromGroup } from '#functions/mix/zones.ts';
import { POLICY, world } from './mix-world.ts';

const ZONES = ['us-east-1c', 'us-east-1a', 'us-east-1b'];
const zonesOf = (pools: readonly string[] | undefined) =>
  [...new Set((pools ?? []).map((k) => k.split('@')[1]))].sort();

describe('zones from the group (pure)', () => {
  it('takes the group zones, each once and sorted', () => {
    expect(zonesFromGroup([...ZONES, 'us-east-1a'], 'chat-asg')).toEqual({
      source: 'group',
      zones: ['us-east-1a', 'us-east-1b', 'us-east-1c'],
      detail:
        'spot planned over the zones chat-asg runs in (us-east-1a, us-east-1b, us-east-1c), read from the group: capacityMix.zones is not set',
    });
  });

  it('plans a pool per type when the group names none, or its read failed, and says why', () => {
    expect(zonesFromGroup([], 'chat-asg')).toMatchObject({ source: 'types', zones: null });
    expect(zonesFromGroup(new Error('AccessDenied: no'), 'chat-asg')).toEqual({
      source: 'types',
      zones: null,
      detail:
        'the zones of chat-asg are unreadable (AccessDenied: no): planned with a pool per type across its zones, the larger loss cover',
    });
  });
});

describe('the mix function plans spot over the zones the group runs in', () => {
  it('without capacityMix.zones: nine pools over the group three zones, a smaller loss cover than a pool per type', async () => {
    const byType = world();
    await byType.runAt(0);
    const before = byType.last('chat-asg');
    expect(before.zones).toMatchObject({ source: 'types', zones: null });
    expect(before.plan?.pools).toBeUndefined();

    const zoned = world();
    zoned.w.zones = ZONES;
    await zoned.runAt(0);
    const r = zoned.last('chat-asg');
    expect(r.outcome).toBe('applied');
    expect(r.zones).toMatchObject({ source: 'group', zones: ['us-east-1a', 'us-east-1b', 'us-east-1c'] });
    expect(zonesOf(r.plan?.pools)).toEqual(['us-east-1a', 'us-east-1b', 'us-east-1c']);
    expect(Object.keys(r.plan?.spotByPool ?? {}).every((k) => k.includes('@'))).toBe(true);
    // One pool of nine is a smaller loss than one type across the zones.
    expect(r.plan!.largestSpotPool).toBeLessThan(before.plan!.largestSpotPool);
    expect(zoned.w.applied.at(-1)?.plan.pools).toEqual(r.plan?.pools);
    expect(zoned.w.zoneReads).toBe(1);
  });

  it('a group whose read fails is planned a pool per type, and the record says the zones were unreadable', async () => {
    const { w, runAt, last } = world();
    w.zones = Object.assign(new Error('slow down'), { name: 'ThrottlingException' });
    await runAt(0);
    const r = last('chat-asg');
    expect(r.outcome).toBe('applied');
    expect(r.plan?.pools).toBeUndefined();
    expect(r.zones?.detail).toMatch(
      /^the zones of chat-asg are unreadable \(ThrottlingException: slow down\)/,
    );
  });

  it('with capacityMix.zones the policy decides and the group is not read for it; a SageMaker target has no zones', async () => {
    const { w, runAt, last } = world();
    const policy = structuredClone(POLICY);
    Object.assign(policy.targets[0]!.capacityMix!, { zones: ['us-east-1a', 'us-east-1b'] });
    w.parameters.set('/governor/policy', JSON.stringify(policy));
    w.zones = ZONES;
    await runAt(0);
    const r = last('chat-asg');
    expect(r.zones).toMatchObject({ source: 'policy', zones: ['us-east-1a', 'us-east-1b'] });
    expect(zonesOf(r.plan?.pools)).toEqual(['us-east-1a', 'us-east-1b']);
    expect(w.zoneReads).toBe(0);
    expect(last('chat-sm').zones).toBeUndefined();
  });
});
