/**
 * `governor status [--target ID] [--json] [--stack NAME] [--region R]`: every target of the
 * deployed policy (or one) as the deployed stack sees it now: mode, kill switch, capacity from
 * the target's API, the last decision, in-flight executions, floors and warm pool, failover
 * phase and routing, mix plan and spot state, the error budget. Read-only: it reads the stack,
 * the two parameters and the table, and Describes; it writes nothing (tests/integration prove it).
 */
import { AutoScalingClient } from '@aws-sdk/client-auto-scaling';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SageMakerClient } from '@aws-sdk/client-sagemaker';
import { SFNClient } from '@aws-sdk/client-sfn';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { awsRoutingReads } from '../../functions/failover/routing-truth.ts';
import { dynamoStateStore } from '../aws/dynamodb.ts';
import { readParameter } from '../aws/live-stack.ts';
import { targetStatus } from '../live/status.ts';
import { statusLines } from '../live/status-lines.ts';
import { attempt, readTargetStatus, runningExecutions, type StatusClients } from '../live/status-reads.ts';
import { type CliIo, type Command, EXIT, RunError, UsageError } from './io.ts';
import {
  awsCall,
  deployedPolicy,
  deployedTargets,
  findStack,
  LIVE_OPTIONS,
  type LiveTarget,
  liveConfig,
  liveTarget,
  ssmFor,
} from './live.ts';
import { parseOptions } from './options.ts';

const OPTIONS = {
  ...LIVE_OPTIONS,
  target: { type: 'string' },
  json: { type: 'boolean', default: false },
} as const;

/** Clients per region, built once, each aimed at AWS_ENDPOINT_URL when set. */
function perRegion<C>(make: (region: string) => C): (region: string) => C {
  const made = new Map<string, C>();
  return (region) => made.get(region) ?? made.set(region, make(region)).get(region)!;
}

export function statusClients(t: LiveTarget, tableName: string, machineArn: string | null): StatusClients {
  const options = { region: t.region, ...(t.endpoint ? { endpoint: t.endpoint } : {}) };
  return {
    doc: DynamoDBDocumentClient.from(new DynamoDBClient(liveConfig(t))),
    tableName,
    machine: machineArn ? { sfn: new SFNClient(liveConfig(t)), arn: machineArn } : null,
    sageMaker: perRegion((r) => new SageMakerClient(liveConfig(t, r))),
    autoScaling: perRegion((r) => new AutoScalingClient(liveConfig(t, r))),
    routing: awsRoutingReads(options),
  };
}

/** The table every part reads: a missing one is one line naming the fix, not a line per part. */
async function tableExists(t: LiveTarget, c: StatusClients, targetId: string): Promise<void> {
  try {
    await awsCall(t, 'dynamodb:GetItem', () => dynamoStateStore(c.doc, c.tableName).read(targetId));
  } catch (error) {
    if (!(error instanceof RunError) || !/ResourceNotFoundException/.test(error.message)) throw error;
    throw new UsageError(
      `the stack's state table ${c.tableName} does not exist in ${t.region}: was it deleted? sam deploy puts it back (docs/deploy.md)`,
    );
  }
}

export function statusWith(now: () => number): Command {
  return async (args: string[], io: CliIo) => {
    const { values, positionals } = parseOptions({ args, allowPositionals: true, options: OPTIONS });
    if (positionals.length > 0)
      throw new UsageError(
        `unexpected argument ${JSON.stringify(positionals[0])}; run governor status --help`,
      );
    const target = liveTarget(values);
    const stack = await findStack(target);
    const policy = await deployedPolicy(target, stack.policyParameter);
    const targets = deployedTargets(policy, stack.policyParameter, values.target);
    const killSwitch = await awsCall(target, 'ssm:GetParameter', () =>
      readParameter(ssmFor(target), stack.killSwitchParameter),
    );
    const clients = statusClients(target, stack.tableName, stack.stateMachineArn);
    await tableExists(target, clients, targets[0]!.id);
    const machine = clients.machine;
    const executions = machine ? await attempt(() => runningExecutions(machine)) : null;
    const at = now();
    for (const [i, t] of targets.entries()) {
      const status = targetStatus(await readTargetStatus(clients, policy, t, executions), killSwitch, at);
      if (values.json) io.stdout(JSON.stringify(status));
      else {
        if (i > 0) io.stdout('');
        for (const line of statusLines(status)) io.stdout(line);
      }
    }
    return EXIT.ok;
  };
}

export const statusCommand = statusWith(Date.now);
