/**
 * DynamoDB adapter for the state table: the per-target state item, read strongly consistent and
 * written only with a condition on its `version`, and the decision audit items.
 *
 * A claim is an UpdateItem (not a PutItem) so attributes other writers own, such as the
 * forecast function's `forecastFloor` and the state machine's `leadTimesSfn`, survive it. The
 * same write carries the evaluator's measured scale-outs (`leadTimes`) when it adds one, and
 * trims `leadTimesSfn` (shared/state/lead-samples.ts), and the error budget's `slo` ledger
 * (shared/state/slo.ts): no extra call per tick.
 */
import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { EngineState } from '../engine/types.ts';
import type { LeadSample } from '../floors/lead-time.ts';
import { STATE_SK, targetPk } from '../state/item.ts';
import type { Pending } from '../state/pending.ts';
import type { StoredSlo } from '../state/slo.ts';
import { errorName } from './clients.ts';

export interface StateWrite {
  engine: EngineState;
  updatedAt: string;
  lastDecisionId: string;
  /** The change in flight after this write; undefined removes it. */
  pending: Pending | undefined;
  /** The evaluator's measured scale-outs, when this write adds one; undefined leaves them. */
  leadTimes?: LeadSample[];
  /**
   * The state machine's `leadTimesSfn`: remove its first n entries (the oldest beyond the kept
   * number), or all of it when it is not a list; undefined leaves it.
   */
  trimLeadTimesSfn?: number | 'all';
  /** The error-budget control's ledger and headroom (shared/state/slo.ts); undefined leaves them. */
  slo?: StoredSlo;
}

/** The UpdateExpression of a claim and the names and values it uses (DynamoDB rejects unused ones). */
export function claimExpression(write: StateWrite): {
  expression: string;
  names: Record<string, string>;
  values: Record<string, unknown>;
} {
  const names: Record<string, string> = {
    '#version': 'version',
    '#engine': 'engine',
    '#updatedAt': 'updatedAt',
    '#decision': 'lastDecisionId',
    '#pending': 'pending',
  };
  const values: Record<string, unknown> = {
    ':engine': write.engine,
    ':updatedAt': write.updatedAt,
    ':decision': write.lastDecisionId,
  };
  const set = ['#version = :next', '#engine = :engine', '#updatedAt = :updatedAt', '#decision = :decision'];
  const remove: string[] = [];
  if (write.pending) {
    set.push('#pending = :pending');
    values[':pending'] = write.pending;
  } else remove.push('#pending');
  if (write.leadTimes) {
    set.push('#leadTimes = :leadTimes');
    names['#leadTimes'] = 'leadTimes';
    values[':leadTimes'] = write.leadTimes;
  }
  if (write.slo) {
    set.push('#slo = :slo');
    names['#slo'] = 'slo';
    values[':slo'] = write.slo;
  }
  const trim = write.trimLeadTimesSfn;
  if (trim !== undefined && trim !== 0) {
    names['#leadTimesSfn'] = 'leadTimesSfn';
    if (trim === 'all') remove.push('#leadTimesSfn');
    else for (let i = 0; i < trim; i++) remove.push(`#leadTimesSfn[${i}]`);
  }
  const expression = `SET ${set.join(', ')}${remove.length > 0 ? ` REMOVE ${remove.join(', ')}` : ''}`;
  return { expression, names, values };
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
      const { expression, names, values } = claimExpression(write);
      values[':next'] = (expected ?? 0) + 1;
      if (expected !== null) values[':expected'] = expected;
      try {
        await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: { pk: targetPk(targetId), sk: STATE_SK },
            UpdateExpression: expression,
            ConditionExpression:
              expected === null ? 'attribute_not_exists(#version)' : '#version = :expected',
            ExpressionAttributeNames: names,
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
