import { CloudWatchClient, GetMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { cloudWatchMetrics, toMetricDataQuery } from '#shared/aws/cloudwatch.ts';
import { buildQueries } from '#shared/signals/queries.ts';
import { policyOf, variantTarget } from '../control/policies.ts';
import { awsError } from './fakes.ts';

const cw = mockClient(CloudWatchClient);
const client = new CloudWatchClient({ region: 'us-east-1' });
const metrics = cloudWatchMetrics(() => client);
const queries = buildQueries(policyOf(variantTarget()).targets);
const window = { start: Date.parse('2025-06-02T12:03:00Z'), end: Date.parse('2025-06-02T12:07:00Z') };

beforeEach(() => cw.reset());

describe('CloudWatch adapter', () => {
  it('sends every query in one call with the window, descending, per minute', async () => {
    cw.on(GetMetricDataCommand).resolves({ MetricDataResults: [] });
    await metrics.getMetricData('us-east-1', queries, window);
    const input = cw.commandCalls(GetMetricDataCommand)[0]!.args[0].input;
    expect(input).toMatchObject({
      StartTime: new Date('2025-06-02T12:03:00Z'),
      EndTime: new Date('2025-06-02T12:07:00Z'),
      ScanBy: 'TimestampDescending',
    });
    expect(input.MetricDataQueries).toEqual([
      {
        Id: 'q0',
        MetricStat: {
          Metric: {
            Namespace: 'AWS/SageMaker',
            MetricName: 'InvocationsPerInstance',
            Dimensions: [
              { Name: 'EndpointName', Value: 'chat-llm-prod' },
              { Name: 'VariantName', Value: 'AllTraffic' },
            ],
          },
          Period: 60,
          Stat: 'Sum',
        },
        ReturnData: true,
      },
      toMetricDataQuery(queries[1]!),
      toMetricDataQuery(queries[2]!),
    ]);
    expect(queries[2]!.source.metricName).toBe('Invocations');
  });

  it('follows NextToken and returns the results of every page', async () => {
    cw.on(GetMetricDataCommand)
      .resolvesOnce({ MetricDataResults: [{ Id: 'q0', Timestamps: [], Values: [] }], NextToken: 't1' })
      .resolvesOnce({ MetricDataResults: [{ Id: 'q1', Timestamps: [], Values: [] }] });
    const results = await metrics.getMetricData('us-east-1', queries, window);
    expect(results.map((r) => r.Id)).toEqual(['q0', 'q1']);
    expect(cw.commandCalls(GetMetricDataCommand).map((c) => c.args[0].input.NextToken)).toEqual([
      undefined,
      't1',
    ]);
  });

  it('makes no call for no queries', async () => {
    expect(await metrics.getMetricData('us-east-1', [], window)).toEqual([]);
    expect(cw.calls()).toHaveLength(0);
  });

  it('refuses more than 500 queries in one call', async () => {
    const many = Array.from({ length: 501 }, (_, i) => ({ ...queries[0]!, id: `q${i}` }));
    await expect(metrics.getMetricData('us-east-1', many, window)).rejects.toThrow(
      /at most 500 queries, got 501/,
    );
  });

  it.each([
    {
      case: 'throttling that outlasted the retries',
      error: awsError('ThrottlingException', 'Rate exceeded'),
    },
    { case: 'a 500 that outlasted the retries', error: awsError('InternalServiceError', 'oops', 500) },
  ])('surfaces $case to the caller', async ({ error }) => {
    cw.on(GetMetricDataCommand).rejects(error);
    await expect(metrics.getMetricData('us-east-1', queries, window)).rejects.toMatchObject({
      name: error.name,
    });
  });
});
