/**
 * The kill switch's release in the evaluate function (functions/evaluate/release.ts), replayed
 * through the real adapters: with the switch on "release", the scalers Governor suspended on
 * targets with onConflictingScaler: suspend are resumed before the (killed) evaluation, each
 * record says what was resumed, nothing is scaled; the next tick finds nothing to resume.
 */
import {
  DescribeScalableTargetsCommand,
  RegisterScalableTargetCommand,
} from '@aws-sdk/client-application-auto-scaling';
import { ResumeProcessesCommand, type ScalingPolicy } from '@aws-sdk/client-auto-scaling';
import { describe, expect, it } from 'vitest';
import { CONFIG, conflictGroupPolicy, eventFile, fakeGroup, harness, REPLAY_POLICY } from './harness.ts';

const at = (hhmmss: string) => Date.parse(`2025-06-02T${hhmmss}Z`);
const tickAt = (id: string, hhmmss: string) => ({
  ...(eventFile('scheduler-tick') as object),
  id,
  time: `2025-06-02T${hhmmss}Z`,
});
const SWITCH = CONFIG.KILL_SWITCH_PARAMETER_NAME;

const groupPolicy = conflictGroupPolicy;
const targetTracking: ScalingPolicy = {
  PolicyName: 'batch-cpu-tt',
  PolicyType: 'TargetTrackingScaling',
  Enabled: true,
};

function groupSetup(mode: 'refuse' | 'suspend') {
  const h = harness();
  h.parameters.set(CONFIG.POLICY_PARAMETER_NAME, groupPolicy(mode));
  h.metricValues.nvidia_smi_utilization_gpu = 95;
  const group = fakeGroup(h.mocks.asg, 'batch-gpu-asg', { desired: 2, ready: 2, policies: [targetTracking] });
  h.mocks.asg.on(ResumeProcessesCommand).callsFake(async (input) => {
    for (const p of input.ScalingProcesses ?? []) group.suspended.delete(p);
    return {};
  });
  return { h, group };
}

describe('release on an Auto Scaling group Governor suspended', () => {
  it('resumes AlarmNotification, scales nothing, records it; the next tick finds nothing to resume', async () => {
    const { h, group } = groupSetup('suspend');
    // Governor's own change first: it suspends AlarmNotification, then sets 2 -> 3.
    await h.evaluate(tickAt('t1', '12:00:30'), at('12:00:30'));
    expect([...group.suspended]).toEqual(['AlarmNotification']);
    h.takeCalls();

    h.parameters.set(SWITCH, 'release');
    h.metricValues.nvidia_smi_utilization_gpu = 99;
    const [released] = (await h.evaluate(tickAt('t2', '12:01:30'), at('12:01:30'))).records;
    expect(h.takeCalls()).toContain('AutoScaling.ResumeProcesses');
    expect(h.mocks.asg.commandCalls(ResumeProcessesCommand)[0]!.args[0].input).toEqual({
      AutoScalingGroupName: 'batch-gpu-asg',
      ScalingProcesses: ['AlarmNotification'],
    });
    expect(released).toMatchObject({
      outcome: 'killed',
      resumed: 'batch-gpu-asg',
      detail:
        'the kill switch says release: Governor resumes the scalers it suspended and changes nothing else; released: resumed the AlarmNotification process of Auto Scaling group batch-gpu-asg',
    });
    expect(group.suspended.size).toBe(0);
    expect(group.desired).toBe(3);
    expect(h.table.audits().at(-1)).toMatchObject({ resumed: 'batch-gpu-asg', outcome: 'killed' });

    const [after] = (await h.evaluate(tickAt('t3', '12:02:30'), at('12:02:30'))).records;
    expect(h.takeCalls()).not.toContain('AutoScaling.ResumeProcesses');
    expect(after).toMatchObject({ outcome: 'killed', resumed: null });
    expect(after?.detail).toMatch(
      /released: the AlarmNotification process of batch-gpu-asg was not suspended$/,
    );
  });

  it('leaves a group with onConflictingScaler: refuse alone: Governor suspended nothing there', async () => {
    const { h, group } = groupSetup('refuse');
    group.suspended.add('AlarmNotification'); // an operator's suspension, not Governor's
    h.parameters.set(SWITCH, 'release');
    const [record] = (await h.evaluate(tickAt('t1', '12:00:30'), at('12:00:30'))).records;
    expect(h.mocks.asg.commandCalls(ResumeProcessesCommand)).toHaveLength(0);
    expect(record).toMatchObject({ outcome: 'killed' });
    expect(record).not.toHaveProperty('resumed');
    expect([...group.suspended]).toEqual(['AlarmNotification']);
  });
});

describe('release on a SageMaker variant whose Application Auto Scaling policies the state machine suspended', () => {
  const policy = REPLAY_POLICY.replace('    damping:', '    onConflictingScaler: suspend\n    damping:');
  const suspendedTarget = {
    ServiceNamespace: 'sagemaker' as const,
    ResourceId: 'endpoint/chat-llm-prod/variant/AllTraffic',
    ScalableDimension: 'sagemaker:variant:DesiredInstanceCount' as const,
    MinCapacity: 1,
    MaxCapacity: 10,
    RoleARN: 'arn:aws:iam::123456789012:role/aas',
    CreationTime: new Date('2025-06-01T00:00:00Z'),
    SuspendedState: {
      DynamicScalingInSuspended: true,
      DynamicScalingOutSuspended: true,
      ScheduledScalingSuspended: false,
    },
  };

  it('registers the target again with dynamic scaling resumed, scheduled scaling as it was, and starts no execution', async () => {
    const h = harness();
    h.parameters.set(CONFIG.POLICY_PARAMETER_NAME, policy);
    h.parameters.set(SWITCH, 'Release\n');
    h.mocks.aas.on(DescribeScalableTargetsCommand).resolves({ ScalableTargets: [suspendedTarget] });
    h.mocks.aas.on(RegisterScalableTargetCommand).resolves({});
    const [record] = (await h.evaluate(tickAt('t1', '12:00:30'), at('12:00:30'))).records;
    expect(h.mocks.aas.commandCalls(RegisterScalableTargetCommand).map((c) => c.args[0].input)).toEqual([
      {
        ServiceNamespace: 'sagemaker',
        ResourceId: 'endpoint/chat-llm-prod/variant/AllTraffic',
        ScalableDimension: 'sagemaker:variant:DesiredInstanceCount',
        SuspendedState: {
          DynamicScalingInSuspended: false,
          DynamicScalingOutSuspended: false,
          ScheduledScalingSuspended: false,
        },
      },
    ]);
    expect(h.takeCalls()).not.toContain('StepFunctions.StartExecution');
    expect(record).toMatchObject({
      outcome: 'killed',
      resumed: 'endpoint/chat-llm-prod/variant/AllTraffic',
    });
    expect(record?.detail).toMatch(
      /; released: resumed the Application Auto Scaling policies on endpoint\/chat-llm-prod\/variant\/AllTraffic \(dynamic scaling no longer suspended\)$/,
    );
  });

  it('records a resume that fails, and the next tick tries again', async () => {
    const h = harness();
    h.parameters.set(CONFIG.POLICY_PARAMETER_NAME, policy);
    h.parameters.set(SWITCH, 'release');
    h.mocks.aas.on(DescribeScalableTargetsCommand).resolves({ ScalableTargets: [suspendedTarget] });
    h.mocks.aas
      .on(RegisterScalableTargetCommand)
      .rejects(Object.assign(new Error('not allowed'), { name: 'AccessDeniedException' }));
    const [record] = (await h.evaluate(tickAt('t1', '12:00:30'), at('12:00:30'))).records;
    expect(record).toMatchObject({ outcome: 'killed', resumed: null });
    expect(record?.detail).toMatch(
      /release could not resume .* \(AccessDeniedException: not allowed\); the next tick tries again$/,
    );
    expect(
      h.telemetry.lines.some((l) => l.level === 'error' && l.message.startsWith('release could not resume')),
    ).toBe(true);
  });

  it('in shadow mode changes nothing: no Application Auto Scaling write', async () => {
    const h = harness({ deps: { mode: 'shadow' } });
    h.parameters.set(CONFIG.POLICY_PARAMETER_NAME, policy);
    h.parameters.set(SWITCH, 'release');
    h.mocks.aas.on(DescribeScalableTargetsCommand).resolves({ ScalableTargets: [suspendedTarget] });
    await h.evaluate(tickAt('t1', '12:00:30'), at('12:00:30'));
    expect(h.mocks.aas.commandCalls(RegisterScalableTargetCommand)).toHaveLength(0);
  });
});
