/**
 * Unit economics (issue 11, item 5): what a policy's fleet costs per 1,000 requests and per
 * million tokens, over the scored minutes [scoreFrom, end), and the same per time bucket for
 * the report's chart. Pure.
 *
 * Definitions (docs/backtest.md, "Reading the output"), with the policy's cost over the scored
 * minutes (ready + starting instances, plus 0.05 x idle warm instances, x the price):
 *   per 1,000 requests          = cost / (requests in the scored minutes / 1,000)
 *                                 every request counts, those in violating minutes too: the
 *                                 simulated fleet serves them all, some late;
 *   per 1,000 requests in SLO   = cost / (requests in scored minutes that met the SLO / 1,000)
 *                                 what an operator pays per good request: a policy that saves
 *                                 instances by breaking the SLO pays more here;
 *   per million tokens          = cost / (input + output tokens in the scored minutes / 10^6)
 *                                 when the trace has token columns.
 * A figure with nothing to divide by (no requests, every minute violating, no tokens) is null.
 * Worked example (tests/backtest/unit-cost.test.ts): 3 USD over minutes with 1,000, 500 and 500
 * requests, the second violating: 1.50 USD per 1,000 requests, 2.00 USD per 1,000 in the SLO.
 */
import { WARM_IDLE_COST } from './simulate.ts';
import type { Trace } from './trace.ts';
import type { PolicySeries } from './types.ts';

export interface UnitCost {
  costPer1kRequestsUsd: number | null;
  costPer1kRequestsWithinSloUsd: number | null;
  costPerMillionTokensUsd: number | null;
}

const per = (cost: number, count: number, unit: number): number | null =>
  count > 0 ? cost / (count / unit) : null;

/**
 * Input + output tokens per minute of the replayed requests, or null when the trace has none.
 * With Poisson noise each minute's tokens scale with its requests (tokens per request kept), as
 * token-aware work scales them (scenario.ts).
 */
export function tokensPerMinute(trace: Trace, requests: readonly number[]): number[] | null {
  const { inputTokens: input, outputTokens: output } = trace;
  if (!input || !output) return null;
  return requests.map((r, m) => {
    const raw = trace.requests[m]!;
    return raw > 0 ? ((input[m]! + output[m]!) * r) / raw : 0;
  });
}

export interface UnitCostInput {
  costUsd: number;
  requests: readonly number[];
  tokens: readonly number[] | null;
  /** Violating minutes, ascending (the simulator records scored minutes only). */
  violationMinutes: readonly number[];
  scoreFrom: number;
}

export function unitCost(input: UnitCostInput): UnitCost {
  const { costUsd, requests, tokens, scoreFrom } = input;
  let served = 0;
  let tokenSum = 0;
  for (let m = scoreFrom; m < requests.length; m++) {
    served += requests[m]!;
    tokenSum += tokens?.[m] ?? 0;
  }
  let late = 0;
  for (const m of input.violationMinutes) if (m >= scoreFrom) late += requests[m]!;
  return {
    costPer1kRequestsUsd: per(costUsd, served, 1_000),
    costPer1kRequestsWithinSloUsd: per(costUsd, served - late, 1_000),
    costPerMillionTokensUsd: tokens ? per(costUsd, tokenSum, 1_000_000) : null,
  };
}

/** A time bucket of the chart: minutes [start, end), scored ones only. */
export interface CostBucket {
  start: number;
  end: number;
  requests: number;
}

/**
 * The chart's bucket: a day when the scored span is 12 days or more, an hour when 12 hours or
 * more, else 5 minutes, so even the hour-long Azure traces get a dozen points. NASA (27.6 days):
 * 28 daily points; a 3-day trace: 72 hourly ones.
 */
export function bucketMinutes(scoredMinutes: number): number {
  if (scoredMinutes >= 12 * 1440) return 1440;
  if (scoredMinutes >= 12 * 60) return 60;
  return 5;
}

/** Buckets aligned to minute 0 of the trace, cut to the scored minutes [scoreFrom, end). */
export function costBuckets(requests: readonly number[], scoreFrom: number, size: number): CostBucket[] {
  const buckets: CostBucket[] = [];
  for (let b = Math.floor(scoreFrom / size) * size; b < requests.length; b += size) {
    const start = Math.max(b, scoreFrom);
    const end = Math.min(b + size, requests.length);
    let sum = 0;
    for (let m = start; m < end; m++) sum += requests[m]!;
    buckets.push({ start, end, requests: sum });
  }
  return buckets;
}

/** The billed instance-minutes of each bucket: provisioned + 0.05 x idle warm, as the simulator bills. */
export function bucketInstanceMinutes(
  series: Pick<PolicySeries, 'provisioned' | 'warmPool'>,
  buckets: readonly CostBucket[],
): number[] {
  return buckets.map(({ start, end }) => {
    let sum = 0;
    for (let m = start; m < end; m++)
      sum += series.provisioned[m]! + WARM_IDLE_COST * (series.warmPool[m] ?? 0);
    return sum;
  });
}

/** USD per 1,000 requests of each bucket; null where the bucket has no requests. */
export function bucketCostPer1k(
  instanceMinutes: readonly number[],
  buckets: readonly CostBucket[],
  pricePerInstanceHour: number,
): (number | null)[] {
  return buckets.map((b, i) => per((instanceMinutes[i]! / 60) * pricePerInstanceHour, b.requests, 1_000));
}
