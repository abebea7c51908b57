import { describe, expect, it } from 'vitest';
import { type GroupPolicy, groupConflict } from '#shared/apply/conflicts.ts';
import { type PlanContext, planFor } from '#shared/apply/plan.ts';
import { auditItem, type DecisionRecord, newDecisionId, scaleTargetInput } from '#shared/apply/records.ts';
import { type Decision, initialState } from '#shared/engine/types.ts';
import { ConfigError, parseConfig } from '#shared/invocation/config.ts';
import type { TargetPolicy } from '#shared/policy/schema.ts';
import { decodeState } from '#shared/state/item.ts';
import { carriedPending, effectiveDesired, type Pending } from '#shared/state/pending.ts';
import { componentTarget, groupTarget, policyOf, variantTarget } from './policies.ts';

const NOW = Date.parse('2025-06-02T12:00:00Z');
const [variant, component, group] = policyOf(
  variantTarget(),
  componentTarget(),
  groupTarget({ onConflictingScaler: 'suspend' }),
).targets as [TargetPolicy, TargetPolicy, TargetPolicy];
// The same resources with the other onConflictingScaler (one policy may not manage a resource twice).
const [refusingGroup, suspendingVariant] = policyOf(
  groupTarget(),
  variantTarget({ onConflictingScaler: 'suspend' }),
).targets as [TargetPolicy, TargetPolicy];

describe('decodeState', () => {
  const engine = { ...initialState(), outStreak: 2 };
  const FLOOR = {
    quantile: 'p90',
    computedAt: NOW,
    startsAt: NOW - 300_000,
    stepMinutes: 5,
    leadTimeMinutes: 10,
    capacities: [3, 4, 4],
  };
  it.each([
    {
      case: 'no item yet means no version and the initial engine',
      item: undefined,
      expected: { version: null, engine: undefined, problems: [] },
    },
    {
      case: 'a full item decodes version and engine',
      item: { pk: 'TARGET#a', sk: 'STATE', version: 7, engine },
      expected: { version: 7, engine, problems: [] },
    },
    {
      case: 'an item only the forecast wrote has no version yet',
      item: { pk: 'TARGET#a', sk: 'STATE', forecastFloor: FLOOR },
      expected: { version: null, forecastFloor: FLOOR, problems: [] },
    },
    {
      case: 'a floor of the old single-number shape is set aside with a problem',
      item: {
        version: 1,
        forecastFloor: { capacity: 3, quantile: 'p90', validUntil: '2025-06-02T11:00:00Z' },
      },
      expected: {
        version: 1,
        forecastFloor: undefined,
        problems: [expect.stringMatching(/^forecastFloor set aside: /)],
      },
    },
    {
      case: 'a corrupt engine map is set aside with a problem, not fatal',
      item: { version: 3, engine: { version: 1, outStreak: -1 } },
      expected: { version: 3, engine: undefined },
    },
  ])('$case', ({ item, expected }) => {
    expect(decodeState(item)).toMatchObject(expected);
  });

  it('names what it set aside', () => {
    const state = decodeState({ version: 3, engine: { version: 2 }, pending: { at: 'soon' } });
    expect(state.problems.map((p) => p.split(':')[0])).toEqual([
      'engine state set aside (restarting from the initial state)',
      'pending change set aside',
    ]);
  });

  it('a version that is not a whole number fails loudly: the conditional writes depend on it', () => {
    expect(() => decodeState({ version: '7' })).toThrow(/state item is malformed: version/);
  });
});

describe('pending changes', () => {
  const pending: Pending = { decisionId: 'd1', desiredCapacity: 6, previousCapacity: 4, at: NOW };
  const window = 180_000;
  it.each([
    {
      case: 'a change just started and not yet visible counts as the desired capacity',
      live: 4,
      now: NOW + 10_000,
      expected: 6,
    },
    { case: 'once the live API shows it, the live value is used', live: 6, now: NOW + 10_000, expected: 6 },
    {
      case: 'after the window the live capacity is believed again',
      live: 4,
      now: NOW + 180_000,
      expected: 4,
    },
  ])('$case', ({ live, now, expected }) => {
    expect(effectiveDesired(live, pending, now, window)).toBe(expected);
  });

  it.each([
    { case: 'is carried while still in flight', live: 4, now: NOW + 60_000, carried: pending },
    { case: 'is dropped once applied', live: 6, now: NOW + 60_000, carried: undefined },
    { case: 'is dropped after the window', live: 4, now: NOW + 200_000, carried: undefined },
  ])('a pending change $case', ({ live, now, carried }) => {
    expect(carriedPending(pending, live, now, window)).toEqual(carried);
  });
});

const decision = (
  action: Decision['action'],
  current = 4,
  desired = action === 'hold' ? 4 : 6,
): Decision => ({
  targetId: 'x',
  at: NOW,
  action,
  currentCapacity: current,
  desiredCapacity: desired,
  reasons: ['ScaleOutBreach'],
  message: '',
  signals: [],
  panic: false,
});
const ctx = (over: Partial<PlanContext> = {}): PlanContext => ({
  mode: 'active',
  killSwitch: false,
  conflict: null,
  status: 'InService',
  homeRegion: 'us-east-1',
  lastChangeAt: null,
  now: NOW,
  ...over,
});
const conflict = {
  scaler: 'application-auto-scaling' as const,
  resourceId: 'endpoint/chat-llm-prod/variant/AllTraffic',
  scalableDimension: 'sagemaker:variant:DesiredInstanceCount',
  policyNames: ['tt'],
};
const groupPolicies: GroupPolicy[] = [
  { name: 'cpu-tt', drivenBy: 'alarms', canScale: true },
  { name: 'old-steps', drivenBy: 'alarms', canScale: false },
  { name: 'pred-trial', drivenBy: 'forecast', canScale: false },
];
const predictive: GroupPolicy = { name: 'pred', drivenBy: 'forecast', canScale: true };
const groupConflictOf = (policies: GroupPolicy[]) => groupConflict('batch-gpu-asg', policies, false)!;

describe('groupConflict: which policies of a group can fight Governor', () => {
  it.each([
    {
      case: 'an enabled target tracking policy is a conflict; a disabled one and a ForecastOnly predictive one are not',
      policies: groupPolicies,
      alarmsSuspended: false,
      expected: { policyNames: ['cpu-tt'], unsuspendable: [] },
    },
    {
      case: 'with AlarmNotification suspended, alarm-driven policies cannot act: no conflict',
      policies: groupPolicies,
      alarmsSuspended: true,
      expected: null,
    },
    {
      case: 'a predictive policy in ForecastAndScale mode still acts with AlarmNotification suspended',
      policies: [...groupPolicies, predictive],
      alarmsSuspended: true,
      expected: { policyNames: ['pred'], unsuspendable: ['pred'] },
    },
    {
      case: 'a group with no policies has no conflict',
      policies: [],
      alarmsSuspended: false,
      expected: null,
    },
  ])('$case', ({ policies, alarmsSuspended, expected }) => {
    const found = groupConflict('batch-gpu-asg', policies, alarmsSuspended);
    expect(found).toEqual(
      expected && { scaler: 'ec2-auto-scaling', groupName: 'batch-gpu-asg', ...expected },
    );
  });
});

describe('planFor: what happens to a decision', () => {
  it.each([
    {
      case: 'shadow mode records and persists, never acts',
      d: decision('scale-out'),
      t: variant,
      c: ctx({ mode: 'shadow', killSwitch: true }),
      plan: { kind: 'record', outcome: 'shadow', persist: true },
    },
    {
      case: 'the kill switch stops a scale-out without persisting it',
      d: decision('scale-out'),
      t: variant,
      c: ctx({ killSwitch: true }),
      plan: { kind: 'record', outcome: 'killed', persist: false },
    },
    {
      case: 'under the kill switch a hold still advances the engine',
      d: decision('hold'),
      t: variant,
      c: ctx({ killSwitch: true }),
      plan: { kind: 'record', outcome: 'killed', persist: true },
    },
    {
      case: 'a conflicting scaler with refuse is refused',
      d: decision('scale-out'),
      t: variant,
      c: ctx({ conflict }),
      plan: { kind: 'record', outcome: 'refused', persist: false },
    },
    {
      case: 'a SageMaker target in another region is refused',
      d: decision('scale-in', 4, 3),
      t: variant,
      c: ctx({ homeRegion: 'eu-west-1' }),
      plan: { kind: 'record', outcome: 'refused' },
    },
    {
      case: 'an Updating endpoint defers the change',
      d: decision('scale-out'),
      t: variant,
      c: ctx({ status: 'Updating' }),
      plan: { kind: 'record', outcome: 'deferred', persist: false },
    },
    {
      case: 'an Updating endpoint does not defer a hold',
      d: decision('hold'),
      t: variant,
      c: ctx({ status: 'Updating' }),
      plan: { kind: 'record', outcome: 'held', persist: true },
    },
    {
      case: 'a variant change starts the state machine',
      d: decision('scale-out'),
      t: variant,
      c: ctx(),
      plan: { kind: 'act', via: 'state-machine', suspend: false },
    },
    {
      case: 'a component change starts the state machine',
      d: decision('scale-in', 4, 3),
      t: component,
      c: ctx(),
      plan: { kind: 'act', via: 'state-machine' },
    },
    {
      case: 'a group change is set directly',
      d: decision('scale-out'),
      t: group,
      c: ctx({ homeRegion: 'eu-west-1' }),
      plan: { kind: 'act', via: 'set-desired-capacity' },
    },
    {
      case: 'with onConflictingScaler suspend, the scalers are suspended and the change made',
      d: decision('scale-out'),
      t: suspendingVariant,
      c: ctx({ conflict }),
      plan: { kind: 'act', via: 'state-machine', suspend: true },
    },
    {
      case: 'with onConflictingScaler suspend on a group, its alarm-driven policies are suspended and the change set',
      d: decision('scale-out'),
      t: group,
      c: ctx({ conflict: groupConflictOf(groupPolicies) }),
      plan: { kind: 'act', via: 'set-desired-capacity', suspend: true },
    },
    {
      case: 'with suspend, a hold suspends the scalers too, so they stop fighting',
      d: decision('hold'),
      t: group,
      c: ctx({ conflict: groupConflictOf(groupPolicies) }),
      plan: { kind: 'record', outcome: 'held', suspend: true },
    },
    {
      case: 'a group scaled by its own policies with refuse is refused without persisting the change',
      d: decision('scale-out'),
      t: refusingGroup,
      c: ctx({ conflict: groupConflictOf(groupPolicies) }),
      plan: { kind: 'record', outcome: 'refused', persist: false, suspend: false },
    },
    {
      case: 'a predictive policy is refused even with suspend: suspending AlarmNotification cannot stop it',
      d: decision('scale-out'),
      t: group,
      c: ctx({ conflict: groupConflictOf([...groupPolicies, predictive]) }),
      plan: { kind: 'record', outcome: 'refused', persist: false, suspend: false },
    },
    {
      case: 'a predictive policy refuses a hold too, and nothing is suspended',
      d: decision('hold'),
      t: group,
      c: ctx({ conflict: groupConflictOf([predictive]) }),
      plan: { kind: 'record', outcome: 'refused', persist: true, suspend: false },
    },
  ])('$case', ({ d, t, c, plan }) => {
    expect(planFor(d, t, c)).toMatchObject(plan);
  });

  it.each([
    {
      case: 'on a variant',
      t: variant,
      c: conflict,
      detail:
        'Application Auto Scaling policies "tt" also scale endpoint/chat-llm-prod/variant/AllTraffic: Governor will not fight them; delete them, or set onConflictingScaler: suspend',
    },
    {
      case: 'on a group',
      t: refusingGroup,
      c: groupConflictOf([...groupPolicies, { name: 'mem-steps', drivenBy: 'alarms', canScale: true }]),
      detail:
        'EC2 Auto Scaling policies "cpu-tt", "mem-steps" also scale Auto Scaling group batch-gpu-asg: Governor will not fight them; delete them, or set onConflictingScaler: suspend',
    },
    {
      case: 'on a group with a predictive policy',
      t: group,
      c: groupConflictOf([...groupPolicies, predictive]),
      detail:
        'EC2 Auto Scaling policies "cpu-tt", "pred" also scale Auto Scaling group batch-gpu-asg: Governor will not fight them; predictive scaling "pred" is not driven by alarms, so suspending cannot stop it; delete it, or set its mode to ForecastOnly',
    },
  ])('a refusal $case says which policies and how to fix it', ({ t, c, detail }) => {
    expect(planFor(decision('scale-out'), t, ctx({ conflict: c })).detail).toBe(detail);
  });

  it('shadow mode notes a group conflict and changes nothing', () => {
    expect(
      planFor(
        decision('scale-out'),
        group,
        ctx({ mode: 'shadow', conflict: groupConflictOf(groupPolicies) }),
      ),
    ).toEqual({
      kind: 'record',
      outcome: 'shadow',
      persist: true,
      suspend: false,
      detail:
        'shadow mode: nothing is changed; note: EC2 Auto Scaling policies "cpu-tt" also scale Auto Scaling group batch-gpu-asg',
    });
  });
});

describe('records', () => {
  it('a decision id sorts by time and is a valid execution name', () => {
    const id = newDecisionId(NOW, () => 0.5);
    expect(id).toBe('20250602T120000000Z-80000000');
    expect(id).toMatch(/^[A-Za-z0-9_-]{1,80}$/);
  });

  it('the audit item carries the contract keys and a TTL in epoch seconds', () => {
    const record = {
      decisionId: 'd1',
      targetId: 'chat-llm',
      at: '2025-06-02T12:00:00.000Z',
    } as DecisionRecord;
    expect(auditItem(record, 30)).toMatchObject({
      pk: 'TARGET#chat-llm',
      sk: 'DECISION#2025-06-02T12:00:00.000Z#d1',
      expiresAt: NOW / 1000 + 30 * 86_400,
    });
  });

  it.each([
    {
      case: 'a variant input names endpoint and variant',
      t: variant,
      extra: { kind: 'sagemaker-variant', endpointName: 'chat-llm-prod', variantName: 'AllTraffic' },
    },
    {
      case: 'a component input names endpoint and component',
      t: component,
      extra: {
        kind: 'sagemaker-inference-component',
        endpointName: 'shared-gpu',
        inferenceComponentName: 'embedder-ic',
      },
    },
  ])('the state machine input: $case', ({ t, extra }) => {
    expect(scaleTargetInput(t, 'd1', 6, 4, '2025-06-02T12:00:00.000Z')).toEqual({
      decisionId: 'd1',
      targetId: t.id,
      desiredCapacity: 6,
      previousCapacity: 4,
      requestedAt: '2025-06-02T12:00:00.000Z',
      // 30 days (the default AUDIT_TTL_DAYS) after the request, in epoch seconds.
      expiresAt: 1_751_457_600,
      killSwitchValue: 'off',
      ...extra,
    });
  });

  it('the state machine input carries the kill switch value judged off and the scaler to suspend', () => {
    const suspend = {
      resourceId: 'endpoint/chat-llm-prod/variant/AllTraffic',
      scalableDimension: 'sagemaker:variant:DesiredInstanceCount',
    };
    expect(
      scaleTargetInput(variant, 'd1', 6, 4, '2025-06-02T12:00:00.000Z', 30, {
        killSwitchValue: ' Off\n',
        suspend,
      }),
    ).toMatchObject({ killSwitchValue: ' Off\n', suspend });
  });

  it('the state machine input expires after the TTL days given', () => {
    expect(scaleTargetInput(variant, 'd1', 6, 4, '2025-06-02T12:00:00.000Z', 7).expiresAt).toBe(
      Date.parse('2025-06-09T12:00:00Z') / 1000,
    );
  });
});

describe('parseConfig', () => {
  const env = {
    POLICY_PARAMETER_NAME: '/governor/policy',
    STATE_TABLE_NAME: 't',
    SCALE_STATE_MACHINE_ARN: 'arn:aws:states:us-east-1:123456789012:stateMachine:s',
    KILL_SWITCH_PARAMETER_NAME: '/governor/kill',
  };
  it('applies the documented defaults', () => {
    expect(parseConfig(env)).toMatchObject({
      GOVERNOR_MODE: 'shadow',
      MAX_EVENT_AGE_SECONDS: 300,
      AUDIT_TTL_DAYS: 30,
      POLICY_CACHE_SECONDS: 60,
    });
  });
  it.each([
    {
      case: 'a missing table name is named',
      over: { STATE_TABLE_NAME: undefined },
      message:
        'invalid environment: STATE_TABLE_NAME is required: the DynamoDB table for target state and decision records',
    },
    {
      case: 'an unknown mode is named',
      over: { GOVERNOR_MODE: 'yolo' },
      message: 'invalid environment: GOVERNOR_MODE must be "shadow" or "active"',
    },
    {
      case: 'a non-numeric age is named',
      over: { MAX_EVENT_AGE_SECONDS: 'five' },
      message: 'invalid environment: MAX_EVENT_AGE_SECONDS must be a whole number of seconds',
    },
  ])('$case', ({ over, message }) => {
    expect(() => parseConfig({ ...env, ...over })).toThrow(new ConfigError(message));
  });
});
