/**
 * A Governor-shaped CloudFormation stack on moto: the state table and the two parameters as
 * template.yaml creates them, and the outputs the live commands read (StateTableName,
 * KillSwitchParameterName, PolicyParameterName, ScaleTargetStateMachineArn). Shared by the live
 * commands' moto tests and `npm run local -- --keep` (scripts/local-setup.ts). No vitest import.
 */
import { type CloudFormationClient, CreateStackCommand } from '@aws-sdk/client-cloudformation';

export interface StackNames {
  table: string;
  killSwitch: string;
  policy: string;
  /** The scale-target state machine's ARN, named in the outputs (moto's CloudFormation does not create it). */
  stateMachineArn?: string;
}

export function governorStackTemplate(names: StackNames, policy: string): string {
  return JSON.stringify({
    Resources: {
      StateTable: {
        Type: 'AWS::DynamoDB::Table',
        Properties: {
          TableName: names.table,
          BillingMode: 'PAY_PER_REQUEST',
          AttributeDefinitions: [
            { AttributeName: 'pk', AttributeType: 'S' },
            { AttributeName: 'sk', AttributeType: 'S' },
          ],
          KeySchema: [
            { AttributeName: 'pk', KeyType: 'HASH' },
            { AttributeName: 'sk', KeyType: 'RANGE' },
          ],
        },
      },
      KillSwitchParameter: {
        Type: 'AWS::SSM::Parameter',
        Properties: { Name: names.killSwitch, Type: 'String', Value: 'off' },
      },
      PolicyParameter: {
        Type: 'AWS::SSM::Parameter',
        Properties: { Name: names.policy, Type: 'String', Value: policy },
      },
    },
    Outputs: {
      StateTableName: { Value: { Ref: 'StateTable' } },
      KillSwitchParameterName: { Value: { Ref: 'KillSwitchParameter' } },
      PolicyParameterName: { Value: { Ref: 'PolicyParameter' } },
      ...(names.stateMachineArn ? { ScaleTargetStateMachineArn: { Value: names.stateMachineArn } } : {}),
    },
  });
}

/** Creates the stack; moto creates its resources before it answers. */
export async function deployGovernorStack(
  cfn: CloudFormationClient,
  stackName: string,
  names: StackNames,
  policy: string,
): Promise<void> {
  await cfn.send(
    new CreateStackCommand({ StackName: stackName, TemplateBody: governorStackTemplate(names, policy) }),
  );
}
