/**
 * The live commands' reads of the deployed stack (`governor status`, `decisions`, `pause`,
 * `resume`, `release`): its outputs with CloudFormation DescribeStacks, and the kill switch
 * parameter, read and written. Used by the CLI only, never by a Lambda function.
 */
import { type CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { GetParameterCommand, PutParameterCommand, type SSMClient } from '@aws-sdk/client-ssm';
import { errorName } from './clients.ts';

/** The stack's outputs (OutputKey -> OutputValue), or null when no stack has that name. */
export async function stackOutputs(
  client: CloudFormationClient,
  StackName: string,
): Promise<Record<string, string> | null> {
  try {
    const out = await client.send(new DescribeStacksCommand({ StackName }));
    const stack = out.Stacks?.[0];
    if (!stack) return null;
    const outputs: Record<string, string> = {};
    for (const o of stack.Outputs ?? [])
      if (o.OutputKey && o.OutputValue) outputs[o.OutputKey] = o.OutputValue;
    return outputs;
  } catch (error) {
    // CloudFormation answers a stack that does not exist with a ValidationError "... does not exist".
    if (errorName(error) === 'ValidationError' && /does not exist/.test(String((error as Error).message)))
      return null;
    throw error;
  }
}

/** A String parameter's value, or null when it does not exist. */
export async function readParameter(client: SSMClient, Name: string): Promise<string | null> {
  try {
    return (await client.send(new GetParameterCommand({ Name }))).Parameter?.Value ?? null;
  } catch (error) {
    if (errorName(error) === 'ParameterNotFound') return null;
    throw error;
  }
}

/** Overwrites the kill switch (a String parameter, as the template creates it). */
export async function writeKillSwitch(client: SSMClient, Name: string, Value: string): Promise<void> {
  await client.send(new PutParameterCommand({ Name, Value, Type: 'String', Overwrite: true }));
}
