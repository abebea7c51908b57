/**
 * Every AWS call the deployed code makes is granted to the role that makes it, and every grant
 * is called (or needed without a call, for a stated reason): the evaluate function's calls are
 * the `new XxxCommand(` reachable from functions/evaluate/handler.ts, the state machine's are
 * its Task integrations.
 */
import { describe, expect, it } from 'vitest';
import { actionFor, commandsInSource } from '#shared/deploy/sdk-scan.ts';
import { callers, checkGrants, NEEDED_WITHOUT_A_CALL } from '#shared/deploy/validate.ts';
import { changed, type Loose, template } from './load.ts';

const root = process.cwd();
const found = callers(template, root);
const callsOf = (id: string) => [...(found.find((c) => c.id === id)?.calls.keys() ?? [])].sort();

describe('calls and grants in template.yaml', () => {
  it('finds every function and state machine of the template with its role, the failover ones included', () => {
    expect(found.map((c) => `${c.id} as ${c.principal}`).sort()).toEqual([
      'CommitmentsFunction as CommitmentsFunctionRole',
      'EvaluateFunction as EvaluateFunctionRole',
      'FailoverActFunction as FailoverActFunctionRole',
      'FailoverFunction as FailoverFunctionRole',
      'FailoverStateMachine as FailoverStateMachineRole',
      'ForecastFunction as ForecastFunctionRole',
      'MixFunction as MixFunctionRole',
      'ScaleTargetStateMachine as ScaleTargetStateMachineRole',
      'SpotEventsFunction as SpotEventsFunctionRole',
    ]);
  });

  it("sees the mix function read floors, plans, spot state, demand and the policy, set groups' MixedInstancesPolicy and variant weights, terminate replaced retirements, and keep its plans and records", () => {
    expect(callsOf('MixFunction')).toEqual([
      'autoscaling:describeautoscalinggroups',
      'autoscaling:describewarmpool',
      'autoscaling:terminateinstanceinautoscalinggroup',
      'autoscaling:updateautoscalinggroup',
      'cloudwatch:getmetricdata',
      'dynamodb:batchgetitem',
      'dynamodb:getitem',
      'dynamodb:putitem',
      'sagemaker:describeendpoint',
      'sagemaker:describeendpointconfig',
      'sagemaker:updateendpointweightsandcapacities',
      'ssm:getparameter',
      'ssm:getparametersbypath',
    ]);
  });

  it('sees the spot-events function find instances and groups, detach for replacement, raise groups for retirements, shift the mix and keep its SPOT items', () => {
    expect(callsOf('SpotEventsFunction')).toEqual([
      'autoscaling:describeautoscalinggroups',
      'autoscaling:describeautoscalinginstances',
      'autoscaling:describewarmpool',
      'autoscaling:detachinstances',
      'autoscaling:setdesiredcapacity',
      'autoscaling:terminateinstanceinautoscalinggroup',
      'autoscaling:updateautoscalinggroup',
      'dynamodb:batchgetitem',
      'dynamodb:getitem',
      'dynamodb:putitem',
      'ssm:getparameter',
      'ssm:getparametersbypath',
    ]);
  });

  it('sees the failover health evaluation read health, capacity, heartbeats and the policy, keep its records and start the failover state machine: no write to any target', () => {
    expect(callsOf('FailoverFunction')).toEqual([
      'autoscaling:describeautoscalinggroups',
      'cloudwatch:getmetricdata',
      'dynamodb:getitem',
      'dynamodb:putitem',
      'globalaccelerator:describeendpointgroup',
      'route53-recovery-cluster:getroutingcontrolstate',
      'route53:listresourcerecordsets',
      'sagemaker:describeendpoint',
      'sagemaker:describeinferencecomponent',
      'ssm:getparameter',
      'ssm:getparametersbypath',
      'states:describeexecution',
      'states:startexecution',
    ]);
  });

  it('sees the act function read and raise capacity, move traffic through the three routing adapters and read health, the policy and the kill switch', () => {
    expect(callsOf('FailoverActFunction')).toEqual([
      'autoscaling:describeautoscalinggroups',
      'autoscaling:setdesiredcapacity',
      'cloudwatch:getmetricdata',
      'globalaccelerator:describeendpointgroup',
      'globalaccelerator:updateendpointgroup',
      'route53-recovery-cluster:getroutingcontrolstate',
      'route53-recovery-cluster:updateroutingcontrolstates',
      'route53:changeresourcerecordsets',
      'route53:getchange',
      'route53:listresourcerecordsets',
      'sagemaker:describeendpoint',
      'sagemaker:describeinferencecomponent',
      'sagemaker:updateendpointweightsandcapacities',
      'sagemaker:updateinferencecomponentruntimeconfig',
      'ssm:getparameter',
      'ssm:getparametersbypath',
    ]);
  });

  it('sees the failover state machine invoke the act function, read the kill switch and its generation, record its phases and count capacity halts, nothing more', () => {
    expect(callsOf('FailoverStateMachine')).toEqual([
      'cloudwatch:putmetricdata',
      'dynamodb:getitem',
      'dynamodb:putitem',
      'lambda:invokefunction',
      'ssm:getparameters',
    ]);
  });

  it.each([
    'FailoverFunction',
    'FailoverActFunction',
    'ForecastFunction',
    'MixFunction',
    'SpotEventsFunction',
  ])(
    'keeps the evaluator-only group calls (DescribePolicies, SuspendProcesses) out of %s: it never imports shared/aws/autoscaling.ts',
    (id) => {
      expect(
        callsOf(id).filter((a) =>
          ['autoscaling:describepolicies', 'autoscaling:suspendprocesses'].includes(a),
        ),
      ).toEqual([]);
    },
  );

  it('sees the forecast function read history, the floor and the policy, and write floors, scheduled actions and warm pools', () => {
    expect(callsOf('ForecastFunction')).toEqual([
      'application-autoscaling:deletescheduledaction',
      'application-autoscaling:describescalabletargets',
      'application-autoscaling:describescheduledactions',
      'application-autoscaling:putscheduledaction',
      'autoscaling:describewarmpool',
      'autoscaling:putwarmpool',
      'cloudwatch:getmetricdata',
      'dynamodb:getitem',
      'dynamodb:updateitem',
      'ssm:getparameter',
      'ssm:getparametersbypath',
    ]);
  });

  it('sees the evaluate function find, suspend, resume and set groups, and keeps those calls out of the forecast function', () => {
    const groupCalls = [
      'autoscaling:describeautoscalinggroups',
      'autoscaling:describepolicies',
      'autoscaling:resumeprocesses',
      'autoscaling:setdesiredcapacity',
      'autoscaling:suspendprocesses',
    ];
    expect(callsOf('EvaluateFunction').filter((a) => a.startsWith('autoscaling:'))).toEqual(groupCalls);
    expect(callsOf('ForecastFunction').filter((a) => groupCalls.includes(a))).toEqual([]);
  });

  it('keeps scheduled-action writes out of the evaluate function', () => {
    expect(callsOf('EvaluateFunction').filter((a) => a.includes('scheduledaction'))).toEqual([]);
  });

  it('sees the evaluate function read signals, state and policy and start the state machine', () => {
    expect(callsOf('EvaluateFunction')).toEqual(
      expect.arrayContaining([
        'cloudwatch:getmetricdata',
        'dynamodb:getitem',
        'dynamodb:updateitem',
        'sagemaker:describeendpoint',
        'ssm:getparameter',
        'ssm:getparametersbypath',
        'states:startexecution',
      ]),
    );
  });

  it("sees the evaluate function's code send no SageMaker write: the state machine is the only path; RegisterScalableTarget only to resume on release", () => {
    expect(callsOf('EvaluateFunction').filter((a) => a.startsWith('sagemaker:update'))).toEqual([]);
    expect(
      callsOf('EvaluateFunction').filter((a) => a.startsWith('application-autoscaling:register')),
    ).toEqual(['application-autoscaling:registerscalabletarget']);
  });

  it('sees the state machine read the kill switch and the generation, suspend the other scaler, change SageMaker, record the outcome and the lead time, count capacity errors', () => {
    expect(callsOf('ScaleTargetStateMachine')).toEqual([
      'application-autoscaling:registerscalabletarget',
      'cloudwatch:putmetricdata',
      'dynamodb:getitem',
      'dynamodb:putitem',
      'dynamodb:updateitem',
      'sagemaker:describeendpoint',
      'sagemaker:describeinferencecomponent',
      'sagemaker:updateendpointweightsandcapacities',
      'sagemaker:updateinferencecomponentruntimeconfig',
      'ssm:getparameters',
    ]);
  });

  it.each([{ role: 'EvaluateFunctionRole' }, { role: 'ForecastFunctionRole' }])(
    "lets $role read the policy's parts: GetParametersByPath on the parts path alone, the resource IAM checks",
    ({ role }) => {
      const statements = (template.Resources as Loose)[role].Properties.Policies[0].PolicyDocument
        .Statement as Loose[];
      const parts = statements.filter((s) => s.Action === 'ssm:GetParametersByPath');
      expect(parts).toEqual([
        {
          Sid: 'ReadPolicyParts',
          Effect: 'Allow',
          Action: 'ssm:GetParametersByPath',
          Resource: {
            'Fn::Sub':
              'arn:${AWS::Partition}:ssm:${AWS::Region}:${AWS::AccountId}:parameter${PolicyParameterName}/parts',
          },
        },
      ]);
    },
  );

  it('grants every call and calls every grant', () => {
    expect(checkGrants(template, found)).toEqual([]);
  });

  it('gives a reason for every grant needed without a call', () => {
    for (const reason of Object.values(NEEDED_WITHOUT_A_CALL)) expect(reason.length).toBeGreaterThan(10);
  });
});

describe('each grant rule catches what it names', () => {
  const statements = (t: Loose, role: string) =>
    t.Resources[role].Properties.Policies[0].PolicyDocument.Statement as Loose[];
  it.each([
    {
      case: 'a call the role lacks',
      change: (t: Loose) => {
        const s = statements(t, 'EvaluateFunctionRole').find((x) => x.Sid === 'KeepTargetStateAndAudit')!;
        s.Action = s.Action.filter((a: string) => a !== 'dynamodb:UpdateItem');
      },
      expected:
        'EvaluateFunction: dynamodb:updateitem is called (shared/aws/dynamodb.ts UpdateCommand) but not granted',
    },
    {
      case: 'a Task the state machine role lacks',
      change: (t: Loose) => {
        const s = statements(t, 'ScaleTargetStateMachineRole').find((x) => x.Sid === 'RecordOutcome')!;
        s.Action = 'dynamodb:GetItem';
      },
      expected: 'ScaleTargetStateMachine: dynamodb:putitem is called (Record the outcome) but not granted',
    },
    {
      case: 'a lead-time record the state machine role lacks',
      change: (t: Loose) => {
        const list = statements(t, 'ScaleTargetStateMachineRole');
        list.splice(
          list.findIndex((x) => x.Sid === 'RecordLeadTime'),
          1,
        );
      },
      expected:
        'ScaleTargetStateMachine: dynamodb:updateitem is called (Record the lead time) but not granted',
    },
    {
      case: 'a scheduled-action call the forecast role lacks',
      change: (t: Loose) => {
        const statements = t.Resources.ForecastFunctionRole.Properties.Policies[0].PolicyDocument
          .Statement as Loose[];
        const i = statements.findIndex((x) => x['Fn::If']?.[1]?.Sid === 'WriteScheduledActionsOnSageMaker');
        statements.splice(i, 1);
      },
      expected:
        'ForecastFunction: application-autoscaling:putscheduledaction is called (shared/aws/scheduled-actions.ts PutScheduledActionCommand) but not granted',
    },
    {
      case: 'a group suspension the evaluate role lacks',
      change: (t: Loose) => {
        const list = statements(t, 'EvaluateFunctionRole');
        list.splice(
          list.findIndex((x) => x['Fn::If']?.[1]?.Sid === 'SuspendOtherScalersOnGroups'),
          1,
        );
      },
      expected:
        'EvaluateFunction: autoscaling:suspendprocesses is called (shared/aws/autoscaling.ts SuspendProcessesCommand) but not granted',
    },
    {
      case: "a read of the policy's parts the forecast role lacks",
      change: (t: Loose) => {
        const list = t.Resources.ForecastFunctionRole.Properties.Policies[0].PolicyDocument
          .Statement as Loose[];
        list.splice(
          list.findIndex((x) => x.Sid === 'ReadPolicyParts'),
          1,
        );
      },
      expected:
        'ForecastFunction: ssm:getparametersbypath is called (shared/aws/ssm.ts GetParametersByPathCommand) but not granted',
    },
    {
      case: 'a capacity raise the act role lacks',
      change: (t: Loose) => {
        const list = statements(t, 'FailoverActFunctionRole');
        list.splice(
          list.findIndex((x) => x['Fn::If']?.[1]?.Sid === 'PrescaleManagedGroups'),
          1,
        );
      },
      expected:
        'FailoverActFunction: autoscaling:setdesiredcapacity is called (shared/aws/group-capacity-writes.ts SetDesiredCapacityCommand) but not granted',
    },
    {
      case: 'a capacity write granted to the failover health evaluation, which only reads',
      change: (t: Loose) =>
        statements(t, 'FailoverFunctionRole').push({
          Effect: 'Allow',
          Action: 'autoscaling:SetDesiredCapacity',
          Resource: 'x',
        }),
      expected:
        'FailoverFunction: autoscaling:setdesiredcapacity is granted to FailoverFunctionRole but nothing calls it',
    },
    {
      case: 'a grant nothing calls',
      change: (t: Loose) =>
        statements(t, 'EvaluateFunctionRole').push({
          Effect: 'Allow',
          Action: 'sagemaker:DeleteEndpoint',
          Resource: 'x',
        }),
      expected:
        'EvaluateFunction: sagemaker:deleteendpoint is granted to EvaluateFunctionRole but nothing calls it',
    },
  ])('flags $case', ({ change, expected }) => {
    const t = changed(change);
    expect(checkGrants(t, callers(t, root)).join('\n')).toContain(expected);
  });
});

describe('reading SDK calls from source', () => {
  it.each([
    {
      case: 'a client command',
      source:
        "import { DescribeEndpointCommand } from '@aws-sdk/client-sagemaker';\nc.send(new DescribeEndpointCommand({}));",
      actions: ['sagemaker:DescribeEndpoint'],
    },
    {
      case: 'a type-only neighbour and a multi-line import',
      source:
        "import {\n  type SFNClient,\n  StartExecutionCommand,\n} from '@aws-sdk/client-sfn';\nnew StartExecutionCommand({});",
      actions: ['states:StartExecution'],
    },
    {
      case: 'lib-dynamodb document commands',
      source:
        "import { GetCommand, PutCommand, UpdateCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';\nnew GetCommand({}); new PutCommand({}); new UpdateCommand({}); new QueryCommand({});",
      actions: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:Query'],
    },
    {
      case: 'an aliased import',
      source: "import { GetParameterCommand as Get } from '@aws-sdk/client-ssm';\nnew Get({});",
      actions: ['ssm:GetParameter'],
    },
    {
      case: 'a Command class of the project itself',
      source: "import { RunCommand } from './commands.ts';\nnew RunCommand();",
      actions: [],
    },
  ])('$case', ({ source, actions }) => {
    expect(commandsInSource('x.ts', source).map((c) => c.action)).toEqual(actions);
  });

  it('names a package it cannot map instead of guessing', () => {
    const [call] = commandsInSource(
      'x.ts',
      "import { PutRecordCommand } from '@aws-sdk/client-kinesis';\nnew PutRecordCommand({});",
    );
    expect(call).toMatchObject({ pkg: '@aws-sdk/client-kinesis', action: null });
    expect(actionFor('@aws-sdk/client-kinesis', 'PutRecordCommand')).toBeNull();
  });
});
