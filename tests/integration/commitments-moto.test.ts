/**
 * The commitments function against moto 5.2 over HTTP, through the real SDK and its real handler
 * (issue 22, item 2: "reads of reservations on moto"). What moto 5.2 can and cannot show:
 *  - DescribeReservedInstances: moto answers "not yet implemented" (500), so no reservation can
 *    be created or read there. The function must then count the failed read
 *    (CommitmentReadFailures), check every target of the region as unread (CommitmentUnread:
 *    planned on the policy's own number, no shortfall published), store nothing, and not throw.
 *  - DescribeCapacityReservations and the Savings Plans API are not in moto 5.2 at all.
 *  - DynamoDB is: the stored read (COMMIT#<region>/READ) goes in and comes back whole.
 * The reads' shapes are proved on aws-sdk-client-mock against botocore's models
 * (tests/aws/commitments.test.ts); AWS itself is the only place the numbers can be read.
 */

import { readFileSync } from 'node:fs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SSMClient } from '@aws-sdk/client-ssm';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { commitmentsStore } from '#shared/aws/commitments-store.ts';
import {
  awsTestConfig,
  createStateTable,
  importHandlerOnMoto,
  type MotoServer,
  motoGate,
  putStringParameter,
  startMoto,
  TEST_REGION,
} from '../support/moto.ts';

const gate = motoGate();
const TABLE = 'governor-state';
const POLICY = '/governor/policy';

describe.skipIf(!gate.available)('the commitments function on moto', () => {
  let moto: MotoServer;
  let dynamo: DynamoDBClient;

  beforeAll(async () => {
    moto = await startMoto();
    dynamo = new DynamoDBClient(awsTestConfig(moto.endpoint));
    await createStateTable(dynamo, TABLE);
    await putStringParameter(
      new SSMClient(awsTestConfig(moto.endpoint)),
      POLICY,
      readFileSync('examples/capacity-mix.yaml', 'utf8'),
    );
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await moto?.stop();
  });

  it('a reservation read moto cannot serve is counted and every target checked as unread; nothing stored, no throw', async () => {
    const { handler } = await importHandlerOnMoto(
      moto,
      { POLICY_PARAMETER_NAME: POLICY, STATE_TABLE_NAME: TABLE, POWERTOOLS_METRICS_NAMESPACE: 'Governor' },
      () => import('#functions/commitments/handler.ts'),
    );
    const out = await handler({}, { getRemainingTimeInMillis: () => 60_000 } as never);
    expect(out.regions).toEqual([{ region: TEST_REGION, read: false }]);
    expect(out.targets).toEqual([
      { targetId: 'chat-llm-asg', reasons: ['CommitmentUnread'], existing: null, shortfall: 0 },
    ]);
    const store = commitmentsStore(DynamoDBDocumentClient.from(dynamo), TABLE);
    expect(await store.read(TEST_REGION)).toBeNull();
  });

  it('the stored read goes into the state table and comes back whole', async () => {
    const store = commitmentsStore(DynamoDBDocumentClient.from(dynamo), TABLE);
    const read = {
      readAt: Date.UTC(2026, 10, 27, 3),
      region: TEST_REGION,
      reservations: [
        { id: 'ri-1', instanceType: 'g5.2xlarge', zone: null, count: 2, state: 'active', start: 1, end: 2 },
      ],
      capacityReservations: [
        {
          id: 'cr-1',
          instanceType: 'g5.2xlarge',
          zone: 'us-east-1a',
          total: 1,
          state: 'active',
          end: null,
          matching: 'open' as const,
        },
      ],
      savingsPlans: [
        {
          id: 'sp-1',
          type: 'Compute',
          state: 'active',
          region: null,
          family: null,
          commitmentUsdPerHour: 1.5,
          start: 1,
          end: 2,
          rates: { 'g5.2xlarge': 0.7 },
        },
      ],
    };
    await store.write(read);
    expect(await store.read(TEST_REGION)).toEqual(read);
  });
});
