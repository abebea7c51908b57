/**
 * The Route 53 weights adapter against moto over HTTP, through the real SDK: two weighted A
 * records (one set identifier per region) move 100/0 -> 50/50 -> 0/100 in one batch each, and
 * every other field of each record (TTL, values, health check id) is read back as it was.
 * Refusals write nothing.
 *
 * moto answers every change INSYNC at once (ChangeInfo and GetChange), does not implement
 * StartRecordIdentifier and returns no NextRecordIdentifier: paging inside a group is tested
 * with a mocked client in tests/aws/routing-route53.test.ts.
 */
import {
  ChangeResourceRecordSetsCommand,
  CreateHealthCheckCommand,
  CreateHostedZoneCommand,
  ListResourceRecordSetsCommand,
  type ResourceRecordSet,
  Route53Client,
} from '@aws-sdk/client-route-53';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  route53Client,
  route53WeightedRecords,
  type WeightedGroup,
  type WeightedRecordsPort,
  type Weights,
} from '#shared/aws/routing-route53.ts';
import { awsTestConfig, type MotoServer, motoGate, startMoto, TEST_CREDENTIALS } from '../support/moto.ts';

const gate = motoGate();

describe.skipIf(!gate.available)('Route 53 weighted records on moto', () => {
  let moto: MotoServer;
  let r53: Route53Client;
  let port: WeightedRecordsPort;
  let group: WeightedGroup;
  let healthCheckId: string;

  const records = async (): Promise<ResourceRecordSet[]> =>
    (await r53.send(new ListResourceRecordSetsCommand({ HostedZoneId: group.hostedZoneId })))
      .ResourceRecordSets ?? [];
  const apiRecords = async () =>
    (await records())
      .filter((r) => r.Name === 'api.example.com.' && r.Type === 'A')
      .sort((a, b) => (a.SetIdentifier ?? '').localeCompare(b.SetIdentifier ?? ''));

  beforeAll(async () => {
    moto = await startMoto();
    r53 = new Route53Client(awsTestConfig(moto.endpoint));
    const zone = await r53.send(
      new CreateHostedZoneCommand({ Name: 'example.com', CallerReference: 'route53-moto-test' }),
    );
    const hostedZoneId = zone.HostedZone!.Id!.replace('/hostedzone/', '');
    const check = await r53.send(
      new CreateHealthCheckCommand({
        CallerReference: 'route53-moto-check',
        HealthCheckConfig: { Type: 'HTTPS', FullyQualifiedDomainName: 'east.example.com', Port: 443 },
      }),
    );
    healthCheckId = check.HealthCheck!.Id!;
    const weighted = (SetIdentifier: string, ip: string, Weight: number, ttl: number): ResourceRecordSet => ({
      Name: 'api.example.com.',
      Type: 'A',
      SetIdentifier,
      Weight,
      TTL: ttl,
      ResourceRecords: [{ Value: ip }],
      ...(SetIdentifier === 'us-east-1' ? { HealthCheckId: healthCheckId } : {}),
    });
    await r53.send(
      new ChangeResourceRecordSetsCommand({
        HostedZoneId: hostedZoneId,
        ChangeBatch: {
          Changes: [
            { Action: 'CREATE', ResourceRecordSet: weighted('us-east-1', '192.0.2.10', 100, 60) },
            { Action: 'CREATE', ResourceRecordSet: weighted('us-west-2', '198.51.100.20', 0, 30) },
            {
              Action: 'CREATE',
              ResourceRecordSet: {
                Name: 'www.example.com.',
                Type: 'A',
                TTL: 300,
                ResourceRecords: [{ Value: '203.0.113.5' }],
              },
            },
          ],
        },
      }),
    );
    group = { hostedZoneId, name: 'API.example.com', type: 'A' };
    port = route53WeightedRecords(
      route53Client({
        region: 'eu-west-1',
        endpoint: moto.endpoint,
        credentials: TEST_CREDENTIALS,
        maxAttempts: 2,
      }),
    );
  }, 60_000);
  afterAll(() => moto?.stop());

  it('reads the group as 100/0 to start with', async () => {
    expect(await port.weights(group)).toEqual({ 'us-east-1': 100, 'us-west-2': 0 });
  });

  it.each([
    { case: '100/0 -> 50/50', weights: { 'us-east-1': 50, 'us-west-2': 50 } },
    { case: '50/50 -> 0/100', weights: { 'us-east-1': 0, 'us-west-2': 100 } },
  ])(
    'moves the weights $case in one batch and reads them back, every other field as it was',
    async ({ weights }) => {
      const change = await port.setWeights(group, weights, { polls: 3, intervalMs: 0 });
      expect(change).toEqual({ changeId: expect.any(String), status: 'INSYNC', weights });
      expect(await apiRecords()).toEqual([
        {
          Name: 'api.example.com.',
          Type: 'A',
          SetIdentifier: 'us-east-1',
          Weight: weights['us-east-1'],
          TTL: 60,
          ResourceRecords: [{ Value: '192.0.2.10' }],
          HealthCheckId: healthCheckId,
        },
        {
          Name: 'api.example.com.',
          Type: 'A',
          SetIdentifier: 'us-west-2',
          Weight: weights['us-west-2'],
          TTL: 30,
          ResourceRecords: [{ Value: '198.51.100.20' }],
        },
      ]);
      expect(await port.waitInSync(change.changeId!)).toBe('INSYNC');
    },
  );

  it('leaves the zone alone when the weights already are as asked', async () => {
    const change = await port.setWeights(group, { 'us-west-2': 100 });
    expect(change).toEqual({
      changeId: null,
      status: 'INSYNC',
      weights: { 'us-east-1': 0, 'us-west-2': 100 },
    });
  });

  it.each<{ case: string; weights: Weights; message: RegExp; group?: Pick<WeightedGroup, 'name' | 'type'> }>([
    {
      case: 'a set identifier the group does not have',
      weights: { 'us-west-2': 50, 'eu-west-1': 50 },
      message:
        /api\.example\.com\. A in hosted zone \w+ has no record with set identifier "eu-west-1" \(it has: us-east-1, us-west-2\)/,
    },
    {
      case: 'weights that would all be zero',
      weights: { 'us-west-2': 0 },
      message: /refusing to set every weight of api\.example\.com\. A in hosted zone \w+ to 0/,
    },
    {
      case: 'a group that does not exist',
      weights: { 'us-east-1': 10 },
      group: { name: 'missing.example.com', type: 'A' },
      message: /there is no weighted record missing\.example\.com\. A/,
    },
    {
      case: 'records that are not weighted',
      weights: { 'us-east-1': 10 },
      group: { name: 'www.example.com', type: 'A' },
      message: /www\.example\.com\. A in hosted zone \w+ has a record without a set identifier/,
    },
  ])('refuses $case and writes nothing', async ({ weights, message, group: other }) => {
    const before = await records();
    await expect(port.setWeights({ ...group, ...other }, weights)).rejects.toThrow(message);
    expect(await records()).toEqual(before);
  });

  it('names the zone and the fix when the hosted zone does not exist', async () => {
    await expect(port.weights({ ...group, hostedZoneId: 'ZNOSUCHZONE123' })).rejects.toThrow(
      /the weighted records api\.example\.com\. A in hosted zone ZNOSUCHZONE123 was not found \(NoSuchHostedZone: .*\): check hostedZoneId/,
    );
  });
});
