/**
 * Reads a target's demand span by span through the forecast's history port
 * (shared/aws/demand-history.ts: GetMetricData, following NextToken): one call per span, since a
 * call's StartTime and EndTime hold for all its queries and each span needs its own period. The
 * queries are the forecast's own (demandQueries: where each target kind's requests are counted),
 * at the span's period.
 */
import type { HistoryPort } from '../aws/demand-history.ts';
import type { TargetPolicy } from '../policy/schema.ts';
import { demandQueries } from '../signals/demand.ts';
import type { HistoryPlan } from './plan.ts';
import { binSpan, type SpanSums } from './series.ts';

export type ReadResult = { ok: true; reads: SpanSums[] } | { ok: false; message: string };

export async function readSpans(
  port: HistoryPort,
  target: TargetPolicy,
  region: string,
  plan: HistoryPlan,
): Promise<ReadResult> {
  const reads: SpanSums[] = [];
  for (const span of plan.spans) {
    const queries = demandQueries([target], span.periodSeconds);
    const results = await port.demand(region, queries, { start: span.start, end: span.end });
    const binned = binSpan(span, queries, results);
    if (!binned.ok) return binned;
    reads.push(binned.read);
  }
  return { ok: true, reads };
}
