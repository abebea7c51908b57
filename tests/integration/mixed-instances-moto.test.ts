/**
 * The MixedInstancesPolicy adapter against moto over HTTP, through the real SDK: a group made
 * from a launch template takes the policy the real planner (stepMix) plans, then a second shift,
 * then the same plan again (no write). Read back with DescribeAutoScalingGroups: the policy is
 * exactly the planned one, and MinSize, MaxSize, DesiredCapacity, the launch template, tags and
 * health check settings are as they were. Refusals (a launch configuration, a warm pool) write
 * nothing.
 *
 * moto keeps every field Governor writes and returns it as sent. Where it differs from AWS: it
 * also keeps returning the group's top-level LaunchTemplate once the group is mixed (AWS moves it
 * into MixedInstancesPolicy), and does not refuse a warm pool next to a MixedInstancesPolicy
 * (the adapter refuses before writing, so that is not exercised here). There is no
 * @aws-sdk/client-ec2 in the project: the launch template is created with one EC2 query request
 * (moto checks no signature).
 */
import {
  AutoScalingClient,
  type AutoScalingGroup,
  CreateAutoScalingGroupCommand,
  DescribeAutoScalingGroupsCommand,
  PutWarmPoolCommand,
  UpdateAutoScalingGroupCommand,
} from '@aws-sdk/client-auto-scaling';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type MixedInstancesPort, mixedInstancesAdapter } from '#shared/aws/mixed-instances.ts';
import { initialMixState, stepMix } from '#shared/mix/plan.ts';
import { DEFAULT_REPLACEMENT_LEAD_MINUTES, type MixPlan, type MixPolicy } from '#shared/mix/types.ts';
import { CapacityMixSchema } from '#shared/policy/capacity-mix-schema.ts';
import {
  awsTestConfig,
  createDemoGroup,
  createLaunchTemplate,
  expectedMixedInstancesPolicy,
  type MotoServer,
  motoGate,
  startMoto,
  TEST_REGION,
} from '../support/moto.ts';

const gate = motoGate();

/** examples/capacity-mix.yaml's shape, smaller: 2 committed g5, spot over three pools. */
const policy: MixPolicy = {
  targetId: 'chat-llm-asg',
  minCapacity: 2,
  maxCapacity: 40,
  mix: CapacityMixSchema.parse({
    pools: [
      { instanceType: 'g5.2xlarge', onDemandUsdPerHour: 1.212, spotUsdPerHour: 0.485, interruption: '5-10%' },
      { instanceType: 'g6.2xlarge', onDemandUsdPerHour: 0.978, spotUsdPerHour: 0.391, interruption: '<5%' },
      {
        instanceType: 'g6e.xlarge',
        onDemandUsdPerHour: 1.861,
        spotUsdPerHour: 0.744,
        interruption: '10-15%',
      },
    ],
    committed: { instances: 2, instanceType: 'g5.2xlarge', usdPerHour: 0.76 },
    spot: { maxPercent: 60, maxInterruption: '10-15%' },
    replacementLeadTimeMinutes: 15,
    horizonHours: 3,
    damping: { deadBandPercent: 10, dwellMinutes: 30, minHoursBetweenChanges: 3 },
  }),
  replacementLeadMinutes: DEFAULT_REPLACEMENT_LEAD_MINUTES,
};

const t0 = Date.UTC(2026, 0, 5, 0, 0);
const at = (minutes: number) => t0 + minutes * 60_000;
const flat = (now: number, p90: number) => ({
  points: Array.from({ length: 17 }, (_, i) => ({ at: now + i * 15 * 60_000, p50: p90 * 0.7, p90 })),
});

describe.skipIf(!gate.available)('MixedInstancesPolicy on moto', () => {
  let moto: MotoServer;
  let asg: AutoScalingClient;
  let port: MixedInstancesPort;
  let templateId: string;
  const describeGroup = async (name: string): Promise<AutoScalingGroup> => {
    const out = await asg.send(new DescribeAutoScalingGroupsCommand({ AutoScalingGroupNames: [name] }));
    const group = out.AutoScalingGroups?.[0];
    if (!group) throw new Error(`no group ${name}`);
    return group;
  };
  /** Everything the write must leave as it was. */
  const untouched = (g: AutoScalingGroup) => ({
    MinSize: g.MinSize,
    MaxSize: g.MaxSize,
    DesiredCapacity: g.DesiredCapacity,
    HealthCheckType: g.HealthCheckType,
    HealthCheckGracePeriod: g.HealthCheckGracePeriod,
    AvailabilityZones: g.AvailabilityZones,
    Tags: g.Tags,
    DefaultCooldown: g.DefaultCooldown,
    TerminationPolicies: g.TerminationPolicies,
    // moto keeps returning the top-level LaunchTemplate of a mixed group; AWS moves it into the policy.
    LaunchTemplate: g.LaunchTemplate,
  });

  beforeAll(async () => {
    moto = await startMoto();
    asg = new AutoScalingClient(awsTestConfig(moto.endpoint));
    port = mixedInstancesAdapter(() => asg);
    templateId = await createLaunchTemplate(moto.endpoint, 'chat-llm-gpu-lt');
    await asg.send(
      new CreateAutoScalingGroupCommand({
        AutoScalingGroupName: 'chat-llm-gpu',
        LaunchTemplate: { LaunchTemplateId: templateId, Version: '$Latest' },
        MinSize: 2,
        MaxSize: 40,
        DesiredCapacity: 3,
        AvailabilityZones: ['us-east-1a', 'us-east-1b'],
        HealthCheckType: 'ELB',
        HealthCheckGracePeriod: 420,
        Tags: [{ Key: 'team', Value: 'inference', PropagateAtLaunch: true }],
      }),
    );
  });
  afterAll(() => moto?.stop());

  it('writes exactly the planned policy, shift after shift, and nothing else', async () => {
    const before = await describeGroup('chat-llm-gpu');
    expect(before.MixedInstancesPolicy).toBeUndefined();
    const expected = (plan: MixPlan) => expectedMixedInstancesPolicy(before.LaunchTemplate, plan);

    // t0: p90 10 over the horizon: 2 committed g5 on-demand, spot over the three pools.
    const first = stepMix(initialMixState(), { forecast: flat(at(0), 10) }, policy, at(0));
    expect(first.decision.reasons[0]).toBe('MixPlanned');
    const plan1 = first.plan!;
    expect(plan1.spot).toBeGreaterThan(0);
    expect((await port.apply(TEST_REGION, 'chat-llm-gpu', plan1)).status).toBe('applied');
    const after1 = await describeGroup('chat-llm-gpu');
    expect(after1.MixedInstancesPolicy).toEqual(expected(plan1));
    expect(untouched(after1)).toEqual(untouched(before));

    // t0 + 10 min: p90 20, which the held plan no longer serves: the wanted plan applies at once.
    const second = stepMix(first.state, { forecast: flat(at(10), 20) }, policy, at(10));
    expect(second.decision.reasons[0]).toBe('LossCoverRestored');
    const plan2 = second.plan!;
    expect(plan2.mixedInstancesPolicy).not.toEqual(plan1.mixedInstancesPolicy);
    expect((await port.apply(TEST_REGION, 'chat-llm-gpu', plan2)).status).toBe('applied');
    const after2 = await describeGroup('chat-llm-gpu');
    expect(after2.MixedInstancesPolicy).toEqual(expected(plan2));
    expect(untouched(after2)).toEqual(untouched(before));

    // t0 + 20 min: the same forecast keeps the plan; the group has it already, so nothing is sent.
    const third = stepMix(second.state, { forecast: flat(at(20), 20) }, policy, at(20));
    expect(third.decision.reasons[0]).toBe('WithinDeadBand');
    const send = vi.spyOn(asg, 'send');
    expect(await port.apply(TEST_REGION, 'chat-llm-gpu', third.plan!)).toEqual({ status: 'unchanged' });
    expect(send.mock.calls.map(([c]) => c.constructor.name)).toEqual([
      'DescribeAutoScalingGroupsCommand',
      'DescribeWarmPoolCommand',
    ]);
    send.mockRestore();
    expect(await describeGroup('chat-llm-gpu')).toEqual(after2);
  });

  it.each([
    {
      case: 'a group on a launch configuration is refused and keeps its configuration',
      group: 'legacy-lc-gpu',
      field: 'LaunchConfigurationName legacy-lc-gpu-lc',
    },
    {
      case: 'a group with a warm pool is refused and keeps its pool and template',
      group: 'warm-gpu',
      field: 'has a warm pool',
    },
  ])('$case', async ({ group, field }) => {
    if (group === 'legacy-lc-gpu') await createDemoGroup(asg, group, 1, 4);
    else {
      await asg.send(
        new CreateAutoScalingGroupCommand({
          AutoScalingGroupName: group,
          LaunchTemplate: { LaunchTemplateId: templateId },
          MinSize: 1,
          MaxSize: 4,
          AvailabilityZones: ['us-east-1a'],
        }),
      );
      await asg.send(new PutWarmPoolCommand({ AutoScalingGroupName: group, MinSize: 1 }));
    }
    const before = await describeGroup(group);
    const plan = stepMix(initialMixState(), { forecast: flat(at(0), 10) }, policy, at(0)).plan!;
    const send = vi.spyOn(asg, 'send');
    const result = await port.apply(TEST_REGION, group, plan);
    expect(result.status).toBe('refused');
    expect(result.status === 'refused' && result.message).toContain(field);
    expect(send.mock.calls.some(([c]) => c instanceof UpdateAutoScalingGroupCommand)).toBe(false);
    send.mockRestore();
    expect(await describeGroup(group)).toEqual(before);
  });
});
