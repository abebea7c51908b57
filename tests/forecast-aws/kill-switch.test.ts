/**
 * The kill switch in the forecast function: its one meaning (shared/invocation/kill-switch.ts).
 * Every value that is not "off" once trimmed and lower-cased, a missing parameter and an
 * unreadable one freeze what changes capacity: no scheduled action is put, none is deleted
 * (Governor's earlier ones stay exactly as they are), no warm pool is resized. The floor, which
 * acts on nothing by itself, is still written.
 */
import { describe, expect, it } from 'vitest';
import { CONFIG, NOW, POLICY, rig, sent, tickAt } from './fakes.ts';

const DAY = 86_400_000;
const OLD = 'governor-chat-llm-20250608T1400';

type Switch = { value: string } | 'missing' | 'unreadable';

const GROUP = `  - id: gpu-pool
    kind: ec2-asg
    region: us-east-1
    autoScalingGroupName: gpu-asg
    instanceCapacity: { requestsPerMinuteAtSlo: 120 }
    scaling: { minCapacity: 1, maxCapacity: 20 }
    signals: [{ metric: gpuUtilization, target: 70 }]
    forecast: { quantile: p90, requestsPerInstance: 100, leadTimeMinutes: 10, historyDays: 7 }
    warmPool: { maxSize: 8 }
`;

function withSwitch(s: Switch, policy = POLICY({ extra: GROUP })) {
  const r = rig(policy);
  r.world.historySince.set('gpu-asg', NOW - 8 * DAY);
  r.world.actions.set(OLD, {
    ScheduledActionName: OLD,
    ScheduledActionARN: `arn:aws:autoscaling:us-east-1:123456789012:scheduledAction:${OLD}`,
    ServiceNamespace: 'sagemaker',
    ResourceId: 'endpoint/chat-llm-prod/variant/AllTraffic',
    ScalableDimension: 'sagemaker:variant:DesiredInstanceCount',
    Schedule: 'at(2025-06-08T14:00:00)',
    ScalableTargetAction: { MinCapacity: 9 },
    CreationTime: new Date(NOW - DAY),
  });
  if (s === 'missing') r.world.parameters.delete(CONFIG.KILL_SWITCH_PARAMETER_NAME);
  else if (s === 'unreadable')
    r.mocks.ssm.callsFake(async (input: { Name: string }) => {
      if (input.Name === CONFIG.KILL_SWITCH_PARAMETER_NAME)
        throw Object.assign(new Error('timed out'), { name: 'TimeoutError' });
      return { Parameter: { Name: input.Name, Value: r.world.parameters.get(input.Name) } };
    });
  else r.world.parameters.set(CONFIG.KILL_SWITCH_PARAMETER_NAME, s.value);
  return r;
}

describe('the kill switch in the forecast function', () => {
  it.each([
    { case: '"on"', s: { value: 'on' } as Switch },
    { case: '" on" (a leading space)', s: { value: ' on' } as Switch },
    { case: '"on\\n" (a trailing newline)', s: { value: 'on\n' } as Switch },
    { case: '"ON " (capitals, a trailing space)', s: { value: 'ON ' } as Switch },
    { case: '"paused" (not off)', s: { value: 'paused' } as Switch },
    { case: 'a missing parameter', s: 'missing' as Switch },
    { case: 'an unreadable parameter', s: 'unreadable' as Switch },
  ])('$case: floors written, no scheduled action put or deleted, no warm pool resized', async ({ s }) => {
    const r = withSwitch(s);
    await r.run(tickAt(NOW), NOW);
    expect(r.floor('chat-llm')).toBeDefined();
    expect(r.floor('gpu-pool')).toBeDefined();
    expect(sent(r.mocks.aas)).not.toContain('PutScheduledAction');
    expect(sent(r.mocks.aas)).not.toContain('DeleteScheduledAction');
    expect([...r.world.actions.keys()]).toEqual([OLD]);
    expect(sent(r.mocks.asg)).not.toContain('PutWarmPool');
    const actions = r.telemetry.outcomes.find((o) => o.targetId === 'chat-llm');
    expect(actions).toMatchObject({
      outcome: 'written',
      actions: { status: 'withheld', why: 'kill-switch', removed: 0 },
    });
  });

  it('with scheduledActions turned off, Governor’s actions are not deleted under the switch either', async () => {
    const r = withSwitch(
      { value: 'on' },
      POLICY({ forecast: '{ requestsPerInstance: 100, historyDays: 7, scheduledActions: false }' }),
    );
    await r.run(tickAt(NOW), NOW);
    expect(sent(r.mocks.aas)).not.toContain('DeleteScheduledAction');
    expect([...r.world.actions.keys()]).toEqual([OLD]);
  });

  it.each([
    { case: '"off"', value: 'off' },
    { case: '" OFF\\n"', value: ' OFF\n' },
  ])('$case lets the function write scheduled actions and the warm pool', async ({ value }) => {
    const r = withSwitch({ value });
    await r.run(tickAt(NOW), NOW);
    expect(sent(r.mocks.aas)).toContain('PutScheduledAction');
    expect(sent(r.mocks.asg)).toContain('PutWarmPool');
  });

  it('logs the switch in one line: why it counts as on, and what is not done', async () => {
    const r = withSwitch('missing');
    await r.run(tickAt(NOW), NOW);
    expect(r.telemetry.lines).toContainEqual({
      level: 'error',
      message:
        'the kill switch parameter does not exist: it counts as on, nothing is changed: no scheduled action is put or deleted, no warm pool resized',
    });
  });
});
