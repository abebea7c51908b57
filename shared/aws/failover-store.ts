/**
 * DynamoDB and Step Functions adapters of the failover health evaluation:
 * - the group's item (pk FAILOVER#<group>, sk STATE): the planner's FailoverState as it is, the
 *   mode it was planned in and the last event id, written only with a condition on `version`
 *   (as the target state items are), so two evaluations of one tick resolve to one action;
 * - decision records (pk FAILOVER#<group>, sk DECISION#<at>#<id>), beside the state machine's
 *   phase records (PHASE#<id>#...);
 * - each region's Governor heartbeat: the `updatedAt` of a member target's state item in that
 *   region's state table (the evaluate function writes it on every evaluation);
 * - starting the failover state machine with execution name = decision id, and reading how the
 *   newest one ended (the reconciliation, shared/failover/reconcile.ts).
 */
import {
  DescribeExecutionCommand,
  ExecutionAlreadyExists,
  type SFNClient,
  StartExecutionCommand,
} from '@aws-sdk/client-sfn';
import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { STATE_SK, targetPk } from '../state/item.ts';
import { errorName } from './clients.ts';

export const failoverPk = (groupId: string) => `FAILOVER#${groupId}`;

export interface FailoverStorePort {
  read(groupId: string): Promise<Record<string, unknown> | undefined>;
  /** Writes the item as version expected + 1 if the stored version is still `expected` (null: none yet). */
  write(groupId: string, expected: number | null, item: Record<string, unknown>): Promise<boolean>;
  putRecord(item: Record<string, unknown>): Promise<void>;
}

export function dynamoFailoverStore(client: DynamoDBDocumentClient, tableName: string): FailoverStorePort {
  return {
    async read(groupId) {
      const out = await client.send(
        new GetCommand({
          TableName: tableName,
          Key: { pk: failoverPk(groupId), sk: STATE_SK },
          ConsistentRead: true,
        }),
      );
      return out.Item;
    },
    async write(groupId, expected, item) {
      try {
        await client.send(
          new PutCommand({
            TableName: tableName,
            Item: { ...item, pk: failoverPk(groupId), sk: STATE_SK, version: (expected ?? 0) + 1 },
            ConditionExpression:
              expected === null ? 'attribute_not_exists(#version)' : '#version = :expected',
            ExpressionAttributeNames: { '#version': 'version' },
            ...(expected === null ? {} : { ExpressionAttributeValues: { ':expected': expected } }),
          }),
        );
        return true;
      } catch (error) {
        if (errorName(error) === 'ConditionalCheckFailedException') return false;
        throw error;
      }
    },
    async putRecord(item) {
      await client.send(new PutCommand({ TableName: tableName, Item: item }));
    },
  };
}

export interface HeartbeatPort {
  /** Epoch ms of the target's last evaluation in `region`, or null when there is no item or no time. */
  lastBeat(region: string, targetId: string): Promise<number | null>;
}

/**
 * Heartbeats from each region's state table: `tableFor(region)` names it (the standby's own table
 * for its own region, the primary stack's for the others).
 */
export function dynamoHeartbeats(
  clientFor: (region: string) => DynamoDBDocumentClient,
  tableFor: (region: string) => string,
): HeartbeatPort {
  return {
    async lastBeat(region, targetId) {
      const out = await clientFor(region).send(
        new GetCommand({
          TableName: tableFor(region),
          Key: { pk: targetPk(targetId), sk: STATE_SK },
          ProjectionExpression: '#u',
          ExpressionAttributeNames: { '#u': 'updatedAt' },
        }),
      );
      const at = typeof out.Item?.updatedAt === 'string' ? Date.parse(out.Item.updatedAt) : Number.NaN;
      return Number.isFinite(at) ? at : null;
    },
  };
}

export interface FailoverExecutionsPort {
  /** duplicate: an execution of this name exists (a replayed decision): never run twice. */
  start(
    stateMachineArn: string,
    name: string,
    input: unknown,
  ): Promise<{ executionArn: string | null; duplicate: boolean }>;
  /** How the execution `name` of the state machine stands: lost when it does not exist. */
  describe(stateMachineArn: string, name: string): Promise<LastExecution>;
}

/** How an execution stands (shared/failover/reconcile.ts reads it as its LastExecution). */
export interface LastExecution {
  status: 'running' | 'succeeded' | 'failed' | 'lost' | 'unreadable';
  /** The outcome a succeeded execution reported (statemachines/failover.asl.json), else null. */
  outcome: string | null;
}

/** arn:aws:states:R:A:stateMachine:M and name N -> arn:aws:states:R:A:execution:M:N. */
export const executionArnOf = (stateMachineArn: string, name: string): string =>
  `${stateMachineArn.replace(':stateMachine:', ':execution:')}:${name}`;

/** DescribeExecution's answer as the reconciliation reads it. Pure. */
export function lastExecutionOf(status: unknown, output: unknown): LastExecution {
  if (status === 'RUNNING' || status === 'PENDING_REDRIVE') return { status: 'running', outcome: null };
  if (status === 'FAILED' || status === 'TIMED_OUT' || status === 'ABORTED')
    return { status: 'failed', outcome: null };
  if (status !== 'SUCCEEDED') return { status: 'unreadable', outcome: null };
  let outcome: unknown = null;
  try {
    outcome = typeof output === 'string' ? (JSON.parse(output) as { outcome?: unknown }).outcome : null;
  } catch {
    outcome = null;
  }
  return { status: 'succeeded', outcome: typeof outcome === 'string' ? outcome.slice(0, 64) : null };
}

export function failoverExecutions(client: SFNClient): FailoverExecutionsPort {
  return {
    async start(stateMachineArn, name, input) {
      try {
        const out = await client.send(
          new StartExecutionCommand({ stateMachineArn, name, input: JSON.stringify(input) }),
        );
        return { executionArn: out.executionArn ?? null, duplicate: false };
      } catch (error) {
        if (error instanceof ExecutionAlreadyExists || errorName(error) === 'ExecutionAlreadyExists')
          return { executionArn: null, duplicate: true };
        throw error;
      }
    },
    async describe(stateMachineArn, name) {
      try {
        const out = await client.send(
          new DescribeExecutionCommand({ executionArn: executionArnOf(stateMachineArn, name) }),
        );
        return lastExecutionOf(out.status, out.output);
      } catch (error) {
        if (errorName(error) === 'ExecutionDoesNotExist') return { status: 'lost', outcome: null };
        throw error;
      }
    },
  };
}
