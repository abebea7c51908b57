/**
 * The commitments adapters (shared/aws/commitments.ts, commitments-store.ts) on
 * aws-sdk-client-mock: what each call asks (checked against botocore's models by the test setup),
 * how the SDK's output is converted, what is refused as malformed, and a failed call named by its
 * IAM action. Prepare / act / assess.
 */

import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeCapacityReservationsCommand,
  DescribeReservedInstancesCommand,
  EC2Client,
} from '@aws-sdk/client-ec2';
import {
  DescribeSavingsPlanRatesCommand,
  DescribeSavingsPlansCommand,
  SavingsplansClient,
} from '@aws-sdk/client-savingsplans';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { MalformedResponseError } from '#shared/aws/capacity.ts';
import { commitmentsAdapter, lowestRates, reservedFrom } from '#shared/aws/commitments.ts';
import { commitmentsStore } from '#shared/aws/commitments-store.ts';
import { awsError } from './fakes.ts';

const ec2 = mockClient(EC2Client);
const sp = mockClient(SavingsplansClient);
const now = Date.UTC(2026, 10, 27, 3);
const start = new Date(Date.UTC(2025, 0, 1));
const end = new Date(Date.UTC(2028, 0, 1));

beforeEach(() => {
  ec2.reset();
  sp.reset();
});

const adapter = () =>
  commitmentsAdapter(
    () => new EC2Client({ region: 'us-east-1' }),
    new SavingsplansClient({ region: 'us-east-1' }),
  );

describe('commitmentsAdapter.read', () => {
  it('reads active reservations, capacity reservations over pages, and plans with their lowest rate per type', async () => {
    ec2.on(DescribeReservedInstancesCommand).resolves({
      ReservedInstances: [
        {
          ReservedInstancesId: 'ri-1',
          InstanceType: 'g5.2xlarge',
          Scope: 'Region',
          InstanceCount: 2,
          State: 'active',
          Start: start,
          End: end,
        },
        {
          ReservedInstancesId: 'ri-2',
          InstanceType: 'g5.2xlarge',
          Scope: 'Availability Zone',
          AvailabilityZone: 'us-east-1a',
          InstanceCount: 1,
          State: 'active',
          Start: start,
          End: end,
        },
      ],
    });
    ec2
      .on(DescribeCapacityReservationsCommand)
      .resolvesOnce({
        CapacityReservations: [
          {
            CapacityReservationId: 'cr-1',
            InstanceType: 'g5.2xlarge',
            AvailabilityZone: 'us-east-1b',
            TotalInstanceCount: 3,
            State: 'active',
            EndDateType: 'unlimited',
            InstanceMatchCriteria: 'open',
          },
        ],
        NextToken: 'p2',
      })
      .resolvesOnce({
        CapacityReservations: [
          {
            CapacityReservationId: 'cr-2',
            InstanceType: 'g5.2xlarge',
            AvailabilityZone: 'us-east-1a',
            TotalInstanceCount: 1,
            State: 'active',
            EndDateType: 'limited',
            EndDate: end,
            InstanceMatchCriteria: 'targeted',
          },
        ],
      });
    sp.on(DescribeSavingsPlansCommand).resolves({
      savingsPlans: [
        {
          savingsPlanId: 'sp-1',
          savingsPlanType: 'Compute',
          state: 'active',
          commitment: '1.5',
          start: start.toISOString(),
          end: end.toISOString(),
        },
      ],
    });
    sp.on(DescribeSavingsPlanRatesCommand).resolves({
      savingsPlanId: 'sp-1',
      searchResults: [
        { rate: '0.9', unit: 'Hrs', properties: [{ name: 'instanceType', value: 'g5.2xlarge' }] },
        { rate: '0.7', unit: 'Hrs', properties: [{ name: 'instanceType', value: 'g5.2xlarge' }] },
      ],
    });

    const read = await adapter().read('us-east-1', ['g5.2xlarge'], now);

    expect(read.readAt).toBe(now);
    expect(read.reservations).toEqual([
      {
        id: 'ri-1',
        instanceType: 'g5.2xlarge',
        zone: null,
        count: 2,
        state: 'active',
        start: start.getTime(),
        end: end.getTime(),
      },
      {
        id: 'ri-2',
        instanceType: 'g5.2xlarge',
        zone: 'us-east-1a',
        count: 1,
        state: 'active',
        start: start.getTime(),
        end: end.getTime(),
      },
    ]);
    expect(read.capacityReservations.map((c) => [c.id, c.end, c.matching])).toEqual([
      ['cr-1', null, 'open'],
      ['cr-2', end.getTime(), 'targeted'],
    ]);
    expect(read.savingsPlans).toEqual([
      expect.objectContaining({
        id: 'sp-1',
        type: 'Compute',
        commitmentUsdPerHour: 1.5,
        rates: { 'g5.2xlarge': 0.7 },
      }),
    ]);
    const filters = [
      { Name: 'instance-type', Values: ['g5.2xlarge'] },
      { Name: 'state', Values: ['active'] },
    ];
    expect(ec2.commandCalls(DescribeReservedInstancesCommand)[0]!.args[0].input).toEqual({
      Filters: filters,
    });
    expect(ec2.commandCalls(DescribeCapacityReservationsCommand)[1]!.args[0].input).toEqual({
      Filters: filters,
      MaxResults: 1000,
      NextToken: 'p2',
    });
    expect(sp.commandCalls(DescribeSavingsPlansCommand)[0]!.args[0].input).toEqual({ states: ['active'] });
    expect(sp.commandCalls(DescribeSavingsPlanRatesCommand)[0]!.args[0].input).toEqual({
      savingsPlanId: 'sp-1',
      filters: [
        { name: 'region', values: ['us-east-1'] },
        { name: 'instanceType', values: ['g5.2xlarge'] },
      ],
    });
  });

  it('a plan whose rates cannot be read keeps none (the check names it); the read goes on', async () => {
    ec2.on(DescribeReservedInstancesCommand).resolves({});
    ec2.on(DescribeCapacityReservationsCommand).resolves({});
    sp.on(DescribeSavingsPlansCommand).resolves({
      savingsPlans: [
        {
          savingsPlanId: 'sp-1',
          savingsPlanType: 'Compute',
          state: 'active',
          commitment: '2',
          start: start.toISOString(),
          end: end.toISOString(),
        },
      ],
    });
    sp.on(DescribeSavingsPlanRatesCommand).rejects(awsError('AccessDeniedException'));
    const read = await adapter().read('us-east-1', ['g5.2xlarge'], now);
    expect(read.savingsPlans[0]?.rates).toEqual({});
  });

  it.each([
    [
      'ec2:DescribeReservedInstances',
      () => ec2.on(DescribeReservedInstancesCommand).rejects(awsError('UnauthorizedOperation')),
    ],
    [
      'savingsplans:DescribeSavingsPlans',
      () => {
        ec2.on(DescribeReservedInstancesCommand).resolves({});
        ec2.on(DescribeCapacityReservationsCommand).resolves({});
        sp.on(DescribeSavingsPlansCommand).rejects(awsError('AccessDeniedException'));
      },
    ],
  ])('a failed %s is one line naming the action', async (action, prepare) => {
    prepare();
    await expect(adapter().read('us-east-1', ['g5.2xlarge'], now)).rejects.toThrow(
      new RegExp(`^${action} in us-east-1 failed \\(\\w+\\): grant the commitments function ${action}`),
    );
  });
});

describe('conversions', () => {
  it('refuses a reservation without its count instead of reading 0', () => {
    expect(() =>
      reservedFrom({
        ReservedInstancesId: 'ri-1',
        InstanceType: 'g5.2xlarge',
        Scope: 'Region',
        State: 'active',
        Start: start,
        End: end,
      }),
    ).toThrow(new MalformedResponseError('ReservedInstances ri-1 InstanceCount is missing'));
  });

  it('keeps the lowest hourly rate per type, ignoring other units and unreadable rates', () => {
    expect(
      lowestRates([
        { rate: '0.8', unit: 'Hrs', properties: [{ name: 'instanceType', value: 'g6.2xlarge' }] },
        { rate: '0.1', unit: 'Request', properties: [{ name: 'instanceType', value: 'g6.2xlarge' }] },
        { rate: 'n/a', unit: 'Hrs', properties: [{ name: 'instanceType', value: 'g5.2xlarge' }] },
      ]),
    ).toEqual({ 'g6.2xlarge': 0.8 });
  });
});

describe('commitmentsStore', () => {
  const ddb = mockClient(DynamoDBDocumentClient);
  const store = () =>
    commitmentsStore(
      DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' })),
      'governor-state',
    );
  const read = {
    readAt: now,
    region: 'us-east-1',
    reservations: [],
    capacityReservations: [],
    savingsPlans: [],
  };

  beforeEach(() => ddb.reset());

  it('writes one item per region with a week of TTL, and reads it back parsed', async () => {
    ddb.on(PutCommand).resolves({});
    await store().write(read);
    expect(ddb.commandCalls(PutCommand)[0]!.args[0].input).toEqual({
      TableName: 'governor-state',
      Item: { pk: 'COMMIT#us-east-1', sk: 'READ', read, expiresAt: Math.floor(now / 1000) + 7 * 86_400 },
    });
    ddb.on(GetCommand).resolves({ Item: { pk: 'COMMIT#us-east-1', sk: 'READ', read } });
    expect(await store().read('us-east-1')).toEqual(read);
  });

  it('no item is null; an item that does not parse is an error naming it', async () => {
    ddb
      .on(GetCommand)
      .resolvesOnce({})
      .resolvesOnce({ Item: { read: { ...read, readAt: 'soon' } } });
    expect(await store().read('us-east-1')).toBeNull();
    await expect(store().read('us-east-1')).rejects.toThrow(
      /COMMIT#us-east-1\/READ does not parse \(readAt: /,
    );
  });
});
