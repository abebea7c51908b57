/**
 * CloudWatch adapter: GetMetricData for a batch of queries (at most 500 per call, as
 * shared/signals/queries.ts chunks them), following NextToken until the last page. Returns the
 * raw results; shared/signals/readings.ts converts and checks them.
 */

import {
  type CloudWatchClient,
  GetMetricDataCommand,
  type MetricDataQuery,
  type MetricDataResult,
} from '@aws-sdk/client-cloudwatch';
import { appendAll } from '../arrays/extent.ts';
import {
  MAX_QUERIES_PER_CALL,
  type MetricQuery,
  PERIOD_SECONDS,
  type QueryWindow,
} from '../signals/queries.ts';
import type { RawMetricResult } from '../signals/readings.ts';

export interface MetricsPort {
  getMetricData(
    region: string,
    queries: readonly MetricQuery[],
    window: QueryWindow,
  ): Promise<RawMetricResult[]>;
}

/** Guards against a service that keeps answering with a NextToken: 100 pages of 100,800 points. */
const MAX_PAGES = 100;

export function toMetricDataQuery(q: MetricQuery): MetricDataQuery {
  return {
    Id: q.id,
    MetricStat: {
      Metric: {
        Namespace: q.source.namespace,
        MetricName: q.source.metricName,
        Dimensions: Object.entries(q.source.dimensions).map(([Name, Value]) => ({ Name, Value })),
      },
      Period: PERIOD_SECONDS,
      Stat: q.source.statistic,
    },
    ReturnData: true,
  };
}

export function cloudWatchMetrics(clientFor: (region: string) => CloudWatchClient): MetricsPort {
  return {
    async getMetricData(region, queries, window) {
      if (queries.length === 0) return [];
      if (queries.length > MAX_QUERIES_PER_CALL) {
        throw new Error(`GetMetricData takes at most ${MAX_QUERIES_PER_CALL} queries, got ${queries.length}`);
      }
      const client = clientFor(region);
      const results: MetricDataResult[] = [];
      let token: string | undefined;
      for (let page = 0; page < MAX_PAGES; page++) {
        const out = await client.send(
          new GetMetricDataCommand({
            MetricDataQueries: queries.map(toMetricDataQuery),
            StartTime: new Date(window.start),
            EndTime: new Date(window.end),
            ScanBy: 'TimestampDescending',
            NextToken: token,
          }),
        );
        appendAll(results, out.MetricDataResults ?? []);
        token = out.NextToken;
        if (!token) return results;
      }
      throw new Error(`GetMetricData still had a NextToken after ${MAX_PAGES} pages`);
    },
  };
}
