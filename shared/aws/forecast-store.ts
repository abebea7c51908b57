/**
 * DynamoDB adapter for the forecast function: reads a target's state item's `forecastFloor`, its
 * measured lead times (`leadTimes`, `leadTimesSfn`) and its measured noise (`noise`) in one
 * GetItem, and writes only `forecastFloor` and `noise`. The write is an UpdateItem that sets
 * those attributes, unconditionally: it never touches `version`, `engine`, `pending` or the lead
 * times, so it cannot overwrite the evaluator's state or fail its conditional claims, and on a
 * target no evaluation has written yet it creates the item with the floor (and noise) alone.
 */
import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type ForecastFloor, STATE_SK, type StoredNoise, targetPk } from '../control/state.ts';

/** The stored attributes as they are (each undefined when absent); decoded by the caller. */
export interface StoredForecastInputs {
  floor: unknown;
  leadTimes: unknown;
  leadTimesSfn: unknown;
  noise?: unknown;
}

/** What one run writes for a target: the floor, the noise, or both, in one UpdateItem. */
export interface ForecastWrite {
  forecastFloor?: ForecastFloor;
  noise?: StoredNoise;
}

export interface FloorStorePort {
  read(targetId: string): Promise<StoredForecastInputs>;
  write(targetId: string, attributes: ForecastWrite): Promise<void>;
}

/** The UpdateExpression of a write: `SET #floor = :floor`, `SET #noise = :noise`, or both. */
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
          ProjectionExpression: '#floor, #lead, #leadSfn, #noise',
          ExpressionAttributeNames: {
            '#floor': 'forecastFloor',
            '#lead': 'leadTimes',
            '#leadSfn': 'leadTimesSfn',
            '#noise': 'noise',
          },
        }),
      );
      return {
        floor: out.Item?.forecastFloor,
        leadTimes: out.Item?.leadTimes,
        leadTimesSfn: out.Item?.leadTimesSfn,
        noise: out.Item?.noise,
      };
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
