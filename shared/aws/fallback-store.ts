/**
 * The variant fallback's items in the state table: pk MIX#<targetId>, sk FALLBACK, attribute
 * `fallback` (FallbackState, validated with FallbackStateSchema on every read and write),
 * `version` (the optimistic lock) and `updatedAt`, beside the target's PLAN item. The same
 * versioned-item pattern as the PLAN and SPOT items (./mix-store.ts versionedItemStore); only
 * the mix function writes it, and only after the endpoint took the write it decided.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type FallbackState, FallbackStateSchema } from '../mix/fallback-types.ts';
import { mixPk, namedPort, versionedItemStore } from './mix-store.ts';

export const FALLBACK_SK = 'FALLBACK';

export interface StoredFallback {
  state: FallbackState;
  version: number;
}

export interface FallbackStorePort {
  get(targetId: string): Promise<StoredFallback | null>;
  put(targetId: string, state: FallbackState, expectedVersion: number): Promise<'written' | 'conflict'>;
}

export function dynamoFallbackStore(
  client: DynamoDBDocumentClient,
  tableName: string,
  clock: () => number = Date.now,
): FallbackStorePort {
  const store = versionedItemStore(
    client,
    tableName,
    { prefix: mixPk(''), sk: FALLBACK_SK, attribute: 'fallback', schema: FallbackStateSchema },
    clock,
  );
  return namedPort(store, (x): StoredFallback => ({ state: x.value, version: x.version }));
}
