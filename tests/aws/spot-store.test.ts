/** The MIX#<target> / SPOT items: the SpotState attribute on the versioned-item pattern of the PLAN items. */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { dynamoSpotStore } from '#shared/aws/spot-store.ts';
import { initialSpotState, type SpotState } from '#shared/interruptions/state.ts';

const ddb = mockClient(DynamoDBDocumentClient);
const client = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
const T = Date.UTC(2026, 0, 5, 12, 0);
const store = dynamoSpotStore(client, 'state', () => T);
beforeEach(() => ddb.reset());

const spot: SpotState = {
  ...initialSpotState(),
  handled: { 'i-0abc12345678': T },
  breakerOpenUntil: T + 3_600_000,
};

describe('dynamoSpotStore', () => {
  it('get reads MIX#<id> / SPOT strongly consistent', async () => {
    ddb.on(GetCommand).resolves({ Item: { pk: 'MIX#gpu', sk: 'SPOT', version: 2, spot } });
    expect(await store.get('gpu')).toEqual({ spot, version: 2 });
    expect(ddb.commandCalls(GetCommand)[0]!.args[0].input).toMatchObject({
      Key: { pk: 'MIX#gpu', sk: 'SPOT' },
      ConsistentRead: true,
    });
  });

  it('a SPOT item whose spot fails SpotStateSchema throws naming the key and the field', async () => {
    ddb
      .on(GetCommand)
      .resolves({ Item: { pk: 'MIX#gpu', sk: 'SPOT', version: 2, spot: { ...spot, handled: [] } } });
    await expect(store.get('gpu')).rejects.toThrow(/pk MIX#gpu sk SPOT: spot\.handled/);
  });

  it('getMany keeps SPOT items only, by target', async () => {
    ddb.on(BatchGetCommand).resolves({
      Responses: {
        state: [
          { pk: 'MIX#a', sk: 'SPOT', version: 1, spot },
          { pk: 'MIX#b', sk: 'PLAN', version: 1, state: {} },
        ],
      },
    });
    const got = await store.getMany(['a', 'b']);
    expect([...got.keys()]).toEqual(['a']);
    expect(ddb.commandCalls(BatchGetCommand)[0]!.args[0].input.RequestItems!.state!.Keys).toEqual([
      { pk: 'MIX#a', sk: 'SPOT' },
      { pk: 'MIX#b', sk: 'SPOT' },
    ]);
  });

  it('put writes the spot attribute as the next version on condition of the one read', async () => {
    ddb.on(PutCommand).resolves({});
    expect(await store.put('gpu', spot, 2)).toBe('written');
    expect(ddb.commandCalls(PutCommand)[0]!.args[0].input).toMatchObject({
      Item: { pk: 'MIX#gpu', sk: 'SPOT', version: 3, spot, updatedAt: '2026-01-05T12:00:00.000Z' },
      ConditionExpression: '#version = :expected',
      ExpressionAttributeValues: { ':expected': 2 },
    });
  });
});
