/**
 * CloudWatch adapter for the forecast's demand history: one GetMetricData for a batch of
 * queries over one window, following NextToken until the last page (a page holds at most
 * 100,800 datapoints: 12 targets x 28 days x 288 periods fills about one). Each query has its
 * own period: five minutes for the forecast, one minute for the noise (both in one call where
 * CloudWatch keeps one-minute data for the whole window: shared/signals/history-plan.ts). Raw
 * results come back as they are; shared/signals/demand.ts merges the pages and checks them.
 */

import {
  type CloudWatchClient,
  GetMetricDataCommand,
  type MetricDataQuery,
} from '@aws-sdk/client-cloudwatch';
import { appendAll } from '../arrays/extent.ts';
import { HISTORY_PERIOD_SECONDS, type HistoryQuery, type HistoryWindow } from '../signals/demand.ts';
import type { RawMetricResult } from '../signals/readings.ts';

export interface HistoryPort {
  demand(region: string, queries: readonly HistoryQuery[], window: HistoryWindow): Promise<RawMetricResult[]>;
}

/** GetMetricData takes at most 500 queries per call. */
export const MAX_HISTORY_QUERIES = 500;
/** Guards against a service that keeps answering with a NextToken. */
const MAX_PAGES = 100;

export const toHistoryQuery = (q: HistoryQuery): MetricDataQuery => ({
  Id: q.id,
  MetricStat: {
    Metric: {
      Namespace: q.source.namespace,
      MetricName: q.source.metricName,
      Dimensions: Object.entries(q.source.dimensions).map(([Name, Value]) => ({ Name, Value })),
    },
    Period: q.periodSeconds ?? HISTORY_PERIOD_SECONDS,
    Stat: q.source.statistic,
  },
  ReturnData: true,
});

export function cloudWatchHistory(clientFor: (region: string) => CloudWatchClient): HistoryPort {
  return {
    async demand(region, queries, window) {
      if (queries.length === 0) return [];
      if (queries.length > MAX_HISTORY_QUERIES)
        throw new Error(`GetMetricData takes at most ${MAX_HISTORY_QUERIES} queries, got ${queries.length}`);
      const results: RawMetricResult[] = [];
      let token: string | undefined;
      for (let page = 0; page < MAX_PAGES; page++) {
        const out = await clientFor(region).send(
          new GetMetricDataCommand({
            MetricDataQueries: queries.map(toHistoryQuery),
            StartTime: new Date(window.start),
            EndTime: new Date(window.end),
            ScanBy: 'TimestampAscending',
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
