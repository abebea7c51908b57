/**
 * DynamoDB adapter for the forecast function: reads and writes only the `forecastFloor`
 * attribute of a target's state item (`pk=TARGET#<id>`, `sk=STATE`). The write is an UpdateItem
 * that sets that one attribute, unconditionally: it never touches `version`, `engine` or
 * `pending`, so it cannot overwrite the evaluator's state or fail its conditional claims, and on
 * a target no evaluation has written yet it creates the item with the floor alone.
 */
import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type ForecastFloor, STATE_SK, targetPk } from '../control/state.ts';

export interface FloorStorePort {
  /** The stored `forecastFloor` attribute as it is (undefined when there is none). */
  read(targetId: string): Promise<unknown>;
  write(targetId: string, floor: ForecastFloor): Promise<void>;
}

export function dynamoFloorStore(client: DynamoDBDocumentClient, tableName: string): FloorStorePort {
  const Key = (targetId: string) => ({ pk: targetPk(targetId), sk: STATE_SK });
  return {
    async read(targetId) {
      const out = await client.send(
        new GetCommand({
          TableName: tableName,
          Key: Key(targetId),
          ProjectionExpression: '#floor',
          ExpressionAttributeNames: { '#floor': 'forecastFloor' },
        }),
      );
      return out.Item?.forecastFloor;
    },
    async write(targetId, floor) {
      await client.send(
        new UpdateCommand({
          TableName: tableName,
          Key: Key(targetId),
          UpdateExpression: 'SET #floor = :floor',
          ExpressionAttributeNames: { '#floor': 'forecastFloor' },
          ExpressionAttributeValues: { ':floor': floor },
        }),
      );
    },
  };
}
