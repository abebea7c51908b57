/**
 * The interruption handler's SPOT items in the state table: pk MIX#<targetId>, sk SPOT,
 * attributes `version` (the optimistic lock), `spot` (SpotState, validated with SpotStateSchema
 * on every read and write) and `updatedAt` (ISO 8601), beside the mix function's PLAN item of
 * the same target. Written only by the spot-events function; the mix function reads it
 * (availabilityAt in shared/interruptions/state.ts). The read and write rules are those of the
 * PLAN items (./mix-store.ts, versionedItemStore): consistent reads, BatchGetItem in 100s with
 * unprocessed keys asked again, put on condition of the version read (0: the item is absent).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type SpotState, SpotStateSchema } from '../interruptions/state.ts';
import { mixPk, namedPort, versionedItemStore } from './mix-store.ts';

export const SPOT_SK = 'SPOT';

export interface StoredSpot {
  spot: SpotState;
  version: number;
}

export interface SpotStorePort {
  get(targetId: string): Promise<StoredSpot | null>;
  getMany(targetIds: string[]): Promise<Map<string, StoredSpot>>;
  put(targetId: string, spot: SpotState, expectedVersion: number): Promise<'written' | 'conflict'>;
}

export function dynamoSpotStore(
  client: DynamoDBDocumentClient,
  tableName: string,
  clock: () => number = Date.now,
): SpotStorePort {
  const store = versionedItemStore(
    client,
    tableName,
    { prefix: mixPk(''), sk: SPOT_SK, attribute: 'spot', schema: SpotStateSchema },
    clock,
  );
  return namedPort(store, (x): StoredSpot => ({ spot: x.value, version: x.version }));
}
