/**
 * The operator's live commands on moto, through the real SDK: a stack deployed with
 * CloudFormation (its outputs name the table and the parameters, as template.yaml's do), a
 * SageMaker variant whose target tracking policy Application Auto Scaling holds suspended and an
 * Auto Scaling group with AlarmNotification suspended, as Governor leaves them with
 * onConflictingScaler: suspend.
 *
 * `governor release` writes "release"; the evaluate function's next tick resumes both scalers
 * (read back from Application Auto Scaling and EC2 Auto Scaling) and records what it resumed;
 * `governor pause` and `resume` write on and off. One moto server for the file.
 */
import {
  ApplicationAutoScalingClient,
  DescribeScalableTargetsCommand,
  DescribeScalingPoliciesCommand,
  PutScalingPolicyCommand,
  RegisterScalableTargetCommand,
} from '@aws-sdk/client-application-auto-scaling';
import {
  AutoScalingClient,
  DescribeAutoScalingGroupsCommand,
  PutScalingPolicyCommand as PutGroupPolicyCommand,
  SuspendProcessesCommand,
} from '@aws-sdk/client-auto-scaling';
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { SageMakerClient } from '@aws-sdk/client-sagemaker';
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { evaluatorOnStack, stubLiveEnv } from '../live/moto-evaluate.ts';
import { deployGovernorStack } from '../live/moto-stack.ts';
import { runCli } from '../support/cli.ts';
import {
  awsTestConfig,
  createDemoEndpoint,
  createDemoGroup,
  type MotoServer,
  motoGate,
  startMoto,
  TEST_ACCOUNT,
  TEST_REGION,
} from '../support/moto.ts';

const gate = motoGate();

const STACK = 'governor-live';
const NAMES = {
  table: 'governor-live-state',
  killSwitch: '/governor-live/kill-switch',
  policy: '/governor-live/policy',
  stateMachineArn: `arn:aws:states:${TEST_REGION}:${TEST_ACCOUNT}:stateMachine:governor-live-scale`,
};
const VARIANT = {
  ServiceNamespace: 'sagemaker' as const,
  ResourceId: 'endpoint/live-llm/variant/AllTraffic',
  ScalableDimension: 'sagemaker:variant:DesiredInstanceCount' as const,
};

const POLICY = `version: 1
targets:
  - id: live-llm
    kind: sagemaker-variant
    region: ${TEST_REGION}
    endpointName: live-llm
    scaling: { minCapacity: 1, maxCapacity: 10 }
    signals:
      - { metric: invocationsPerInstance, target: 100 }
    onConflictingScaler: suspend
  - id: live-batch
    kind: ec2-asg
    region: ${TEST_REGION}
    autoScalingGroupName: live-batch-asg
    scaling: { minCapacity: 1, maxCapacity: 10 }
    signals:
      - { metric: gpuUtilization, target: 70 }
    onConflictingScaler: suspend
`;

describe.skipIf(!gate.available)('live commands on a moto-deployed stack', () => {
  let moto: MotoServer;
  let aas: ApplicationAutoScalingClient;
  let asg: AutoScalingClient;
  let ssm: SSMClient;
  const cli = (...args: string[]) => runCli([...args, '--stack', STACK, '--region', TEST_REGION]);

  beforeAll(async () => {
    moto = await startMoto();
    const config = awsTestConfig(moto.endpoint);
    await deployGovernorStack(new CloudFormationClient(config), STACK, NAMES, POLICY);
    await createDemoEndpoint(new SageMakerClient(config), 'live-llm', 2);
    aas = new ApplicationAutoScalingClient(config);
    await aas.send(new RegisterScalableTargetCommand({ ...VARIANT, MinCapacity: 1, MaxCapacity: 4 }));
    await aas.send(
      new PutScalingPolicyCommand({
        ...VARIANT,
        PolicyName: 'live-llm-tt',
        PolicyType: 'TargetTrackingScaling',
        TargetTrackingScalingPolicyConfiguration: {
          TargetValue: 70,
          PredefinedMetricSpecification: { PredefinedMetricType: 'SageMakerVariantInvocationsPerInstance' },
        },
      }),
    );
    // What the scale-target state machine's "Suspend the other scaler" step sends.
    await aas.send(
      new RegisterScalableTargetCommand({
        ...VARIANT,
        SuspendedState: {
          DynamicScalingInSuspended: true,
          DynamicScalingOutSuspended: true,
          ScheduledScalingSuspended: false,
        },
      }),
    );
    asg = new AutoScalingClient(config);
    await createDemoGroup(asg, 'live-batch-asg', 2);
    await asg.send(
      new PutGroupPolicyCommand({
        AutoScalingGroupName: 'live-batch-asg',
        PolicyName: 'live-batch-tt',
        PolicyType: 'TargetTrackingScaling',
        TargetTrackingConfiguration: {
          TargetValue: 60,
          PredefinedMetricSpecification: { PredefinedMetricType: 'ASGAverageCPUUtilization' },
        },
      }),
    );
    await asg.send(
      new SuspendProcessesCommand({
        AutoScalingGroupName: 'live-batch-asg',
        ScalingProcesses: ['AlarmNotification'],
      }),
    );
    ssm = new SSMClient(config);
    stubLiveEnv(moto.endpoint);
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await moto?.stop();
  });

  /** One tick of the evaluate function against the stack's table and parameters. */
  const evaluateOnce = (now: number) => evaluatorOnStack(moto.endpoint, NAMES)(now);

  const killSwitch = async () =>
    (await ssm.send(new GetParameterCommand({ Name: NAMES.killSwitch }))).Parameter?.Value;

  it('release: the command writes "release", the next tick resumes the target tracking policy and the group\'s AlarmNotification, and records both', async () => {
    const released = await cli('release');
    expect(released).toMatchObject({ code: 0, err: [] });
    expect(released.out[0]).toMatch(
      /^kill switch \/governor-live\/kill-switch: off -> release: Governor changes nothing/,
    );
    expect(await killSwitch()).toBe('release');

    const now = Date.now();
    const report = await evaluateOnce(now);
    expect(report.records.map((r) => [r.targetId, r.outcome, r.resumed])).toEqual([
      ['live-llm', 'killed', VARIANT.ResourceId],
      ['live-batch', 'killed', 'live-batch-asg'],
    ]);

    const target = (
      await aas.send(
        new DescribeScalableTargetsCommand({
          ServiceNamespace: 'sagemaker',
          ResourceIds: [VARIANT.ResourceId],
        }),
      )
    ).ScalableTargets?.[0];
    expect(target?.SuspendedState).toMatchObject({
      DynamicScalingInSuspended: false,
      DynamicScalingOutSuspended: false,
    });
    const policies = await aas.send(
      new DescribeScalingPoliciesCommand({ ServiceNamespace: 'sagemaker', ResourceId: VARIANT.ResourceId }),
    );
    expect(policies.ScalingPolicies?.map((p) => p.PolicyName)).toEqual(['live-llm-tt']);
    const group = (
      await asg.send(new DescribeAutoScalingGroupsCommand({ AutoScalingGroupNames: ['live-batch-asg'] }))
    ).AutoScalingGroups?.[0];
    expect(group?.SuspendedProcesses).toEqual([]);
    expect(group?.DesiredCapacity).toBe(2);

    const again = await evaluateOnce(now + 60_000);
    expect(again.records.map((r) => r.resumed)).toEqual([null, null]);
  });

  it('pause writes on and resume writes off, each saying what it was', async () => {
    const paused = await cli('pause');
    expect(paused.code).toBe(0);
    expect(paused.out[0]).toMatch(/: release -> on: /);
    expect(await killSwitch()).toBe('on');
    expect((await cli('pause')).out[0]).toMatch(/: already on: /);
    const resumed = await cli('resume');
    expect(resumed.out[0]).toMatch(/: on -> off: Governor acts again/);
    expect(await killSwitch()).toBe('off');
  });

  it('decisions: the timeline of the records the ticks wrote, oldest first, the release in it; --json one object each', async () => {
    const run = await cli('decisions', '--target', 'live-batch', '--since', '1h');
    expect(run).toMatchObject({ code: 0, err: [] });
    const heads = run.out.filter((l) => !l.startsWith('    '));
    expect(heads).toHaveLength(2);
    expect(heads[0]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ {2}2 -> 2 {4}killed {4}NoData$/);
    expect(run.out[1]).toMatch(
      /the kill switch says release: .*; released: resumed the AlarmNotification process of Auto Scaling group live-batch-asg$/,
    );
    const json = await cli('decisions', '--target', 'live-batch', '--since', '1h', '--json');
    expect(json.out.map((l) => JSON.parse(l)).map((r) => [r.outcome, r.resumed])).toEqual([
      ['killed', 'live-batch-asg'],
      ['killed', null],
    ]);
  });

  it('decisions --follow polls for records after the last one shown, until stopped', async () => {
    const { decisionsWith } = await import('#shared/cli/decisions.ts');
    const out: string[] = [];
    const io = {
      stdout: (l: string) => out.push(l),
      stderr: () => {},
      stderrIsTTY: false,
      cwd: process.cwd(),
    };
    let polls = 0;
    const wait = async (ms: number) => {
      expect(ms).toBe(5_000);
      polls++;
      if (polls === 1) await evaluateOnce(Date.now() + 120_000);
      return polls < 3;
    };
    const follow = decisionsWith({ now: Date.now, wait });
    const args = [
      '--target',
      'live-llm',
      '--since',
      '1h',
      '--follow',
      '--interval',
      '5',
      '--stack',
      STACK,
      '--region',
      TEST_REGION,
    ];
    expect(await follow(args, io)).toBe(0);
    expect(polls).toBe(3);
    expect(out.filter((l) => !l.startsWith('    '))).toHaveLength(3);
  });

  it('names the fix in one line, exit 2, for a stack that does not exist', async () => {
    const run = await runCli(['pause', '--stack', 'no-such-stack', '--region', TEST_REGION]);
    expect(run).toMatchObject({ code: 2, out: [] });
    expect(run.err).toEqual([
      'governor pause: no stack no-such-stack in us-east-1: deploy Governor (sam deploy --guided), or name yours with --stack NAME and its region with --region',
    ]);
  });
});
