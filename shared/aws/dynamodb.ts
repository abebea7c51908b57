/**
 * DynamoDB adapter for the state table: the per-target state item, read strongly consistent and
 * written only with a condition on its `version`, and the decision audit items.
 *
 * A claim is an UpdateItem (not a PutItem) so attributes other writers own, such as the
 * forecast function's `forecastFloor`, survive it.
 */
import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Pending } from '../control/state.ts';
import { STATE_SK, targetPk } from '../control/state.ts';
import type { EngineState } from '../engine/types.ts';
import { errorName } from './clients.ts';

export interface StateWrite {
  engine: EngineState;
  updatedAt: string;
  lastDecisionId: string;
  /** The change in flight after this write; undefined removes it. */
  pending: Pending | undefined;
}

export interface StatePort {
  read(targetId: string): Promise<Record<string, unknown> | undefined>;
  /**
   * Writes version expected + 1 if the stored version is still `expected` (null: no version
   * yet). False when another evaluation wrote first; the caller re-reads and re-decides.
   */
  claim(targetId: string, expected: number | null, write: StateWrite): Promise<boolean>;
  putAudit(item: Record<string, unknown>): Promise<void>;
}

export function dynamoStateStore(client: DynamoDBDocumentClient, tableName: string): StatePort {
  return {
    async read(targetId) {
      const out = await client.send(
        new GetCommand({
          TableName: tableName,
          Key: { pk: targetPk(targetId), sk: STATE_SK },
          ConsistentRead: true,
        }),
      );
      return out.Item;
    },
    async claim(targetId, expected, write) {
      const values: Record<string, unknown> = {
        ':next': (expected ?? 0) + 1,
        ':engine': write.engine,
        ':updatedAt': write.updatedAt,
        ':decision': write.lastDecisionId,
      };
      if (expected !== null) values[':expected'] = expected;
      if (write.pending) values[':pending'] = write.pending;
      try {
        await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: { pk: targetPk(targetId), sk: STATE_SK },
            UpdateExpression: `SET #version = :next, #engine = :engine, #updatedAt = :updatedAt, #decision = :decision${
              write.pending ? ', #pending = :pending' : ' REMOVE #pending'
            }`,
            ConditionExpression:
              expected === null ? 'attribute_not_exists(#version)' : '#version = :expected',
            ExpressionAttributeNames: {
              '#version': 'version',
              '#engine': 'engine',
              '#updatedAt': 'updatedAt',
              '#decision': 'lastDecisionId',
              '#pending': 'pending',
            },
            ExpressionAttributeValues: values,
          }),
        );
        return true;
      } catch (error) {
        if (errorName(error) === 'ConditionalCheckFailedException') return false;
        throw error;
      }
    },
    async putAudit(item) {
      await client.send(new PutCommand({ TableName: tableName, Item: item }));
    },
  };
}
