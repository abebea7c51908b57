/**
 * The capacity mix items of the state table: pk MIX#<targetId>, sk PLAN, attributes `version`
 * (a number, the optimistic lock), `state` (the planner's MixState, validated with
 * MixStateSchema on every read and write) and `updatedAt` (ISO 8601). Only the mix function
 * writes PLAN items; the interruption handler reads them (the plan in force is what its
 * breaker counts against and what replanFor() shifts).
 *
 * The same versioned-item pattern serves the interruption handler's SPOT items
 * (./spot-store.ts): versionedItemStore() below is that pattern once.
 *  - get: GetItem, strongly consistent.
 *  - getMany: BatchGetItem, 100 keys a call (its limit), strongly consistent; keys DynamoDB
 *    leaves unprocessed (throttled) are asked again, up to UNPROCESSED_ATTEMPTS calls in all
 *    with a doubling pause, then an error naming them (a missing key is never read as "no item").
 *  - put: PutItem of version expectedVersion + 1 on condition that the stored version is still
 *    expectedVersion (0: the item is absent); 'conflict' when another writer came first.
 *  - a stored item whose attribute fails its schema throws MalformedItemError naming the key.
 */
import { BatchGetCommand, type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type * as z from 'zod';
import { chunks } from '../invocation/pool.ts';
import { type MixState, MixStateSchema } from '../mix/types.ts';
import { errorName } from './clients.ts';

export const MIX_SK = 'PLAN';
export const mixPk = (targetId: string) => `MIX#${targetId}`;

export interface StoredMix {
  state: MixState;
  version: number;
}

export interface MixStorePort {
  get(targetId: string): Promise<StoredMix | null>;
  getMany(targetIds: string[]): Promise<Map<string, StoredMix>>;
  put(targetId: string, state: MixState, expectedVersion: number): Promise<'written' | 'conflict'>;
}

/** A stored item that does not match its schema: names the key and the first bad field. */
export class MalformedItemError extends Error {
  override name = 'MalformedItemError';
}

/** BatchGetItem takes at most 100 keys per call. */
export const KEYS_PER_BATCH = 100;
/** Calls per chunk while keys come back unprocessed: pauses of 50, 100, 200, 400 ms between them. */
export const UNPROCESSED_ATTEMPTS = 5;
const PAUSE_MS = 50;

/** Where one kind of versioned item lives and what its payload attribute holds. */
export interface VersionedItemKind<T> {
  /** The partition key prefix, with its '#': 'MIX#'. */
  prefix: string;
  sk: string;
  /**
   * The attribute holding the payload: 'state', 'spot'; or a list of attributes, when the
   * payload is an object whose fields are the item's attributes (./mix-item.ts: state and spot).
   */
  attribute: string | readonly string[];
  schema: z.ZodType<T>;
}

export interface VersionedItemStore<T> {
  get(id: string): Promise<{ value: T; version: number } | null>;
  getMany(ids: readonly string[]): Promise<Map<string, { value: T; version: number }>>;
  put(id: string, value: T, expectedVersion: number): Promise<'written' | 'conflict'>;
}

/** The named attributes of an item (an absent one stays absent, for the schema's default). */
const pick = (item: Record<string, unknown>, names: readonly string[]): Record<string, unknown> =>
  Object.fromEntries(names.filter((n) => Object.hasOwn(item, n)).map((n) => [n, item[n]]));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function versionedItemStore<T>(
  client: DynamoDBDocumentClient,
  tableName: string,
  kind: VersionedItemKind<T>,
  clock: () => number = Date.now,
): VersionedItemStore<T> {
  const key = (id: string) => ({ pk: `${kind.prefix}${id}`, sk: kind.sk });
  const decode = (item: Record<string, unknown>): { id: string; value: T; version: number } => {
    const pk = String(item.pk);
    const where = `${tableName} item pk ${pk} sk ${kind.sk}`;
    const version = item.version;
    if (typeof version !== 'number' || !Number.isInteger(version) || version < 1)
      throw new MalformedItemError(
        `${where}: version is ${JSON.stringify(version)}, not a whole number >= 1`,
      );
    const parsed = kind.schema.safeParse(
      typeof kind.attribute === 'string' ? item[kind.attribute] : pick(item, kind.attribute),
    );
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const path = [
        ...(typeof kind.attribute === 'string' ? [kind.attribute] : []),
        ...(issue?.path ?? []),
      ].join('.');
      throw new MalformedItemError(`${where}: ${path} ${issue?.message ?? 'is invalid'}`);
    }
    return { id: pk.slice(kind.prefix.length), value: parsed.data, version };
  };

  const readChunk = async (ids: string[], out: Map<string, { value: T; version: number }>) => {
    let keys: Record<string, unknown>[] = ids.map(key);
    for (let attempt = 1; keys.length > 0; attempt++) {
      if (attempt > UNPROCESSED_ATTEMPTS)
        throw new Error(
          `dynamodb:BatchGetItem on ${tableName} left ${keys.length} keys unprocessed after ${UNPROCESSED_ATTEMPTS} calls (first: ${String(keys[0]?.pk)}); the table is throttled, retry later`,
        );
      if (attempt > 1) await sleep(PAUSE_MS * 2 ** (attempt - 2));
      const res = await client.send(
        new BatchGetCommand({ RequestItems: { [tableName]: { Keys: keys, ConsistentRead: true } } }),
      );
      const items = res.Responses?.[tableName];
      // Read as "no items", a missing list would make every id start over from nothing.
      if (!Array.isArray(items))
        throw new MalformedItemError(`BatchGetItem Responses.${tableName} is missing`);
      for (const item of items) {
        if (typeof item.pk !== 'string' || !item.pk.startsWith(kind.prefix) || item.sk !== kind.sk) continue;
        const { id, value, version } = decode(item);
        out.set(id, { value, version });
      }
      keys = res.UnprocessedKeys?.[tableName]?.Keys ?? [];
    }
  };

  return {
    async get(id) {
      const out = await client.send(
        new GetCommand({ TableName: tableName, Key: key(id), ConsistentRead: true }),
      );
      if (!out.Item) return null;
      const { value, version } = decode(out.Item);
      return { value, version };
    },
    async getMany(ids) {
      const out = new Map<string, { value: T; version: number }>();
      for (const chunk of chunks([...new Set(ids)], KEYS_PER_BATCH)) await readChunk(chunk, out);
      return out;
    },
    async put(id, value, expectedVersion) {
      // Never store what the next read would refuse.
      const checked = kind.schema.parse(value);
      try {
        await client.send(
          new PutCommand({
            TableName: tableName,
            Item: {
              ...key(id),
              version: expectedVersion + 1,
              ...(typeof kind.attribute === 'string' ? { [kind.attribute]: checked } : (checked as object)),
              updatedAt: new Date(clock()).toISOString(),
            },
            ConditionExpression: expectedVersion === 0 ? 'attribute_not_exists(pk)' : '#version = :expected',
            ...(expectedVersion === 0
              ? {}
              : {
                  ExpressionAttributeNames: { '#version': 'version' },
                  ExpressionAttributeValues: { ':expected': expectedVersion },
                }),
          }),
        );
        return 'written';
      } catch (error) {
        if (errorName(error) === 'ConditionalCheckFailedException') return 'conflict';
        throw error;
      }
    },
  };
}

/**
 * A store's port with its payload under its own name ({ state, version }, { spot, version }):
 * the one wrapping both the PLAN and the SPOT ports use.
 */
export function namedPort<T, S>(
  store: VersionedItemStore<T>,
  wrap: (x: { value: T; version: number }) => S,
): {
  get(id: string): Promise<S | null>;
  getMany(ids: string[]): Promise<Map<string, S>>;
  put(id: string, value: T, expectedVersion: number): Promise<'written' | 'conflict'>;
} {
  return {
    async get(id) {
      const x = await store.get(id);
      return x ? wrap(x) : null;
    },
    async getMany(ids) {
      const all = await store.getMany(ids);
      return new Map([...all].map(([id, x]) => [id, wrap(x)]));
    },
    put: (id, value, expectedVersion) => store.put(id, value, expectedVersion),
  };
}

export function dynamoMixStore(
  client: DynamoDBDocumentClient,
  tableName: string,
  clock: () => number = Date.now,
): MixStorePort {
  const store = versionedItemStore(
    client,
    tableName,
    { prefix: mixPk(''), sk: MIX_SK, attribute: 'state', schema: MixStateSchema },
    clock,
  );
  return namedPort(store, (x): StoredMix => ({ state: x.value, version: x.version }));
}
