/**
 * What the forecast function changes besides the floor, and when it must not: the warm capacity
 * of the kind each target can keep (SageMaker: standby on the floor; Auto Scaling group: its
 * native warm pool through PutWarmPool), and shadow mode and the kill switch, which withhold
 * everything that changes capacity without the evaluator (scheduled actions, the warm pool).
 */
import { PutWarmPoolCommand } from '@aws-sdk/client-auto-scaling';
import { describe, expect, it } from 'vitest';
import { warmPoolChange, warmPoolSettingFrom } from '#shared/aws/warm-pools.ts';
import { CONFIG, NOW, POLICY, rig, sent, tickAt } from './fakes.ts';

const DAY = 86_400_000;

const GROUP_POLICY = (warmPool = '{ maxSize: 8 }') => `version: 1
targets:
  - id: gpu-pool
    kind: ec2-asg
    region: us-east-1
    autoScalingGroupName: gpu-asg
    instanceCapacity: { requestsPerMinuteAtSlo: 120 }
    scaling: { minCapacity: 1, maxCapacity: 20 }
    signals: [{ metric: gpuUtilization, target: 70 }]
    forecast: { quantile: p90, requestsPerInstance: 100, leadTimeMinutes: 10, historyDays: 7 }
    warmPool: ${warmPool}
`;

function groupRig(config: Partial<typeof CONFIG> = {}, warmPool?: string) {
  const r = rig(GROUP_POLICY(warmPool), {}, config);
  r.world.historySince.set('gpu-asg', NOW - 8 * DAY);
  return r;
}

const written = (r: ReturnType<typeof rig>) => {
  const o = r.telemetry.outcomes[0]!;
  if (o.outcome !== 'written') throw new Error(`expected a written floor, got ${JSON.stringify(o)}`);
  return o;
};

describe('warm capacity of the kind the target can keep', () => {
  it('sets an Auto Scaling group warm pool to an absolute size: MinSize = MaxGroupPreparedCapacity, Stopped', async () => {
    const r = groupRig();
    await r.run(tickAt(NOW), NOW);
    const warm = written(r).warm!;
    expect(warm).toMatchObject({ kind: 'warm-pool', status: 'resized' });
    expect(warm.size).toBeGreaterThan(0);
    const [put] = r.mocks.asg.commandCalls(PutWarmPoolCommand);
    expect(put!.args[0].input).toEqual({
      AutoScalingGroupName: 'gpu-asg',
      MinSize: warm.size,
      MaxGroupPreparedCapacity: warm.size,
      PoolState: 'Stopped',
    });
    // The group's floor carries no standby: its spare capacity waits in the pool, stopped.
    expect(r.floor('gpu-pool')!.standby).toBeUndefined();
  });

  it('sends no PutWarmPool when the pool already has the planned size, and keeps its state and reuse policy', async () => {
    const first = groupRig();
    await first.run(tickAt(NOW), NOW);
    const size = written(first).warm!.size;
    const r = groupRig();
    r.world.warmPools.set('gpu-asg', {
      MinSize: size,
      MaxGroupPreparedCapacity: size,
      PoolState: 'Hibernated',
      InstanceReusePolicy: { ReuseOnScaleIn: true },
    });
    await r.run(tickAt(NOW), NOW);
    expect(written(r).warm).toMatchObject({ kind: 'warm-pool', status: 'unchanged', size });
    expect(sent(r.mocks.asg)).toEqual(['DescribeWarmPool']);
  });

  it('a failed PutWarmPool fails the run after the floor is written, naming the cause', async () => {
    const r = groupRig();
    r.mocks.asg
      .on(PutWarmPoolCommand)
      .rejects(Object.assign(new Error('Rate exceeded'), { name: 'Throttling' }));
    await expect(r.run(tickAt(NOW), NOW)).rejects.toThrow(/forecast failed for 1 of 1 targets: gpu-pool/);
    expect(r.floor('gpu-pool')).toBeDefined();
    expect(written(r).warm).toMatchObject({
      status: 'failed',
      detail: 'warm pool: Throttling: Rate exceeded',
    });
  });

  it('keeps standby in service on SageMaker, which has no warm pool: added to every step of the floor', async () => {
    const plain = rig();
    await plain.run(tickAt(NOW), NOW);
    const r = rig(POLICY({ extra: '    warmPool: { minSize: 2, maxSize: 4 }' }));
    await r.run(tickAt(NOW), NOW);
    const warm = written(r).warm!;
    expect(warm).toMatchObject({ kind: 'standby', size: 2 });
    expect(warm.message).toMatch(/^keep 2 standby in service \(no warm pool on SageMaker\)/);
    const floor = r.floor('chat-llm')!;
    expect(floor.standby).toBe(2);
    const base = plain.floor('chat-llm')!.capacities;
    expect(floor.capacities).toEqual(base.map((c) => Math.min(20, c + 2)));
    expect(sent(r.mocks.asg)).toEqual([]);
  });
});

describe('shadow mode and the kill switch withhold what changes capacity', () => {
  const withOldAction = (r: ReturnType<typeof rig>) => {
    r.world.actions.set('governor-chat-llm-20250608T1400', {
      ScheduledActionARN: 'arn:aws:autoscaling:us-east-1:123456789012:scheduledAction:x',
      ScheduledActionName: 'governor-chat-llm-20250608T1400',
      ServiceNamespace: 'sagemaker',
      ResourceId: 'endpoint/chat-llm-prod/variant/AllTraffic',
      ScalableDimension: 'sagemaker:variant:DesiredInstanceCount',
      Schedule: 'at(2025-06-09T14:00:00)',
      ScalableTargetAction: { MinCapacity: 9 },
      CreationTime: new Date(NOW - DAY),
    });
    return r;
  };

  it('shadow mode: the floor is written, no scheduled action put, Governor’s earlier ones removed', async () => {
    const r = withOldAction(rig(POLICY(), {}, { GOVERNOR_MODE: 'shadow' }));
    await r.run(tickAt(NOW), NOW);
    expect(r.floor('chat-llm')).toBeDefined();
    const o = written(r);
    expect(o.actions).toMatchObject({ status: 'withheld', why: 'shadow', removed: 1 });
    expect((o.actions as { planned: number }).planned).toBeGreaterThan(0);
    expect(sent(r.mocks.aas)).not.toContain('PutScheduledAction');
    expect(r.world.actions.size).toBe(0);
  });

  it('the kill switch on: the floor is written, and no scheduled action is put or deleted', async () => {
    const r = withOldAction(rig());
    r.world.parameters.set(CONFIG.KILL_SWITCH_PARAMETER_NAME, ' ON\n');
    await r.run(tickAt(NOW), NOW);
    expect(r.floor('chat-llm')).toBeDefined();
    const o = written(r);
    expect(o.actions).toMatchObject({ status: 'withheld', why: 'kill-switch', removed: 0 });
    expect((o.actions as { planned: number }).planned).toBeGreaterThan(0);
    expect(sent(r.mocks.aas)).not.toContain('PutScheduledAction');
    expect(sent(r.mocks.aas)).not.toContain('DeleteScheduledAction');
    expect([...r.world.actions.keys()]).toEqual(['governor-chat-llm-20250608T1400']);
  });

  it('an unreadable kill switch counts as on (fail safe) and says so', async () => {
    const r = rig();
    r.mocks.ssm.callsFake(async (input: { Name: string }) => {
      if (input.Name === CONFIG.KILL_SWITCH_PARAMETER_NAME)
        throw Object.assign(new Error('denied'), { name: 'AccessDeniedException' });
      return { Parameter: { Name: input.Name, Value: r.world.parameters.get(input.Name) } };
    });
    await r.run(tickAt(NOW), NOW);
    expect(written(r).actions).toMatchObject({ status: 'withheld', why: 'kill-switch' });
    expect(r.telemetry.lines).toContainEqual({
      level: 'error',
      message:
        'the kill switch cannot be read (AccessDeniedException: denied): it counts as on, nothing is changed: no scheduled action is put or deleted, no warm pool resized',
    });
  });

  it('shadow mode sizes a group warm pool but sends no PutWarmPool', async () => {
    const r = groupRig({ GOVERNOR_MODE: 'shadow' });
    await r.run(tickAt(NOW), NOW);
    expect(written(r).warm).toMatchObject({ kind: 'warm-pool', status: 'withheld', detail: 'shadow' });
    expect(sent(r.mocks.asg)).toEqual([]);
  });
});

describe('warm pool settings read and changed (pure)', () => {
  it.each([
    { case: 'no pool', config: undefined, expected: null },
    {
      case: 'an absolute pool',
      config: { MinSize: 3, MaxGroupPreparedCapacity: 3, PoolState: 'Stopped' as const },
      expected: { minSize: 3, maxGroupPreparedCapacity: 3, poolState: 'Stopped', reuseOnScaleIn: false },
    },
    {
      case: 'a pool that follows the group (-1)',
      config: { MinSize: 0, MaxGroupPreparedCapacity: -1, PoolState: 'Running' as const },
      expected: { minSize: 0, maxGroupPreparedCapacity: null, poolState: 'Running', reuseOnScaleIn: false },
    },
  ])('reads $case', ({ config, expected }) => {
    expect(warmPoolSettingFrom('g', config)).toEqual(expected);
  });

  it('rejects a pool without MinSize instead of reading it as 0', () => {
    expect(() => warmPoolSettingFrom('g', { PoolState: 'Stopped' })).toThrow(
      /DescribeWarmPool g\.WarmPoolConfiguration\.MinSize/,
    );
  });

  it.each([
    { case: 'the same absolute size needs no write', current: { minSize: 2, max: 2 }, size: 2, put: false },
    {
      case: 'a pool that follows the group is pinned',
      current: { minSize: 2, max: null },
      size: 2,
      put: true,
    },
    { case: 'a new size is written', current: { minSize: 2, max: 2 }, size: 5, put: true },
  ])('$case', ({ current, size, put }) => {
    const change = warmPoolChange(
      'g',
      {
        minSize: current.minSize,
        maxGroupPreparedCapacity: current.max,
        poolState: 'Hibernated',
        reuseOnScaleIn: true,
      },
      size,
    );
    if (!put) expect(change).toBeNull();
    else
      expect(change).toEqual({
        AutoScalingGroupName: 'g',
        MinSize: size,
        MaxGroupPreparedCapacity: size,
        PoolState: 'Hibernated',
        InstanceReusePolicy: { ReuseOnScaleIn: true },
      });
  });
});
