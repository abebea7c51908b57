/**
 * The one versioned item a target's capacity mix lives in (issue 18): pk MIX#<targetId>, sk PLAN,
 * attributes `version` (the optimistic lock), `state` (the mix planner's MixState, its plan in
 * force) and `spot` (the interruption handler's SpotState: handled instances, warnings, pools out
 * of spot, the breaker), `updatedAt`. Both the mix function and the spot-events function write
 * it, each on condition of the version it read, each carrying the other's part as read: so a mix
 * run that read the item before a spot shift cannot overwrite the shift (its write fails the
 * condition and it changes nothing), and a spot shift stores the shifted plan as the plan in
 * force. Readers of `state` alone (the evaluator, ./state-batch.ts) are unchanged.
 *
 * Until the spot-events function first writes `spot`, the item has none; the legacy SPOT item
 * (sk SPOT, ./spot-store.ts) is then read in its place (once per target, at the upgrade), and
 * never written again.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { type SpotState, SpotStateSchema } from '../interruptions/state.ts';
import { type MixState, MixStateSchema } from '../mix/types.ts';
import { MIX_SK, mixPk, versionedItemStore } from './mix-store.ts';

export const MixItemSchema = z.object({
  state: MixStateSchema,
  spot: SpotStateSchema.nullable().default(null),
});

export interface MixItem {
  state: MixState;
  spot: SpotState | null;
}

export interface StoredMixItem extends MixItem {
  version: number;
}

export interface MixItemPort {
  get(targetId: string): Promise<StoredMixItem | null>;
  getMany(targetIds: string[]): Promise<Map<string, StoredMixItem>>;
  /** The whole item, on condition that its version is still expectedVersion (0: absent). */
  put(targetId: string, item: MixItem, expectedVersion: number): Promise<'written' | 'conflict'>;
}

export function dynamoMixItems(
  client: DynamoDBDocumentClient,
  tableName: string,
  clock: () => number = Date.now,
): MixItemPort {
  const store = versionedItemStore(
    client,
    tableName,
    { prefix: mixPk(''), sk: MIX_SK, attribute: ['state', 'spot'], schema: MixItemSchema },
    clock,
  );
  const wrap = (x: { value: MixItem; version: number }): StoredMixItem => ({
    ...x.value,
    version: x.version,
  });
  return {
    async get(id) {
      const x = await store.get(id);
      return x ? wrap(x) : null;
    },
    async getMany(ids) {
      return new Map([...(await store.getMany(ids))].map(([id, x]) => [id, wrap(x)]));
    },
    put: (id, item, expectedVersion) => store.put(id, item, expectedVersion),
  };
}
