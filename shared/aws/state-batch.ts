/**
 * The evaluator's state items read in batches: BatchGetItem, 100 keys a call, strongly
 * consistent like the GetItem of ./dynamodb.ts. A tick of N targets reads ceil(N / 100) times
 * instead of N, and each target's path is its claim, action and record only.
 *
 * Correctness rests where it always did, on the claim's condition on the version read
 * (./dynamodb.ts): an item read a second before the claim that another evaluation wrote since
 * loses its claim, and that target re-reads with GetItem and decides again. Keys DynamoDB
 * leaves unprocessed (throttled) are left out of the result, and their targets read with GetItem
 * as before: nothing is retried here, nothing is guessed.
 */
import { BatchGetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { chunks, mapBounded } from '../control/pool.ts';
import { STATE_SK, targetPk } from '../control/state.ts';
import { MalformedResponseError } from './capacity.ts';

/** BatchGetItem takes at most 100 keys per call. */
export const KEYS_PER_CALL = 100;
/** Batches in flight at once (500 targets are 5 calls). */
const BATCHES_IN_FLIGHT = 4;

export interface StateBatchPort {
  /**
   * State items by target id: an id mapped to undefined has no item yet; an id absent from the
   * map was not read (unprocessed), and its target reads its own.
   */
  readMany(targetIds: readonly string[]): Promise<Map<string, Record<string, unknown> | undefined>>;
}

/** The target id of a state item's key, or null for a key that is not one (TARGET#<id>, STATE). */
const targetOf = (pk: unknown): string | null =>
  typeof pk === 'string' && pk.startsWith('TARGET#') ? pk.slice('TARGET#'.length) : null;

export function stateBatchReads(client: DynamoDBDocumentClient, tableName: string): StateBatchPort {
  return {
    async readMany(targetIds) {
      const out = new Map<string, Record<string, unknown> | undefined>();
      await mapBounded(chunks([...new Set(targetIds)], KEYS_PER_CALL), BATCHES_IN_FLIGHT, async (ids) => {
        const res = await client.send(
          new BatchGetCommand({
            RequestItems: {
              [tableName]: {
                Keys: ids.map((id) => ({ pk: targetPk(id), sk: STATE_SK })),
                ConsistentRead: true,
              },
            },
          }),
        );
        const unprocessed = new Set(
          (res.UnprocessedKeys?.[tableName]?.Keys ?? []).map((k) => targetOf(k.pk)),
        );
        const items = res.Responses?.[tableName];
        // Read as "no items", a missing list would make every target start over from no state.
        if (!Array.isArray(items))
          throw new MalformedResponseError(`BatchGetItem Responses.${tableName} is missing`);
        const found = new Map<string, Record<string, unknown>>();
        for (const item of items) {
          const id = targetOf(item.pk);
          if (id !== null && item.sk === STATE_SK) found.set(id, item);
        }
        for (const id of ids) if (!unprocessed.has(id)) out.set(id, found.get(id));
      });
      return out;
    },
  };
}

/**
 * The failover groups' items (pk FAILOVER#<group>, sk STATE: shared/aws/failover-store.ts) of the
 * groups with a member among the targets of a tick: one more BatchGetItem per 100 groups, never
 * a read per target. The evaluator raises those members to the group's floor (capacityFloors).
 */
export interface FailoverStatesPort {
  /** Items by group id: undefined, no item; an id absent from the map was left unprocessed. */
  readGroups(groupIds: readonly string[]): Promise<Map<string, Record<string, unknown> | undefined>>;
}

const groupOf = (pk: unknown): string | null =>
  typeof pk === 'string' && pk.startsWith('FAILOVER#') ? pk.slice('FAILOVER#'.length) : null;

export function failoverStateReads(client: DynamoDBDocumentClient, tableName: string): FailoverStatesPort {
  return {
    async readGroups(groupIds) {
      const out = new Map<string, Record<string, unknown> | undefined>();
      for (const ids of chunks([...new Set(groupIds)], KEYS_PER_CALL)) {
        const res = await client.send(
          new BatchGetCommand({
            RequestItems: {
              [tableName]: {
                Keys: ids.map((id) => ({ pk: `FAILOVER#${id}`, sk: STATE_SK })),
                ConsistentRead: true,
              },
            },
          }),
        );
        const items = res.Responses?.[tableName];
        if (!Array.isArray(items))
          throw new MalformedResponseError(`BatchGetItem Responses.${tableName} is missing`);
        const unprocessed = new Set((res.UnprocessedKeys?.[tableName]?.Keys ?? []).map((k) => groupOf(k.pk)));
        const found = new Map<string, Record<string, unknown>>();
        for (const item of items) {
          const id = groupOf(item.pk);
          if (id !== null && item.sk === STATE_SK) found.set(id, item);
        }
        for (const id of ids) if (!unprocessed.has(id)) out.set(id, found.get(id));
      }
      return out;
    },
  };
}
