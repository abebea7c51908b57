/** The MIX#<target> / PLAN items: consistent reads, batched reads with unprocessed keys, the version lock. */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { dynamoMixStore, MalformedItemError, mixPk } from '#shared/aws/mix-store.ts';
import { initialMixState, stepMix } from '#shared/mix/plan.ts';
import type { MixState } from '#shared/mix/types.ts';
import { at, flat, mixPolicy } from '../mix/harness.ts';
import { awsError } from './fakes.ts';

const ddb = mockClient(DynamoDBDocumentClient);
const client = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
const T = Date.UTC(2026, 0, 5, 12, 0);
const store = dynamoMixStore(client, 'state', () => T);
beforeEach(() => ddb.reset());

const state: MixState = stepMix(initialMixState(), { forecast: flat(at(0), 10) }, mixPolicy(), at(0)).state;
const item = (id: string, version = 3) => ({ pk: mixPk(id), sk: 'PLAN', version, state, updatedAt: 'x' });

describe('dynamoMixStore', () => {
  it('get reads MIX#<id> / PLAN strongly consistent and returns the state and version', async () => {
    ddb.on(GetCommand).resolves({ Item: item('gpu') });
    expect(await store.get('gpu')).toEqual({ state, version: 3 });
    expect(ddb.commandCalls(GetCommand)[0]!.args[0].input).toEqual({
      TableName: 'state',
      Key: { pk: 'MIX#gpu', sk: 'PLAN' },
      ConsistentRead: true,
    });
  });

  it('get returns null when there is no item', async () => {
    ddb.on(GetCommand).resolves({});
    expect(await store.get('gpu')).toBeNull();
  });

  it.each([
    {
      case: 'a state that fails MixStateSchema',
      bad: { ...item('gpu'), state: { version: 2 } },
      field: /state\.version/,
    },
    { case: 'a missing version', bad: { ...item('gpu'), version: undefined }, field: /version is undefined/ },
  ])('a malformed item ($case) throws naming the key', async ({ bad, field }) => {
    ddb.on(GetCommand).resolves({ Item: bad });
    const error = await store.get('gpu').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MalformedItemError);
    expect((error as Error).message).toMatch(/pk MIX#gpu sk PLAN/);
    expect((error as Error).message).toMatch(field);
  });

  it('getMany reads 250 ids in three calls of at most 100 keys, consistent', async () => {
    ddb.on(BatchGetCommand).callsFake((input) => ({
      Responses: { state: input.RequestItems.state.Keys.map((k: { pk: string }) => item(k.pk.slice(4))) },
    }));
    const ids = Array.from({ length: 250 }, (_, i) => `t${i}`);
    const got = await store.getMany(ids);
    expect(got.size).toBe(250);
    const calls = ddb.commandCalls(BatchGetCommand).map((c) => c.args[0].input.RequestItems!.state!);
    expect(calls.map((c) => c.Keys!.length)).toEqual([100, 100, 50]);
    expect(calls.every((c) => c.ConsistentRead === true)).toBe(true);
  });

  it('getMany asks again for unprocessed keys and leaves absent items out', async () => {
    ddb
      .on(BatchGetCommand)
      .resolvesOnce({
        Responses: { state: [item('a')] },
        UnprocessedKeys: { state: { Keys: [{ pk: 'MIX#b', sk: 'PLAN' }] } },
      })
      .resolves({ Responses: { state: [item('b', 7)] } });
    const got = await store.getMany(['a', 'b', 'c']);
    expect([...got.keys()].sort()).toEqual(['a', 'b']);
    expect(got.get('b')?.version).toBe(7);
    expect(ddb.commandCalls(BatchGetCommand)[1]!.args[0].input.RequestItems!.state!.Keys).toEqual([
      { pk: 'MIX#b', sk: 'PLAN' },
    ]);
  });

  it('getMany gives up on keys still unprocessed after five calls, naming one', async () => {
    ddb.on(BatchGetCommand).resolves({
      Responses: { state: [] },
      UnprocessedKeys: { state: { Keys: [{ pk: 'MIX#b', sk: 'PLAN' }] } },
    });
    await expect(store.getMany(['b'])).rejects.toThrow(
      /BatchGetItem on state left 1 keys unprocessed.*MIX#b/,
    );
    expect(ddb.commandCalls(BatchGetCommand)).toHaveLength(5);
  });

  it('getMany throws naming the key of a malformed item', async () => {
    ddb.on(BatchGetCommand).resolves({ Responses: { state: [{ ...item('a'), state: { plan: 1 } }] } });
    await expect(store.getMany(['a'])).rejects.toThrow(/pk MIX#a sk PLAN: state\./);
  });

  it.each([
    {
      case: 'a new item (expected 0) on condition that it is absent',
      expected: 0,
      condition: 'attribute_not_exists(pk)',
    },
    { case: 'version 4 on condition that 3 is stored', expected: 3, condition: '#version = :expected' },
  ])('put writes $case', async ({ expected, condition }) => {
    ddb.on(PutCommand).resolves({});
    expect(await store.put('gpu', state, expected)).toBe('written');
    const input = ddb.commandCalls(PutCommand)[0]!.args[0].input;
    expect(input.Item).toEqual({
      pk: 'MIX#gpu',
      sk: 'PLAN',
      version: expected + 1,
      state,
      updatedAt: '2026-01-05T12:00:00.000Z',
    });
    expect(input.ConditionExpression).toBe(condition);
    if (expected > 0) expect(input.ExpressionAttributeValues).toEqual({ ':expected': expected });
  });

  it('put answers conflict when another writer came first, and rethrows anything else', async () => {
    ddb
      .on(PutCommand)
      .rejectsOnce(awsError('ConditionalCheckFailedException'))
      .rejects(awsError('AccessDeniedException'));
    expect(await store.put('gpu', state, 3)).toBe('conflict');
    await expect(store.put('gpu', state, 3)).rejects.toThrow(/AccessDeniedException/);
  });

  it('put refuses a state the next read would refuse, without a call', async () => {
    await expect(store.put('gpu', { ...state, version: 2 } as unknown as MixState, 1)).rejects.toThrow();
    expect(ddb.commandCalls(PutCommand)).toHaveLength(0);
  });
});
