/**
 * DynamoDB adapter for the forecast function: reads a target's state item's `forecastFloor`, its
 * measured lead times (`leadTimes`, `leadTimesSfn`), its measured noise (`noise`) and the burst
 * floor's demand (`burstDemand`) in one GetItem, and writes only `forecastFloor`, `noise` and
 * `burstDemand`. The write is an UpdateItem that sets those attributes, unconditionally: it never
 * touches `version`, `engine`, `pending`, `slo` or the lead times, so it cannot overwrite the
 * evaluator's state or fail its conditional claims, and on a target no evaluation has written yet
 * it creates the item with the floor (and noise, and burst demand) alone.
 *
 * It also keeps the ledger of forecast ticks (`pk=FORECAST`, `sk=TICK#<id>`, TTL two days): a run
 * claims its tick with a conditional UpdateItem, so a tick id already run (or running) is refused
 * as a duplicate. A run that failed may run again under the same id (Lambda's retry), and so may
 * one that has said `running` for longer than the function can run (it was killed).
 */
import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ForecastFloor, StoredNoise } from '../floors/stored.ts';
import type { StoredBurstDemand } from '../state/burst-demand.ts';
import { STATE_SK, targetPk } from '../state/item.ts';
import { errorName } from './clients.ts';

export const TICKS_PK = 'FORECAST';
export const tickSk = (id: string) => `TICK#${id}`;
/** How long a tick id is remembered: two days, far beyond any retry or replay window. */
export const TICK_TTL_SECONDS = 2 * 86_400;

export type TickStatus = 'running' | 'done' | 'failed';

/** The claim of a tick: taken, or refused with what the ledger said (null when it did not say). */
export type TickClaim =
  | { claimed: true }
  | { claimed: false; status: string | null; startedAt: string | null };

/** The stored attributes as they are (each undefined when absent); decoded by the caller. */
export interface StoredForecastInputs {
  floor: unknown;
  leadTimes: unknown;
  leadTimesSfn: unknown;
  noise?: unknown;
  burstDemand?: unknown;
}

/** What one run writes for a target: the floor, the noise, the burst demand, or any of them, in one UpdateItem. */
export interface ForecastWrite {
  forecastFloor?: ForecastFloor;
  noise?: StoredNoise;
  burstDemand?: StoredBurstDemand;
}

export interface FloorStorePort {
  read(targetId: string): Promise<StoredForecastInputs>;
  write(targetId: string, attributes: ForecastWrite): Promise<void>;
  /**
   * Records tick `id` as running from `now` (epoch ms), unless it is already done, or running
   * since after `staleBefore` (epoch ms): then the claim is refused.
   */
  claimTick(id: string, now: number, staleBefore: number): Promise<TickClaim>;
  /** Records how the run of tick `id` ended. */
  finishTick(id: string, status: Exclude<TickStatus, 'running'>, now: number): Promise<void>;
}

/** A string attribute of a raw (marshalled) item, as a refused conditional write returns it. */
const rawString = (item: unknown, name: string): string | null => {
  const value = (item as Record<string, { S?: unknown }> | undefined)?.[name]?.S;
  return typeof value === 'string' ? value : null;
};

/** The UpdateExpression of a write: `SET #floor = :floor, #noise = :noise, #burst = :burst`, or those it has. */
export function forecastWriteExpression(w: ForecastWrite): {
  expression: string;
  names: Record<string, string>;
  values: Record<string, unknown>;
} | null {
  const set: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  if (w.forecastFloor) {
    set.push('#floor = :floor');
    names['#floor'] = 'forecastFloor';
    values[':floor'] = w.forecastFloor;
  }
  if (w.noise) {
    set.push('#noise = :noise');
    names['#noise'] = 'noise';
    values[':noise'] = w.noise;
  }
  if (w.burstDemand) {
    set.push('#burst = :burst');
    names['#burst'] = 'burstDemand';
    values[':burst'] = w.burstDemand;
  }
  return set.length === 0 ? null : { expression: `SET ${set.join(', ')}`, names, values };
}

export function dynamoFloorStore(client: DynamoDBDocumentClient, tableName: string): FloorStorePort {
  const Key = (targetId: string) => ({ pk: targetPk(targetId), sk: STATE_SK });
  return {
    async read(targetId) {
      const out = await client.send(
        new GetCommand({
          TableName: tableName,
          Key: Key(targetId),
          ProjectionExpression: '#floor, #lead, #leadSfn, #noise, #burst',
          ExpressionAttributeNames: {
            '#floor': 'forecastFloor',
            '#lead': 'leadTimes',
            '#leadSfn': 'leadTimesSfn',
            '#noise': 'noise',
            '#burst': 'burstDemand',
          },
        }),
      );
      return {
        floor: out.Item?.forecastFloor,
        leadTimes: out.Item?.leadTimes,
        leadTimesSfn: out.Item?.leadTimesSfn,
        noise: out.Item?.noise,
        burstDemand: out.Item?.burstDemand,
      };
    },
    async claimTick(id, now, staleBefore) {
      try {
        await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: { pk: TICKS_PK, sk: tickSk(id) },
            UpdateExpression: 'SET #status = :running, #startedAt = :now, #expiresAt = :expires',
            // A finished run stays finished: only a run still marked running past the function's timeout
            // (it was killed) may be claimed again, never a done one, however late the duplicate.
            ConditionExpression:
              'attribute_not_exists(#status) OR #status = :failed OR (#status = :running AND #startedAt < :stale)',
            ExpressionAttributeNames: {
              '#status': 'status',
              '#startedAt': 'startedAt',
              '#expiresAt': 'expiresAt',
            },
            ExpressionAttributeValues: {
              ':running': 'running',
              ':failed': 'failed',
              ':now': new Date(now).toISOString(),
              ':stale': new Date(staleBefore).toISOString(),
              ':expires': Math.floor(now / 1000) + TICK_TTL_SECONDS,
            },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
        return { claimed: true };
      } catch (error) {
        if (errorName(error) !== 'ConditionalCheckFailedException') throw error;
        const old = (error as { Item?: unknown }).Item;
        return { claimed: false, status: rawString(old, 'status'), startedAt: rawString(old, 'startedAt') };
      }
    },
    async finishTick(id, status, now) {
      await client.send(
        new UpdateCommand({
          TableName: tableName,
          Key: { pk: TICKS_PK, sk: tickSk(id) },
          UpdateExpression: 'SET #status = :status, #finishedAt = :now',
          ExpressionAttributeNames: { '#status': 'status', '#finishedAt': 'finishedAt' },
          ExpressionAttributeValues: { ':status': status, ':now': new Date(now).toISOString() },
        }),
      );
    },
    async write(targetId, attributes) {
      const update = forecastWriteExpression(attributes);
      if (!update) return;
      await client.send(
        new UpdateCommand({
          TableName: tableName,
          Key: Key(targetId),
          UpdateExpression: update.expression,
          ExpressionAttributeNames: update.names,
          ExpressionAttributeValues: update.values,
        }),
      );
    },
  };
}
