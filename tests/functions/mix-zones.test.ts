/**
 * The zones a target's spot is planned over (functions/mix/zones.ts): capacityMix.zones when the
 * policy lists them, else the zones the group runs in, read before planning; a failed read or a
 * group naming none plans a pool per type, as before, and the record says which.
 */
import {
  AutoScalingClient,
  DescribeAutoScalingGroupsCommand,
  DescribeWarmPoolCommand,
  type MixedInstancesPolicy,
  UpdateAutoScalingGroupCommand,
} from '@aws-sdk/client-auto-scaling';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { zonesFromGroup } from '#functions/mix/zones.ts';
import { mixedInstancesAdapter } from '#shared/aws/mixed-instances.ts';
import { awsError } from '../aws/fakes.ts';
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

  it('a read that fails after a plan over the zones keeps that plan and its zones: no re-plan by type', async () => {
    const { w, runAt, last } = world();
    w.zones = ZONES;
    await runAt(0);
    const zoned = last('chat-asg').plan;
    w.zones = Object.assign(new Error('slow down'), { name: 'ThrottlingException' });
    await runAt(5);
    const r = last('chat-asg');
    expect([r.reasons[0], r.zones?.source, r.zones?.zones]).toEqual([
      'WithinDeadBand',
      'plan',
      ['us-east-1a', 'us-east-1b', 'us-east-1c'],
    ]);
    expect(r.plan).toEqual(zoned);
  });

  it('a group that left a zone: the plan over it is re-planned at once (PoolsChanged), not refused at every write', async () => {
    const { w, runAt, last } = world();
    w.zones = ZONES;
    await runAt(0);
    w.zones = ['us-east-1a', 'us-east-1b'];
    await runAt(5);
    const r = last('chat-asg');
    expect([r.outcome, r.reasons[0]]).toEqual(['applied', 'PoolsChanged']);
    expect(r.message).toMatch(/at once: the held plan spread spot over zones the group no longer runs in/);
    expect(zonesOf(r.plan?.pools)).toEqual(['us-east-1a', 'us-east-1b']);
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

/**
 * Faults on the group's calls, through the real adapter (one attempt per call, so each injected
 * fault is the call's answer): the zones read, the write, and a write AWS applied but answered
 * with an error. Each time the next run reads the group again and converges to the plan.
 */
describe('faults on the group, and the next run', () => {
  const asg = mockClient(AutoScalingClient);
  beforeEach(() => asg.reset());

  /** A group in ZONES whose MixedInstancesPolicy is what the last accepted Update wrote. */
  function group(faults: { describe: Error[]; update: Error[] }) {
    let policy: MixedInstancesPolicy | undefined;
    asg.on(DescribeAutoScalingGroupsCommand).callsFake(() => {
      const fault = faults.describe.shift();
      if (fault) throw fault;
      return {
        AutoScalingGroups: [
          {
            AutoScalingGroupName: 'chat-asg',
            MinSize: 2,
            MaxSize: 40,
            DesiredCapacity: 12,
            DefaultCooldown: 300,
            AvailabilityZones: ZONES,
            HealthCheckType: 'EC2',
            CreatedTime: new Date(0),
            ...(policy
              ? { MixedInstancesPolicy: policy }
              : { LaunchTemplate: { LaunchTemplateId: 'lt-0abc', Version: '3' } }),
          },
        ],
      };
    });
    asg.on(DescribeWarmPoolCommand).resolves({ Instances: [] });
    asg
      .on(UpdateAutoScalingGroupCommand)
      .callsFake((input: { MixedInstancesPolicy?: MixedInstancesPolicy }) => {
        const fault = faults.update.shift();
        // A 5xx after the change took: AWS holds the policy, the caller saw an error.
        if (fault && fault.name === 'InternalFailure') policy = input.MixedInstancesPolicy;
        if (fault) throw fault;
        policy = input.MixedInstancesPolicy;
        return {};
      });
    const client = new AutoScalingClient({
      region: 'us-east-1',
      maxAttempts: 1,
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    });
    return { adapter: mixedInstancesAdapter(() => client), policy: () => policy };
  }

  const writes = () => asg.commandCalls(UpdateAutoScalingGroupCommand).length;

  it.each([
    ['throttled', awsError('ThrottlingException', 'Rate exceeded')],
    ['a 5xx', awsError('InternalFailure', 'internal', 500)],
    ['a timeout', Object.assign(new Error('socket hang up'), { name: 'TimeoutError' })],
  ])(
    'the zones read %s: planned by type and written (the write reads the group itself); the next run plans over the zones and writes that',
    async (_case, fault) => {
      const { w, ports, runAt, last } = world();
      const g = group({ describe: [fault], update: [] });
      ports.groups = g.adapter;
      await runAt(0);
      expect([last('chat-asg').outcome, last('chat-asg').zones?.source]).toEqual(['applied', 'types']);
      expect(writes()).toBe(1);
      await runAt(5);
      const r = last('chat-asg');
      // The plan by type is re-planned over the zones at once, not held by the dead band.
      expect([r.outcome, r.zones?.source, r.reasons[0]]).toEqual(['applied', 'group', 'PoolsChanged']);
      expect(writes()).toBe(2);
      // The group holds the plan in force, and the PLAN item says so.
      expect(g.policy()?.InstancesDistribution?.OnDemandBaseCapacity).toBe(
        r.plan?.mixedInstancesPolicy.onDemandBaseCapacity,
      );
      expect(w.plans.get('chat-asg')?.state.plan?.pools).toEqual(r.plan?.pools);
    },
  );

  it.each([
    ['refused by a throttle', awsError('ThrottlingException', 'Rate exceeded')],
    ['taken by AWS, answered with a 5xx', awsError('InternalFailure', 'internal', 500)],
  ])(
    'a write %s stores nothing; the next run writes (or finds) the plan and stores it',
    async (_case, fault) => {
      const { w, ports, runAt, last } = world();
      w.zones = ZONES;
      const g = group({ describe: [], update: [fault] });
      ports.groups = g.adapter;
      await expect(runAt(0)).rejects.toThrow(/mix failed for 1 of 2 targets: chat-asg/);
      expect(last('chat-asg').outcome).toBe('failed');
      expect(w.plans.get('chat-asg')?.state.plan ?? null).toBeNull();
      await runAt(5);
      const r = last('chat-asg');
      // The same plan: written now, or found on the group because the faulted write had taken.
      expect(r.outcome).toBe(fault.name === 'InternalFailure' ? 'unchanged' : 'applied');
      expect(w.plans.get('chat-asg')?.state.plan?.mixedInstancesPolicy).toEqual(r.plan?.mixedInstancesPolicy);
      expect(g.policy()?.InstancesDistribution?.OnDemandBaseCapacity).toBe(
        r.plan?.mixedInstancesPolicy.onDemandBaseCapacity,
      );
    },
  );
});
