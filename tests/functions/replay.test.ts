/**
 * Event replays: recorded events (events/*.json) through the evaluate function with the real
 * adapters over aws-sdk-client-mock, asserting the exact AWS calls each one makes, including no
 * call at all for foreign, stale, malformed and duplicate events.
 */
import {
  DescribeScalableTargetsCommand,
  DescribeScalingPoliciesCommand,
} from '@aws-sdk/client-application-auto-scaling';
import {
  DescribePoliciesCommand,
  type ScalingPolicy,
  SuspendProcessesCommand,
} from '@aws-sdk/client-auto-scaling';
import { GetMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { StartExecutionCommand } from '@aws-sdk/client-sfn';
import { describe, expect, it } from 'vitest';
import { PolicyUnavailableError } from '#functions/evaluate/policy-source.ts';
import { initialState } from '#shared/engine/types.ts';
import { EventError } from '#shared/events/parse.ts';
import { parsePolicyText } from '#shared/policy/load.ts';
import {
  CONFIG,
  conflictGroupPolicy,
  EXAMPLE_POLICY,
  eventFile,
  fakeGroup,
  harness,
  REPLAY_POLICY,
} from './harness.ts';

const at = (hhmmss: string) => Date.parse(`2025-06-02T${hhmmss}Z`);
const STORM = { InvocationsPerInstance: 250, GPUUtilization: 95, ModelLatency: 1_500_000 };

const READS = [
  'CloudWatch.GetMetricData',
  'SageMaker.DescribeEndpoint',
  'ApplicationAutoScaling.DescribeScalableTargets',
];
const FIRST = ['SSM.GetParameter', 'SSM.GetParametersByPath', 'SSM.GetParameter', ...READS]; // policy and its parts (cold), kill switch, batched reads

describe('a replayed sequence of events', () => {
  const h = harness();
  Object.assign(h.metricValues, STORM);

  it.each([
    {
      case: 'the first tick of a storm loads the policy, reads once, claims, starts the state machine, records',
      file: 'scheduler-tick',
      now: at('12:00:30'),
      calls: [...FIRST, 'DynamoDB.Get', 'DynamoDB.Update', 'StepFunctions.StartExecution', 'DynamoDB.Put'],
      outcome: ['chat-llm:started'],
    },
    {
      case: 'the same tick delivered again is a duplicate: no call',
      file: 'scheduler-tick',
      now: at('12:00:31'),
      calls: [],
      ignored: 'DuplicateEvent',
    },
    {
      case: 'an alarm Governor does not own: no call',
      file: 'alarm-foreign',
      now: at('12:00:40'),
      calls: [],
      ignored: 'ForeignAlarm',
    },
    {
      case: 'a 20-minute-old alarm: no call',
      file: 'alarm-stale',
      now: at('12:00:40'),
      calls: [],
      ignored: 'StaleEvent',
    },
    {
      case: 'an alarm naming an unmanaged endpoint: no call (policy cached)',
      file: 'alarm-unmanaged-target',
      now: at('12:00:41'),
      calls: [],
      ignored: 'UnmanagedTarget',
    },
    {
      case: 'an alarm going back to OK: no call',
      file: 'alarm-chat-llm-ok',
      now: at('12:00:42'),
      calls: [],
      ignored: 'AlarmNotInAlarm',
    },
    {
      case: 'an ALARM for the target re-reads everything, sees the change in flight and holds without a second start',
      file: 'alarm-chat-llm-latency',
      now: at('12:00:50'),
      calls: ['SSM.GetParameter', ...READS, 'DynamoDB.Get', 'DynamoDB.Update', 'DynamoDB.Put'],
      outcome: ['chat-llm:held'],
    },
  ])('$case', async ({ file, now, calls, outcome, ignored }) => {
    const report = await h.evaluate(eventFile(file), now);
    expect(h.takeCalls()).toEqual(calls);
    expect(report.ignored?.reason).toBe(ignored);
    expect(report.records.map((r) => `${r.targetId}:${r.outcome}`)).toEqual(outcome ?? []);
  });

  it.each(['malformed-alarm-no-name', 'malformed-tick-time', 'malformed-unknown-detail-type'])(
    'the malformed event %s throws an EventError and makes no call',
    async (file) => {
      await expect(h.evaluate(eventFile(file), at('12:00:55'))).rejects.toBeInstanceOf(EventError);
      expect(h.takeCalls()).toEqual([]);
    },
  );

  it('the storm decision is recorded with its inputs, reasons, action and the contract input of the state machine', () => {
    const [storm, alarm] = h.telemetry.decisions;
    expect(storm).toMatchObject({
      decisionId: 'd1',
      targetId: 'chat-llm',
      mode: 'active',
      trigger: { event: 'tick', eventId: '5e0f4c1a-7b52-4f5e-9c1d-2f7a8e6b9d01' },
      decision: { action: 'scale-out', currentCapacity: 2, desiredCapacity: 6, reasons: ['PanicScaleOut'] },
      inputs: {
        capacity: { desired: 2, ready: 2, liveDesired: 2, status: 'InService' },
        readings: {
          invocationsPerInstance: { value: 250, timestamp: at('12:00:00') },
          p95LatencyMs: { value: 1500, timestamp: at('12:00:00') },
        },
        killSwitch: false,
        conflict: null,
      },
      action: { type: 'start-state-machine', executionName: 'd1', desiredCapacity: 6, previousCapacity: 2 },
      outcome: 'started',
    });
    expect(JSON.parse(h.mocks.sfn.commandCalls(StartExecutionCommand)[0]!.args[0].input.input!)).toEqual({
      decisionId: 'd1',
      targetId: 'chat-llm',
      kind: 'sagemaker-variant',
      endpointName: 'chat-llm-prod',
      variantName: 'AllTraffic',
      desiredCapacity: 6,
      previousCapacity: 2,
      requestedAt: '2025-06-02T12:00:30.000Z',
      // AUDIT_TTL_DAYS (30) after the request, in epoch seconds: the outcome item's TTL.
      expiresAt: Date.parse('2025-07-02T12:00:30Z') / 1000,
      // The kill switch's raw value judged off: the state machine goes on only while it still reads this.
      killSwitchValue: 'off',
    });
    expect(h.mocks.sfn.commandCalls(StartExecutionCommand)[0]!.args[0].input.name).toBe('d1');
    expect(alarm).toMatchObject({
      trigger: { event: 'alarm', alarmName: 'governor-chat-llm-p95-latency' },
      inputs: { capacity: { desired: 6, liveDesired: 2 } },
      decision: { action: 'hold', reasons: ['CapacityPending'] },
    });
  });

  it('state and audit items follow the contract', () => {
    expect(h.table.state('chat-llm')).toMatchObject({
      pk: 'TARGET#chat-llm',
      sk: 'STATE',
      version: 2,
      lastDecisionId: 'd2',
      updatedAt: '2025-06-02T12:00:50.000Z',
      pending: { decisionId: 'd1', desiredCapacity: 6, previousCapacity: 2, at: at('12:00:30') },
    });
    expect(h.table.audits().map((a) => [a.sk, a.outcome, a.expiresAt])).toEqual([
      ['DECISION#2025-06-02T12:00:30.000Z#d1', 'started', at('12:00:30') / 1000 + 30 * 86_400],
      ['DECISION#2025-06-02T12:00:50.000Z#d2', 'held', at('12:00:50') / 1000 + 30 * 86_400],
    ]);
  });
});

describe('the example policy (examples/policy.yaml)', () => {
  // The numbers come from the file, so retuning it does not break this replay: a storm of 250
  // requests per instance on 2 instances is at least twice any target the example would set.
  const parsed = parsePolicyText(EXAMPLE_POLICY);
  if (!parsed.ok) throw new Error('examples/policy.yaml does not load');
  const target = parsed.policy.targets[0]!;
  const perInstance = target.signals.find((s) => s.metric === 'invocationsPerInstance');
  if (!perInstance || !('target' in perInstance))
    throw new Error('the example has no invocationsPerInstance');

  it('a storm tick panics out through the state machine, asking for no more than the load over its target', async () => {
    const h = harness();
    h.parameters.set(CONFIG.POLICY_PARAMETER_NAME, EXAMPLE_POLICY);
    Object.assign(h.metricValues, STORM);
    const [record] = (await h.evaluate(eventFile('scheduler-tick'), at('12:00:30'))).records;
    const wanted = Math.min(
      target.scaling.maxCapacity,
      Math.ceil((2 * STORM.InvocationsPerInstance) / perInstance.target),
    );
    expect(record).toMatchObject({
      outcome: 'started',
      decision: {
        action: 'scale-out',
        currentCapacity: 2,
        reasons: expect.arrayContaining(['PanicScaleOut']),
      },
    });
    expect(record!.decision!.desiredCapacity).toBeGreaterThan(2);
    expect(record!.decision!.desiredCapacity).toBeLessThanOrEqual(wanted);
    const input = JSON.parse(h.mocks.sfn.commandCalls(StartExecutionCommand)[0]!.args[0].input.input!);
    expect(input).toMatchObject({ targetId: target.id, desiredCapacity: record!.decision!.desiredCapacity });
  });
});

describe('one storm tick under each condition', () => {
  const tick = eventFile('scheduler-tick');
  const NOW = at('12:00:30');
  const registered = {
    ScalableTargets: [
      {
        ServiceNamespace: 'sagemaker' as const,
        ResourceId: 'endpoint/chat-llm-prod/variant/AllTraffic',
        ScalableDimension: 'sagemaker:variant:DesiredInstanceCount' as const,
        MinCapacity: 1,
        MaxCapacity: 4,
        RoleARN: 'arn:aws:iam::123456789012:role/aas',
        CreationTime: new Date(0),
      },
    ],
  };
  const withPolicies = (h: ReturnType<typeof harness>) => {
    h.mocks.aas.on(DescribeScalableTargetsCommand).resolves(registered);
    h.mocks.aas
      .on(DescribeScalingPoliciesCommand)
      .resolves({ ScalingPolicies: [{ PolicyName: 'chat-tt' } as never] });
  };

  it.each([
    {
      case: 'shadow mode decides, claims and records, and never starts anything',
      setup: () => harness({ deps: { mode: 'shadow' } }),
      calls: [...FIRST, 'DynamoDB.Get', 'DynamoDB.Update', 'DynamoDB.Put'],
      outcome: 'shadow',
    },
    {
      case: 'the kill switch stops the action and leaves the engine state unwritten',
      setup: () => {
        const h = harness();
        h.parameters.set(CONFIG.KILL_SWITCH_PARAMETER_NAME, 'on');
        return h;
      },
      calls: [...FIRST, 'DynamoDB.Get', 'DynamoDB.Put'],
      outcome: 'killed',
    },
    {
      case: 'an unreadable kill switch counts as on',
      setup: () => {
        const h = harness();
        h.mocks.ssm.callsFake(async (input: { Name: string }) => {
          if (input.Name === CONFIG.KILL_SWITCH_PARAMETER_NAME)
            throw Object.assign(new Error('no'), { name: 'AccessDeniedException' });
          return { Parameter: { Value: REPLAY_POLICY } };
        });
        return h;
      },
      calls: [...FIRST, 'DynamoDB.Get', 'DynamoDB.Put'],
      outcome: 'killed',
    },
    {
      case: 'an Updating endpoint defers the change to the next tick',
      setup: () => harness({ endpoint: { current: 2, desired: 2, status: 'Updating' } }),
      calls: [...FIRST, 'DynamoDB.Get', 'DynamoDB.Put'],
      outcome: 'deferred',
    },
    {
      case: 'a target scaled by Application Auto Scaling is refused with its policy named',
      setup: () => {
        const h = harness();
        withPolicies(h);
        return h;
      },
      calls: [...FIRST, 'ApplicationAutoScaling.DescribeScalingPolicies', 'DynamoDB.Get', 'DynamoDB.Put'],
      outcome: 'refused',
    },
    {
      case: 'with onConflictingScaler suspend, the execution is asked to suspend dynamic scaling: the evaluator changes nothing on SageMaker itself',
      setup: () => {
        const h = harness();
        withPolicies(h);
        h.parameters.set(
          CONFIG.POLICY_PARAMETER_NAME,
          REPLAY_POLICY.replace('    damping:', '    onConflictingScaler: suspend\n    damping:'),
        );
        return h;
      },
      calls: [
        ...FIRST,
        'ApplicationAutoScaling.DescribeScalingPolicies',
        'DynamoDB.Get',
        'DynamoDB.Update',
        'StepFunctions.StartExecution',
        'DynamoDB.Put',
      ],
      outcome: 'started',
    },
    {
      case: 'a failed start is recorded as failed and the claim is undone',
      setup: () => {
        const h = harness();
        h.mocks.sfn
          .on(StartExecutionCommand)
          .rejects(Object.assign(new Error('not allowed'), { name: 'AccessDeniedException' }));
        return h;
      },
      calls: [
        ...FIRST,
        'DynamoDB.Get',
        'DynamoDB.Update',
        'StepFunctions.StartExecution',
        'DynamoDB.Update',
        'DynamoDB.Put',
      ],
      outcome: 'failed',
    },
    {
      case: 'metrics that cannot be read hold on NoData: nothing scales on data it does not have',
      setup: () => {
        const h = harness();
        h.mocks.cw
          .on(GetMetricDataCommand)
          .rejects(Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' }));
        return h;
      },
      calls: [...FIRST, 'DynamoDB.Get', 'DynamoDB.Update', 'DynamoDB.Put'],
      outcome: 'held',
    },
  ])('$case', async ({ setup, calls, outcome }) => {
    const h = setup();
    Object.assign(h.metricValues, STORM);
    const report = await h.evaluate(tick, NOW);
    expect(h.takeCalls()).toEqual(calls);
    expect(report.records.map((r) => r.outcome)).toEqual([outcome]);
  });

  it('with onConflictingScaler suspend, the start names the scalable target the execution suspends before the change, and the record says so', async () => {
    const h = harness();
    withPolicies(h);
    h.parameters.set(
      CONFIG.POLICY_PARAMETER_NAME,
      REPLAY_POLICY.replace('    damping:', '    onConflictingScaler: suspend\n    damping:'),
    );
    Object.assign(h.metricValues, STORM);
    const [record] = (await h.evaluate(tick, NOW)).records;
    const input = JSON.parse(String(h.mocks.sfn.commandCalls(StartExecutionCommand)[0]!.args[0].input.input));
    expect(input.suspend).toEqual({
      resourceId: 'endpoint/chat-llm-prod/variant/AllTraffic',
      scalableDimension: 'sagemaker:variant:DesiredInstanceCount',
    });
    expect(record).toMatchObject({
      outcome: 'started',
      suspended: 'endpoint/chat-llm-prod/variant/AllTraffic',
    });
    expect(record?.detail).toContain(
      'it suspends the Application Auto Scaling policies on endpoint/chat-llm-prod/variant/AllTraffic first',
    );
  });

  it('with onConflictingScaler suspend, a hold suspends nothing and says the other scaler runs until the first change', async () => {
    const h = harness();
    withPolicies(h);
    h.parameters.set(
      CONFIG.POLICY_PARAMETER_NAME,
      REPLAY_POLICY.replace('    damping:', '    onConflictingScaler: suspend\n    damping:'),
    );
    const [record] = (await h.evaluate(tick, NOW)).records;
    expect(record).toMatchObject({ outcome: 'held', suspended: null });
    expect(record?.detail).toContain(
      "stay active until Governor's first change, which the scale-target state machine makes after suspending them",
    );
    expect(h.mocks.sfn.commandCalls(StartExecutionCommand)).toEqual([]);
  });

  it('a failed start leaves the engine state as it was before the decision', async () => {
    const h = harness();
    Object.assign(h.metricValues, STORM);
    h.mocks.sfn
      .on(StartExecutionCommand)
      .rejects(Object.assign(new Error('not allowed'), { name: 'AccessDeniedException' }));
    const [record] = (await h.evaluate(tick, NOW)).records;
    expect(record?.detail).toBe('action failed: AccessDeniedException: not allowed');
    expect(h.table.state('chat-llm')).toMatchObject({ version: 2, engine: initialState() });
    expect(h.table.state('chat-llm')?.pending).toBeUndefined();
  });

  it('a calm tick makes exactly the reads of a storm tick: constant work', async () => {
    const calm = harness();
    await calm.evaluate(tick, NOW);
    const calmCalls = calm.takeCalls();
    const storm = harness();
    Object.assign(storm.metricValues, STORM);
    await storm.evaluate(tick, NOW);
    expect(storm.takeCalls().filter((c) => c !== 'StepFunctions.StartExecution')).toEqual(calmCalls);
    expect(calm.telemetry.decisions[0]?.decision?.reasons).toEqual(['WithinBand']);
  });

  it('the metric problem is logged, and the decision says NoData', async () => {
    const h = harness();
    h.mocks.cw
      .on(GetMetricDataCommand)
      .rejects(Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' }));
    const [record] = (await h.evaluate(tick, NOW)).records;
    expect(record?.decision?.reasons).toEqual(['NoData']);
    expect(h.telemetry.lines).toContainEqual({
      level: 'warn',
      message:
        'metrics: GetMetricData in us-east-1 failed (ThrottlingException: Rate exceeded): its signals read as missing',
    });
  });
});

describe('a group that EC2 Auto Scaling policies also scale', () => {
  const groupPolicy = conflictGroupPolicy;
  const targetTracking: ScalingPolicy = {
    PolicyName: 'batch-cpu-tt',
    PolicyType: 'TargetTrackingScaling',
    Enabled: true,
  };
  const disabledSteps: ScalingPolicy = { PolicyName: 'old-steps', PolicyType: 'StepScaling', Enabled: false };
  const predictive: ScalingPolicy = {
    PolicyName: 'batch-predictive',
    PolicyType: 'PredictiveScaling',
    Enabled: true,
    PredictiveScalingConfiguration: { MetricSpecifications: [], Mode: 'ForecastAndScale' },
  };
  const tickAt = (id: string, hhmmss: string) => ({
    ...(eventFile('scheduler-tick') as object),
    id,
    time: `2025-06-02T${hhmmss}Z`,
  });
  const READ_GROUP = [
    'SSM.GetParameter',
    'SSM.GetParametersByPath',
    'SSM.GetParameter',
    'CloudWatch.GetMetricData',
    'AutoScaling.DescribeAutoScalingGroups',
    'AutoScaling.DescribePolicies',
  ];
  // GPU at 95 % against 70 on 2 instances: ceil(2 x 95 / 70) = 3.
  const setup = (onConflictingScaler: 'refuse' | 'suspend', policies: ScalingPolicy[]) => {
    const h = harness();
    h.parameters.set(CONFIG.POLICY_PARAMETER_NAME, groupPolicy(onConflictingScaler));
    h.metricValues.nvidia_smi_utilization_gpu = 95;
    return { h, group: fakeGroup(h.mocks.asg, 'batch-gpu-asg', { desired: 2, ready: 2, policies }) };
  };

  it.each([
    {
      case: 'with refuse, the change is refused naming the group, its policies and both ways out',
      mode: 'refuse' as const,
      policies: [targetTracking, disabledSteps],
      calls: [...READ_GROUP, 'DynamoDB.Get', 'DynamoDB.Put'],
      outcome: 'refused',
      detail:
        'EC2 Auto Scaling policies "batch-cpu-tt" also scale Auto Scaling group batch-gpu-asg: Governor will not fight them; delete them, or set onConflictingScaler: suspend',
      desired: 2,
    },
    {
      case: 'a disabled policy alone is no conflict: the change is set',
      mode: 'refuse' as const,
      policies: [disabledSteps],
      calls: [
        ...READ_GROUP,
        'DynamoDB.Get',
        'DynamoDB.Update',
        'AutoScaling.SetDesiredCapacity',
        'DynamoDB.Put',
      ],
      outcome: 'applied',
      detail: 'SetDesiredCapacity 2 -> 3',
      desired: 3,
    },
    {
      case: 'with suspend, a predictive policy is still refused and nothing is suspended',
      mode: 'suspend' as const,
      policies: [targetTracking, predictive],
      calls: [...READ_GROUP, 'DynamoDB.Get', 'DynamoDB.Put'],
      outcome: 'refused',
      detail:
        'EC2 Auto Scaling policies "batch-cpu-tt", "batch-predictive" also scale Auto Scaling group batch-gpu-asg: Governor will not fight them; predictive scaling "batch-predictive" is not driven by alarms, so suspending cannot stop it; delete it, or set its mode to ForecastOnly',
      desired: 2,
    },
  ])('$case', async ({ mode, policies, calls, outcome, detail, desired }) => {
    const { h, group } = setup(mode, policies);
    const [record] = (await h.evaluate(tickAt('t1', '12:00:30'), at('12:00:30'))).records;
    expect(h.takeCalls()).toEqual(calls);
    expect(record).toMatchObject({ outcome, detail, suspended: null });
    expect(group.desired).toBe(desired);
    expect(h.mocks.asg.commandCalls(SuspendProcessesCommand)).toHaveLength(0);
  });

  it('with suspend, AlarmNotification is suspended after the claim and before SetDesiredCapacity; the next tick finds no conflict', async () => {
    const { h, group } = setup('suspend', [targetTracking]);
    const first = await h.evaluate(tickAt('t1', '12:00:30'), at('12:00:30'));
    expect(h.takeCalls()).toEqual([
      ...READ_GROUP,
      'DynamoDB.Get',
      'DynamoDB.Update',
      'AutoScaling.SuspendProcesses',
      'AutoScaling.SetDesiredCapacity',
      'DynamoDB.Put',
    ]);
    expect(h.mocks.asg.commandCalls(SuspendProcessesCommand)[0]!.args[0].input).toEqual({
      AutoScalingGroupName: 'batch-gpu-asg',
      ScalingProcesses: ['AlarmNotification'],
    });
    expect(first.records[0]).toMatchObject({
      outcome: 'applied',
      suspended: 'batch-gpu-asg',
      inputs: {
        conflict: 'EC2 Auto Scaling policies "batch-cpu-tt" also scale Auto Scaling group batch-gpu-asg',
      },
      action: { type: 'set-desired-capacity', desiredCapacity: 3, previousCapacity: 2 },
    });
    expect(h.telemetry.lines).toContainEqual({
      level: 'warn',
      message: 'suspended the AlarmNotification process of Auto Scaling group batch-gpu-asg',
    });
    expect(group.desired).toBe(3);

    h.setMetricMinute('2025-06-02T12:00:00Z');
    const second = await h.evaluate(tickAt('t2', '12:01:30'), at('12:01:30'));
    expect(h.takeCalls()).not.toContain('AutoScaling.SuspendProcesses');
    expect(second.records[0]).toMatchObject({
      outcome: 'held',
      suspended: null,
      inputs: { conflict: null },
    });
  });

  it('a DescribePolicies failure fails that group only, and nothing is changed', async () => {
    const { h, group } = setup('suspend', [targetTracking]);
    h.mocks.asg
      .on(DescribePoliciesCommand)
      .rejects(Object.assign(new Error('Rate exceeded'), { name: 'Throttling' }));
    const [record] = (await h.evaluate(tickAt('t1', '12:00:30'), at('12:00:30'))).records;
    expect(record).toMatchObject({
      outcome: 'failed',
      detail: 'cannot check for other scalers: Throttling: Rate exceeded',
    });
    expect(group.desired).toBe(2);
  });
});

describe('a group scaled to zero that wakes on the backlog it names', () => {
  const policy = `version: 1
targets:
  - id: batch-gpu
    kind: ec2-asg
    region: us-east-1
    autoScalingGroupName: batch-gpu-asg
    scaling:
      minCapacity: 0
      maxCapacity: 10
      scaleToZero: true
      activation:
        metric: queueDepth
        threshold: 0
        cloudwatch:
          namespace: AWS/SQS
          metricName: ApproximateNumberOfMessagesVisible
          dimensions: { QueueName: batch-jobs }
          statistic: Maximum
    signals:
      - { metric: gpuUtilization, target: 70 }
`;
  const tick = { ...(eventFile('scheduler-tick') as object), id: 'z1', time: '2025-06-02T12:00:30Z' };

  it.each([
    {
      case: 'a backlog of 12 messages wakes it to one instance',
      backlog: 12,
      desired: 1,
      reason: 'ActivationFromZero',
    },
    { case: 'an empty queue keeps it at zero', backlog: 0, desired: 0, reason: 'IdleAtZero' },
  ])('$case', async ({ backlog, desired, reason }) => {
    const h = harness();
    h.parameters.set(CONFIG.POLICY_PARAMETER_NAME, policy);
    h.metricValues.ApproximateNumberOfMessagesVisible = backlog;
    const group = fakeGroup(h.mocks.asg, 'batch-gpu-asg', { desired: 0, ready: 0, policies: [] });
    const [record] = (await h.evaluate(tick, at('12:00:30'))).records;
    expect(record?.decision?.reasons).toContain(reason);
    expect(group.desired).toBe(desired);
    const query = h.mocks.cw
      .commandCalls(GetMetricDataCommand)[0]!
      .args[0].input.MetricDataQueries!.find(
        (q) => q.MetricStat?.Metric?.MetricName === 'ApproximateNumberOfMessagesVisible',
      );
    expect(query?.MetricStat).toMatchObject({
      Metric: { Namespace: 'AWS/SQS', Dimensions: [{ Name: 'QueueName', Value: 'batch-jobs' }] },
      Stat: 'Maximum',
    });
  });
});

describe('the policy from SSM', () => {
  it('an invalid update keeps the last good policy, logs every problem and counts a load failure', async () => {
    const h = harness();
    await h.evaluate(eventFile('scheduler-tick'), at('12:00:30'));
    h.parameters.set(
      CONFIG.POLICY_PARAMETER_NAME,
      REPLAY_POLICY.replace('maxCapacity: 80', 'maxCapacity: 0').replace('target: 84', 'target: -1'),
    );
    const tick2 = { ...(eventFile('scheduler-tick') as object), id: 'tick-2', time: '2025-06-02T12:01:30Z' };
    const report = await h.evaluate(tick2, at('12:01:31'));
    expect(report.records.map((r) => r.outcome)).toEqual(['held']);
    expect(h.telemetry.policyFailures).toEqual([
      [
        '/governor/policy: targets[0].scaling.maxCapacity must be at least 1',
        '/governor/policy: targets[0].signals[0].target must be greater than 0',
      ],
    ]);
  });

  it('the policy is re-read only after POLICY_CACHE_SECONDS', async () => {
    const h = harness();
    const tickAt = (id: string, iso: string) => ({
      ...(eventFile('scheduler-tick') as object),
      id,
      time: iso,
    });
    await h.evaluate(tickAt('a', '2025-06-02T12:00:00Z'), at('12:00:01'));
    await h.evaluate(tickAt('b', '2025-06-02T12:00:59Z'), at('12:01:00'));
    await h.evaluate(tickAt('c', '2025-06-02T12:01:01Z'), at('12:01:01'));
    const ssmCalls = h.mocks.ssm.calls().map((c) => {
      const input = c.args[0].input as { Name?: string; Path?: string };
      return input.Name ?? `${input.Path}/*`;
    });
    expect(ssmCalls).toEqual([
      '/governor/policy',
      '/governor/policy/parts/*',
      '/governor/kill-switch',
      '/governor/kill-switch',
      '/governor/policy',
      '/governor/policy/parts/*',
      '/governor/kill-switch',
    ]);
  });

  it('with no valid policy at all the invocation fails and nothing else is called', async () => {
    const h = harness();
    h.parameters.set(CONFIG.POLICY_PARAMETER_NAME, 'version: 2');
    await expect(h.evaluate(eventFile('scheduler-tick'), at('12:00:30'))).rejects.toBeInstanceOf(
      PolicyUnavailableError,
    );
    expect(h.takeCalls()).toEqual(['SSM.GetParameter', 'SSM.GetParametersByPath']);
    expect(h.telemetry.policyFailures).toEqual([
      ['/governor/policy: version must be one of 1', '/governor/policy: targets is required (array)'],
    ]);
  });

  it('a failed invocation forgets the event id, so the retry is evaluated', async () => {
    const h = harness();
    h.parameters.set(CONFIG.POLICY_PARAMETER_NAME, 'version: 2');
    await expect(h.evaluate(eventFile('scheduler-tick'), at('12:00:30'))).rejects.toThrow();
    h.parameters.set(CONFIG.POLICY_PARAMETER_NAME, REPLAY_POLICY);
    const report = await h.evaluate(eventFile('scheduler-tick'), at('12:01:31'));
    expect(report.records.map((r) => r.outcome)).toEqual(['held']);
  });
});
