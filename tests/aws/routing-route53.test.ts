/**
 * The Route 53 weights adapter's exact calls, with the client mocked: paging inside a group
 * (which moto cannot do), the one batch of UPSERTs, the bounded wait for INSYNC, refusals
 * before any write and errors in one line. tests/integration/route53-moto.test.ts runs the same
 * adapter against moto.
 */
import {
  ChangeResourceRecordSetsCommand,
  GetChangeCommand,
  ListResourceRecordSetsCommand,
  type ResourceRecordSet,
  Route53Client,
} from '@aws-sdk/client-route-53';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { MAX_ATTEMPTS } from '#shared/aws/clients.ts';
import {
  normalName,
  route53Client,
  route53WeightedRecords,
  type WeightedGroup,
  type Weights,
} from '#shared/aws/routing-route53.ts';
import { awsError } from './fakes.ts';

const r53 = mockClient(Route53Client);
const slept: number[] = [];
const port = route53WeightedRecords(new Route53Client({ region: 'us-east-1' }), {
  sleep: async (ms) => {
    slept.push(ms);
  },
});
beforeEach(() => {
  r53.reset();
  slept.length = 0;
});

const group: WeightedGroup = {
  hostedZoneId: '/hostedzone/Z0123456789ABC',
  name: 'API.example.com',
  type: 'A',
};
const record = (
  SetIdentifier: string,
  Weight: number,
  over: Partial<ResourceRecordSet> = {},
): ResourceRecordSet => ({
  Name: 'api.example.com.',
  Type: 'A',
  SetIdentifier,
  Weight,
  TTL: 60,
  ResourceRecords: [{ Value: '192.0.2.1' }],
  ...over,
});
const east = record('us-east-1', 100, { HealthCheckId: 'hc-east' });
const west = record('us-west-2', 0, { TTL: 30, ResourceRecords: [{ Value: '198.51.100.2' }] });
const listing = (...sets: ResourceRecordSet[]) => ({
  ResourceRecordSets: sets,
  IsTruncated: false,
  MaxItems: 300,
});
const writes = () => r53.commandCalls(ChangeResourceRecordSetsCommand);

describe('the route53 client', () => {
  it('is signed for us-east-1 whatever the stack region, with the same retries as every client', async () => {
    const client = route53Client({ region: 'eu-west-1' });
    expect(await client.config.region()).toBe('us-east-1');
    expect(await client.config.maxAttempts()).toBe(MAX_ATTEMPTS);
  });
});

describe('normalName', () => {
  it.each([
    { given: 'API.Example.com', want: 'api.example.com.' },
    { given: 'api.example.com.', want: 'api.example.com.' },
    { given: '\\052.example.com.', want: '*.example.com.' },
  ])('reads $given as $want', ({ given, want }) => {
    expect(normalName(given)).toBe(want);
  });
});

describe('setWeights', () => {
  it('reads the group from its name and type, then UPSERTs only the changed records, every other field as read', async () => {
    r53
      .on(ListResourceRecordSetsCommand)
      .resolvesOnce(
        listing(east, west, record('api', 1, { Name: 'www.example.com.', SetIdentifier: undefined })),
      )
      .resolvesOnce(listing(record('us-east-1', 50, { HealthCheckId: 'hc-east' }), record('us-west-2', 50)));
    r53
      .on(ChangeResourceRecordSetsCommand)
      .resolves({ ChangeInfo: { Id: '/change/C123', Status: 'PENDING', SubmittedAt: new Date() } });

    const change = await port.setWeights(group, { 'us-east-1': 50, 'us-west-2': 50 });

    expect(r53.commandCalls(ListResourceRecordSetsCommand)[0]!.args[0].input).toEqual({
      HostedZoneId: 'Z0123456789ABC',
      StartRecordName: 'api.example.com.',
      StartRecordType: 'A',
    });
    expect(writes().map((c) => c.args[0].input)).toEqual([
      {
        HostedZoneId: 'Z0123456789ABC',
        ChangeBatch: {
          Comment: 'Governor failover: us-east-1=50, us-west-2=50',
          Changes: [
            { Action: 'UPSERT', ResourceRecordSet: { ...east, Weight: 50 } },
            { Action: 'UPSERT', ResourceRecordSet: { ...west, Weight: 50 } },
          ],
        },
      },
    ]);
    expect(change).toEqual({
      changeId: 'C123',
      status: 'PENDING',
      weights: { 'us-east-1': 50, 'us-west-2': 50 },
    });
    expect(r53.commandCalls(GetChangeCommand)).toHaveLength(0);
  });

  it('sends only the records whose weight changes', async () => {
    r53
      .on(ListResourceRecordSetsCommand)
      .resolves(listing(east, record('us-west-2', 50), record('eu-west-1', 0)));
    r53
      .on(ChangeResourceRecordSetsCommand)
      .resolves({ ChangeInfo: { Id: 'C9', Status: 'INSYNC', SubmittedAt: new Date() } });
    await port.setWeights(group, { 'us-east-1': 100, 'us-west-2': 0, 'eu-west-1': 100 });
    expect(writes()[0]!.args[0].input.ChangeBatch?.Changes?.map((c) => c.ResourceRecordSet)).toEqual([
      record('us-west-2', 0),
      record('eu-west-1', 100),
    ]);
  });

  it('pages through a group split across pages by set identifier and stops once past it', async () => {
    r53
      .on(ListResourceRecordSetsCommand)
      .resolvesOnce({
        ResourceRecordSets: [east],
        IsTruncated: true,
        NextRecordName: 'api.example.com.',
        NextRecordType: 'A',
        NextRecordIdentifier: 'us-west-2',
        MaxItems: 1,
      })
      .resolvesOnce({
        ResourceRecordSets: [west],
        IsTruncated: true,
        NextRecordName: 'api.example.com.',
        NextRecordType: 'AAAA',
        NextRecordIdentifier: 'us-east-1',
        MaxItems: 1,
      });
    expect(await port.weights(group)).toEqual({ 'us-east-1': 100, 'us-west-2': 0 });
    expect(
      r53.commandCalls(ListResourceRecordSetsCommand).map((c) => c.args[0].input.StartRecordIdentifier),
    ).toEqual([undefined, 'us-west-2']);
  });

  it('fails instead of looping when a page does not move past the last set identifier', async () => {
    r53.on(ListResourceRecordSetsCommand).resolves({
      ResourceRecordSets: [east],
      IsTruncated: true,
      NextRecordName: 'api.example.com.',
      NextRecordType: 'A',
      MaxItems: 1,
    });
    await expect(port.weights(group)).rejects.toThrow(/did not move past set identifier \(start\)/);
  });

  it('waits for INSYNC when asked, polling GetChange at most the given number of times', async () => {
    r53.on(ListResourceRecordSetsCommand).resolves(listing(east, west));
    r53
      .on(ChangeResourceRecordSetsCommand)
      .resolves({ ChangeInfo: { Id: '/change/C7', Status: 'PENDING', SubmittedAt: new Date() } });
    r53
      .on(GetChangeCommand)
      .resolvesOnce({ ChangeInfo: { Id: 'C7', Status: 'PENDING', SubmittedAt: new Date() } })
      .resolves({ ChangeInfo: { Id: 'C7', Status: 'INSYNC', SubmittedAt: new Date() } });
    const change = await port.setWeights(group, { 'us-west-2': 10 }, { polls: 5, intervalMs: 2_000 });
    expect(change.status).toBe('INSYNC');
    expect(r53.commandCalls(GetChangeCommand).map((c) => c.args[0].input)).toEqual([
      { Id: 'C7' },
      { Id: 'C7' },
    ]);
    expect(slept).toEqual([2_000]);
  });

  it('answers PENDING, not an error, when the change is not in sync after the last poll', async () => {
    r53
      .on(GetChangeCommand)
      .resolves({ ChangeInfo: { Id: 'C7', Status: 'PENDING', SubmittedAt: new Date() } });
    expect(await port.waitInSync('C7', { polls: 3, intervalMs: 5 })).toBe('PENDING');
    expect(r53.commandCalls(GetChangeCommand)).toHaveLength(3);
    expect(slept).toEqual([5, 5]);
  });

  it.each([
    {
      case: 'a zone id that is not one',
      group: { ...group, hostedZoneId: 'example.com' },
      weights: { a: 1 },
      message: 'hostedZoneId is "example.com", which is not of the form Z0123456789ABC',
    },
    {
      case: 'an empty name',
      group: { ...group, name: '' },
      weights: { a: 1 },
      message: 'name is empty or not text ("")',
    },
    {
      case: 'an unknown type',
      group: { ...group, type: 'ALIAS' as never },
      weights: { a: 1 },
      message: 'type is "ALIAS"; it must be one of A, AAAA',
    },
    { case: 'no weights', group, weights: {}, message: 'weights is empty: name at least one' },
    {
      case: 'a weight above 255',
      group,
      weights: { 'us-east-1': 256 },
      message: 'weights["us-east-1"] is 256; it must be a whole number from 0 to 255',
    },
    {
      case: 'a fractional weight',
      group,
      weights: { 'us-east-1': 0.5 },
      message: 'weights["us-east-1"] is 0.5',
    },
    { case: 'a negative weight', group, weights: { 'us-east-1': -1 }, message: 'weights["us-east-1"] is -1' },
    {
      case: 'a set identifier over 128 characters',
      group,
      weights: { ['x'.repeat(129)]: 1 },
      message: 'weights: a set identifier is longer than 128 characters',
    },
  ])('rejects $case before any call, naming the field', async ({ group: g, weights, message }) => {
    await expect(port.setWeights(g, weights as Weights)).rejects.toThrow(message);
    expect(r53.calls()).toHaveLength(0);
  });

  it.each<{ case: string; listed: ResourceRecordSet[]; weights: Weights; message: string }>([
    {
      case: 'a set identifier the group lacks',
      listed: [east, west],
      weights: { 'eu-west-1': 10 },
      message:
        'api.example.com. A in hosted zone Z0123456789ABC has no record with set identifier "eu-west-1" (it has: us-east-1, us-west-2)',
    },
    {
      case: 'every weight at zero',
      listed: [east, west],
      weights: { 'us-east-1': 0 },
      message:
        'refusing to set every weight of api.example.com. A in hosted zone Z0123456789ABC to 0 (us-east-1, us-west-2): traffic must go somewhere',
    },
    {
      case: 'no such record',
      listed: [],
      weights: { 'us-east-1': 10 },
      message: 'there is no weighted record api.example.com. A in hosted zone Z0123456789ABC',
    },
    {
      case: 'a record of a traffic policy',
      listed: [east, record('us-west-2', 0, { TrafficPolicyInstanceId: 'tp-1' })],
      weights: { 'us-west-2': 10 },
      message:
        'record "us-west-2" of api.example.com. A in hosted zone Z0123456789ABC belongs to traffic policy instance tp-1',
    },
    {
      case: 'a failover record named as weighted',
      listed: [east, record('us-west-2', 0, { Weight: undefined, Failover: 'SECONDARY' })],
      weights: { 'us-west-2': 10 },
      message: 'record "us-west-2" of api.example.com. A in hosted zone Z0123456789ABC has no weight',
    },
  ])('refuses $case after reading, and writes nothing', async ({ listed, weights, message }) => {
    r53.on(ListResourceRecordSetsCommand).resolves(listing(...listed));
    await expect(port.setWeights(group, weights)).rejects.toThrow(message);
    expect(writes()).toHaveLength(0);
  });

  it('writes nothing and says so when every weight already is as asked', async () => {
    r53.on(ListResourceRecordSetsCommand).resolves(listing(east, west));
    expect(await port.setWeights(group, { 'us-east-1': 100 })).toEqual({
      changeId: null,
      status: 'INSYNC',
      weights: { 'us-east-1': 100, 'us-west-2': 0 },
    });
    expect(writes()).toHaveLength(0);
  });

  it.each([
    {
      case: 'access denied names the IAM action and the zone',
      error: awsError(
        'AccessDenied',
        'User: arn:aws:sts::1:assumed-role/x is not authorized\nto perform route53:ChangeResourceRecordSets',
        403,
      ),
      message:
        'route53:ChangeResourceRecordSets on arn:aws:route53:::hostedzone/Z0123456789ABC was denied (AccessDenied): grant route53:ChangeResourceRecordSets on arn:aws:route53:::hostedzone/Z0123456789ABC to the role that routes traffic',
    },
    {
      case: 'throttling left after the retries says to try again',
      error: awsError('Throttling', 'Rate exceeded'),
      message:
        "route53:ChangeResourceRecordSets on the weighted records api.example.com. A in hosted zone Z0123456789ABC was still throttled after the client's retries (Throttling): try again in a few seconds",
    },
    {
      case: 'an invalid batch says what Route 53 said, on one line',
      error: awsError('InvalidChangeBatch', 'RRSet with DNS name api.example.com.\nis not permitted'),
      message:
        'route53:ChangeResourceRecordSets on the weighted records api.example.com. A in hosted zone Z0123456789ABC failed (InvalidChangeBatch: RRSet with DNS name api.example.com. is not permitted)',
    },
  ])('$case', async ({ error, message }) => {
    r53.on(ListResourceRecordSetsCommand).resolves(listing(east, west));
    r53.on(ChangeResourceRecordSetsCommand).rejects(error);
    const thrown = await port.setWeights(group, { 'us-west-2': 1 }).catch((e: Error) => e);
    expect(thrown).toMatchObject({ name: 'RoutingCallError', message, awsName: error.name });
    expect((thrown as Error).message).not.toContain('\n');
  });
});
