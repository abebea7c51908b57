/**
 * What every live command shares (`status`, `decisions`, `shadow-report`, `pause`, `resume`,
 * `release`): the region, the SDK clients (aimed at AWS_ENDPOINT_URL when set, such as the moto
 * server of `npm run local -- --keep`), the deployed stack found by name, its policy, and AWS
 * failures as one line.
 */
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { SSMClient } from '@aws-sdk/client-ssm';
import { clientConfig } from '../aws/clients.ts';
import { stackOutputs } from '../aws/live-stack.ts';
import { ssmParameters } from '../aws/ssm.ts';
import { type LiveCall, liveProblem } from '../live/aws-errors.ts';
import { type LiveStack, liveStackFrom } from '../live/stack.ts';
import type { PolicyFile, TargetPolicy } from '../policy/schema.ts';
import { readPolicy } from '../policy-store/read.ts';
import { RunError, UsageError } from './io.ts';

/** sam deploy's stack name (samconfig.toml). */
export const DEFAULT_STACK = 'governor';

export const LIVE_OPTIONS = {
  stack: { type: 'string' },
  region: { type: 'string' },
} as const;

const REGION = /^[a-z]{2}(-gov)?-[a-z]+-\d$/;

export interface LiveTarget {
  region: string;
  stackName: string;
  endpoint?: string;
}

/** --stack and --region (else AWS_REGION, AWS_DEFAULT_REGION), checked before any AWS call. */
export function liveTarget(values: { stack?: string; region?: string }, env = process.env): LiveTarget {
  const region = values.region ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
  if (!region)
    throw new UsageError('no region: pass --region R (where the stack is deployed) or set AWS_REGION');
  if (!REGION.test(region))
    throw new UsageError(
      `--region must be an AWS region name such as us-east-1, got ${JSON.stringify(region)}`,
    );
  const stackName = values.stack ?? DEFAULT_STACK;
  if (!/^[A-Za-z][A-Za-z0-9-]{0,127}$/.test(stackName))
    throw new UsageError(`--stack must be a CloudFormation stack name, got ${JSON.stringify(stackName)}`);
  const endpoint = env.AWS_ENDPOINT_URL || undefined;
  return { region, stackName, ...(endpoint ? { endpoint } : {}) };
}

/** Client configuration for a live command: the SDK's credential chain, the endpoint override. */
export const liveConfig = (t: LiveTarget, region = t.region) =>
  clientConfig({ region, ...(t.endpoint ? { endpoint: t.endpoint } : {}) }, region);

/** Runs one AWS call; a failure becomes one line: exit 2 for credentials and rights, else 1. */
export async function awsCall<T>(t: LiveTarget, action: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    const call: LiveCall = { action, region: t.region, ...(t.endpoint ? { endpoint: t.endpoint } : {}) };
    const problem = liveProblem(error, call);
    throw problem.usage ? new UsageError(problem.message) : new RunError(problem.message);
  }
}

/** The stack's outputs as LiveStack; a missing stack or output is one line naming the fix (exit 2). */
export async function findStack(t: LiveTarget): Promise<LiveStack> {
  const cfn = new CloudFormationClient(liveConfig(t));
  const outputs = await awsCall(t, 'cloudformation:DescribeStacks', () => stackOutputs(cfn, t.stackName));
  if (outputs === null) {
    throw new UsageError(
      `no stack ${t.stackName} in ${t.region}: deploy Governor (sam deploy --guided), or name yours with --stack NAME and its region with --region`,
    );
  }
  const read = liveStackFrom(t.stackName, outputs);
  if (!read.ok) throw new UsageError(read.problem);
  return read.stack;
}

export const ssmFor = (t: LiveTarget) => new SSMClient(liveConfig(t));

/** The deployed policy (the parameter and its parts), or one line naming the fix. */
export async function deployedPolicy(t: LiveTarget, name: string): Promise<PolicyFile> {
  const merged = await awsCall(t, 'ssm:GetParameter', () => readPolicy(ssmParameters(ssmFor(t)), name));
  if (!merged.ok)
    throw new UsageError(
      `the deployed policy ${name} is not valid (${merged.problems[0]}): put a valid one (docs/operations.md, "Deploying")`,
    );
  return merged.policy;
}

/** The target named `id` (every target without one), or one line naming the policy's targets. */
export function deployedTargets(policy: PolicyFile, name: string, id: string | undefined): TargetPolicy[] {
  const targets = id === undefined ? policy.targets : policy.targets.filter((t) => t.id === id);
  if (targets.length === 0)
    throw new UsageError(
      `no target ${id} in the deployed policy ${name} (its targets: ${policy.targets.map((t) => t.id).join(', ')})`,
    );
  return targets;
}
