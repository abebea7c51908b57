import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ExecutionAlreadyExists, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { dynamoStateStore } from '#shared/aws/dynamodb.ts';
import { stepFunctionsAdapter } from '#shared/aws/sfn.ts';
import { ssmParameters } from '#shared/aws/ssm.ts';
import { initialState } from '#shared/engine/types.ts';
import { awsError } from './fakes.ts';

const ddb = mockClient(DynamoDBDocumentClient);
const sfn = mockClient(SFNClient);
const ssm = mockClient(SSMClient);
const store = dynamoStateStore(
  DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' })),
  'governor-state',
);
beforeEach(() => {
  ddb.reset();
  sfn.reset();
  ssm.reset();
});

const write = {
  engine: initialState(),
  updatedAt: '2025-06-02T12:00:00.000Z',
  lastDecisionId: 'd1',
  pending: undefined,
};

describe('DynamoDB state store', () => {
  it('reads the state item strongly consistent', async () => {
    ddb.on(GetCommand).resolves({ Item: { version: 2 } });
    expect(await store.read('chat-llm')).toEqual({ version: 2 });
    expect(ddb.commandCalls(GetCommand)[0]!.args[0].input).toEqual({
      TableName: 'governor-state',
      Key: { pk: 'TARGET#chat-llm', sk: 'STATE' },
      ConsistentRead: true,
    });
  });

  it.each([
    {
      case: 'the first write requires that no version exists',
      expected: null,
      condition: 'attribute_not_exists(#version)',
      next: 1,
    },
    {
      case: 'a later write requires the version it read',
      expected: 4,
      condition: '#version = :expected',
      next: 5,
    },
  ])('$case', async ({ expected, condition, next }) => {
    ddb.on(UpdateCommand).resolves({});
    expect(await store.claim('chat-llm', expected, write)).toBe(true);
    const input = ddb.commandCalls(UpdateCommand)[0]!.args[0].input;
    expect(input.ConditionExpression).toBe(condition);
    expect(input.ExpressionAttributeValues?.[':next']).toBe(next);
    expect(input.UpdateExpression).toMatch(/REMOVE #pending$/);
  });

  it('a pending change is written with the claim', async () => {
    ddb.on(UpdateCommand).resolves({});
    const pending = { decisionId: 'd1', desiredCapacity: 6, previousCapacity: 4, at: 1 };
    await store.claim('chat-llm', 1, { ...write, pending });
    const input = ddb.commandCalls(UpdateCommand)[0]!.args[0].input;
    expect(input.UpdateExpression).toMatch(/, #pending = :pending$/);
    expect(input.ExpressionAttributeValues?.[':pending']).toEqual(pending);
  });

  it('a lost race (ConditionalCheckFailedException) is false, not an error', async () => {
    ddb.on(UpdateCommand).rejects(awsError('ConditionalCheckFailedException'));
    expect(await store.claim('chat-llm', 4, write)).toBe(false);
  });

  it('other write errors are thrown', async () => {
    ddb.on(UpdateCommand).rejects(awsError('ProvisionedThroughputExceededException'));
    await expect(store.claim('chat-llm', 4, write)).rejects.toMatchObject({
      name: 'ProvisionedThroughputExceededException',
    });
  });

  it('writes audit items as given', async () => {
    ddb.on(PutCommand).resolves({});
    await store.putAudit({ pk: 'TARGET#a', sk: 'DECISION#t#d', expiresAt: 1 });
    expect(ddb.commandCalls(PutCommand)[0]!.args[0].input).toEqual({
      TableName: 'governor-state',
      Item: { pk: 'TARGET#a', sk: 'DECISION#t#d', expiresAt: 1 },
    });
  });
});

describe('Step Functions adapter', () => {
  const input = {
    decisionId: 'd1',
    targetId: 'chat-llm',
    kind: 'sagemaker-variant' as const,
    endpointName: 'e',
    variantName: 'AllTraffic',
    desiredCapacity: 6,
    previousCapacity: 4,
    requestedAt: '2025-06-02T12:00:00.000Z',
    killSwitchValue: 'off',
  };
  it('starts the execution named after the decision with the contract input', async () => {
    sfn.on(StartExecutionCommand).resolves({ executionArn: 'arn:x', startDate: new Date() });
    expect(
      await stepFunctionsAdapter(new SFNClient({ region: 'us-east-1' })).startScaleTarget('arn:sm', input),
    ).toEqual({
      executionArn: 'arn:x',
      duplicate: false,
    });
    expect(sfn.commandCalls(StartExecutionCommand)[0]!.args[0].input).toEqual({
      stateMachineArn: 'arn:sm',
      name: 'd1',
      input: JSON.stringify(input),
    });
  });

  it('a duplicate start is reported, not thrown', async () => {
    sfn.on(StartExecutionCommand).rejects(new ExecutionAlreadyExists({ message: 'exists', $metadata: {} }));
    expect(
      await stepFunctionsAdapter(new SFNClient({ region: 'us-east-1' })).startScaleTarget('arn:sm', input),
    ).toEqual({
      executionArn: null,
      duplicate: true,
    });
  });
});

describe('SSM parameters', () => {
  const params = ssmParameters(new SSMClient({ region: 'us-east-1' }));
  it.each([
    { case: 'an existing parameter gives its value', reply: { Parameter: { Value: 'on' } }, value: 'on' },
    { case: 'a parameter without a value gives null', reply: { Parameter: {} }, value: null },
  ])('$case', async ({ reply, value }) => {
    ssm.on(GetParameterCommand).resolves(reply);
    expect(await params.get('/governor/kill-switch')).toBe(value);
  });

  it('a missing parameter is null', async () => {
    ssm.on(GetParameterCommand).rejects(awsError('ParameterNotFound'));
    expect(await params.get('/nope')).toBeNull();
  });

  it('other errors are thrown', async () => {
    ssm.on(GetParameterCommand).rejects(awsError('AccessDeniedException'));
    await expect(params.get('/p')).rejects.toMatchObject({ name: 'AccessDeniedException' });
  });
});
