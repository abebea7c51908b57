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
 *
 * The capacity mix's PLAN items (MIX#<id>, PLAN) of the tick's targets with a capacityMix ride in
 * the same calls (readTick): the evaluator gives the engine the plan's floor and the budget's
 * ceiling from them (functions/evaluate/mix-plan.ts). An unprocessed PLAN key is no plan this tick.
 */
import { BatchGetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { chunks, mapBounded } from '../invocation/pool.ts';
import { STATE_SK, targetPk } from '../state/item.ts';
import { MalformedResponseError } from './capacity.ts';
import { MIX_SK, mixPk } from './mix-store.ts';

/** BatchGetItem takes at most 100 keys per call. */
export const KEYS_PER_CALL = 100;
/** Batches in flight at once (500 targets are 5 calls). */
const BATCHES_IN_FLIGHT = 4;

type Items = Map<string, Record<string, unknown> | undefined>;

/** A tick's items: each map's id mapped to undefined has no item; an id absent was left unprocessed. */
export interface TickItems {
  /** State items (TARGET#<id>, STATE) by target id. */
  states: Items;
  /** Capacity mix plans (MIX#<id>, PLAN: shared/aws/mix-store.ts) by target id, raw. */
  plans: Items;
}

export interface StateBatchPort {
  /**
   * State items by target id: an id mapped to undefined has no item yet; an id absent from the
   * map was not read (unprocessed), and its target reads its own.
   */
  readMany(targetIds: readonly string[]): Promise<Items>;
  /**
   * The state items and the PLAN items of the targets with a capacity mix, in the same
   * BatchGetItem calls: ceil((targets + plans) / 100), never a call per target.
   */
  readTick?(targetIds: readonly string[], planIds: readonly string[]): Promise<TickItems>;
}

/** The two kinds of key a tick reads, and the id each item's pk names. */
const KINDS = [
  { kind: 'states', prefix: 'TARGET#', sk: STATE_SK },
  { kind: 'plans', prefix: mixPk(''), sk: MIX_SK },
] as const;

const idOf = (pk: unknown, prefix: string): string | null =>
  typeof pk === 'string' && pk.startsWith(prefix) ? pk.slice(prefix.length) : null;

export function stateBatchReads(client: DynamoDBDocumentClient, tableName: string): StateBatchPort {
  async function readTick(targetIds: readonly string[], planIds: readonly string[]): Promise<TickItems> {
    const out: TickItems = { states: new Map(), plans: new Map() };
    const keys = [
      ...[...new Set(targetIds)].map((id) => ({
        kind: 'states' as const,
        id,
        pk: targetPk(id),
        sk: STATE_SK,
      })),
      ...[...new Set(planIds)].map((id) => ({ kind: 'plans' as const, id, pk: mixPk(id), sk: MIX_SK })),
    ];
    await mapBounded(chunks(keys, KEYS_PER_CALL), BATCHES_IN_FLIGHT, async (batch) => {
      const res = await client.send(
        new BatchGetCommand({
          RequestItems: {
            [tableName]: { Keys: batch.map(({ pk, sk }) => ({ pk, sk })), ConsistentRead: true },
          },
        }),
      );
      const unprocessed = new Set(
        (res.UnprocessedKeys?.[tableName]?.Keys ?? []).map((k) => `${String(k.pk)}|${String(k.sk)}`),
      );
      const items = res.Responses?.[tableName];
      // Read as "no items", a missing list would make every target start over from no state.
      if (!Array.isArray(items))
        throw new MalformedResponseError(`BatchGetItem Responses.${tableName} is missing`);
      const found = new Map<string, Record<string, unknown>>();
      for (const item of items) {
        for (const k of KINDS) {
          const id = idOf(item.pk, k.prefix);
          if (id !== null && item.sk === k.sk) found.set(`${k.kind}|${id}`, item);
        }
      }
      for (const { kind, id, pk, sk } of batch)
        if (!unprocessed.has(`${pk}|${sk}`)) out[kind].set(id, found.get(`${kind}|${id}`));
    });
    return out;
  }
  return {
    readTick,
    readMany: async (targetIds) => (await readTick(targetIds, [])).states,
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
