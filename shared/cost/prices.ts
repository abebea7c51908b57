/**
 * The public on-demand prices `governor validate --cost` assumes: US East (N. Virginia),
 * us-east-1, in USD, before any free tier (an account's free tier is shared with everything else
 * it runs, so the figures here are what Governor adds once the account is past it). Each price
 * names the page it was read from and when. AWS changes prices: when one moves, change it here
 * and re-run `npm test` (tests/cost/docs-table.test.ts then names the docs table to regenerate).
 */

export interface Price {
  usd: number;
  /** What one `usd` buys, as the pricing page says it. */
  per: string;
  /** The public page the price is read from. */
  source: string;
}

/** When the prices below were read from their pages. */
export const PRICES_CHECKED = '2026-11-26';

const LAMBDA = 'https://aws.amazon.com/lambda/pricing/';
const STEP_FUNCTIONS = 'https://aws.amazon.com/step-functions/pricing/';
const DYNAMODB = 'https://aws.amazon.com/dynamodb/pricing/on-demand/';
const CLOUDWATCH = 'https://aws.amazon.com/cloudwatch/pricing/';
const XRAY = 'https://aws.amazon.com/xray/pricing/';
const EVENTBRIDGE = 'https://aws.amazon.com/eventbridge/pricing/';

export const PRICES = {
  // https://aws.amazon.com/lambda/pricing/: requests, the same on x86 and Arm.
  lambdaRequest: { usd: 0.2 / 1e6, per: 'request ($0.20 per 1M)', source: LAMBDA },
  // https://aws.amazon.com/lambda/pricing/: Arm (Graviton) duration, first 6 billion GB-s a month.
  lambdaArmGbSecond: { usd: 0.0000133334, per: 'GB-second, Arm', source: LAMBDA },
  // https://aws.amazon.com/lambda/pricing/: x86 duration, first 6 billion GB-s a month.
  lambdaX86GbSecond: { usd: 0.0000166667, per: 'GB-second, x86', source: LAMBDA },
  // https://aws.amazon.com/step-functions/pricing/: Standard workflows, retries included.
  stateTransition: { usd: 0.025 / 1000, per: 'state transition ($0.025 per 1,000)', source: STEP_FUNCTIONS },
  // https://aws.amazon.com/dynamodb/pricing/on-demand/: one write of up to 1 KB.
  dynamoWriteUnit: { usd: 0.625 / 1e6, per: 'write request unit ($0.625 per 1M)', source: DYNAMODB },
  // https://aws.amazon.com/dynamodb/pricing/on-demand/: one strongly consistent read of up to 4 KB.
  dynamoReadUnit: { usd: 0.125 / 1e6, per: 'read request unit ($0.125 per 1M)', source: DYNAMODB },
  // https://aws.amazon.com/dynamodb/pricing/on-demand/: Standard table class storage.
  dynamoStorageGbMonth: { usd: 0.25, per: 'GB-month stored', source: DYNAMODB },
  // https://aws.amazon.com/dynamodb/pricing/on-demand/: continuous backups (PITR), by table size.
  dynamoPitrGbMonth: { usd: 0.2, per: 'GB-month of continuous backup', source: DYNAMODB },
  // https://aws.amazon.com/cloudwatch/pricing/: GetMetricData, by metric requested.
  getMetricDataMetric: { usd: 0.01 / 1000, per: 'metric requested ($0.01 per 1,000)', source: CLOUDWATCH },
  // https://aws.amazon.com/cloudwatch/pricing/: custom metrics (EMF ones included), first 10,000,
  // prorated by the hour a metric is sent in.
  customMetricMonth: { usd: 0.3, per: 'custom metric-month (first 10,000)', source: CLOUDWATCH },
  // https://aws.amazon.com/cloudwatch/pricing/: custom metrics from the 10,001st to the 250,000th.
  customMetricMonthNext: { usd: 0.1, per: 'custom metric-month (next 240,000)', source: CLOUDWATCH },
  // https://aws.amazon.com/cloudwatch/pricing/: standard-resolution alarm, per metric it lists.
  alarmMetricMonth: { usd: 0.1, per: 'standard alarm metric-month', source: CLOUDWATCH },
  // https://aws.amazon.com/cloudwatch/pricing/: alarm on a Metrics Insights query, per metric
  // the query analyzes.
  insightsAlarmMetricMonth: {
    usd: 0.02,
    per: 'metric analyzed by a Metrics Insights alarm, a month',
    source: CLOUDWATCH,
  },
  // https://aws.amazon.com/cloudwatch/pricing/: a custom dashboard.
  dashboardMonth: { usd: 3, per: 'dashboard-month', source: CLOUDWATCH },
  // https://aws.amazon.com/cloudwatch/pricing/: Logs, Standard class ingestion (Lambda and Step
  // Functions logs, EMF lines included).
  logIngestGb: { usd: 0.5, per: 'GB ingested', source: CLOUDWATCH },
  // https://aws.amazon.com/cloudwatch/pricing/: Logs storage (archive), compressed size.
  logStoreGbMonth: { usd: 0.03, per: 'GB-month stored', source: CLOUDWATCH },
  // https://aws.amazon.com/xray/pricing/: traces recorded.
  xrayTrace: { usd: 5 / 1e6, per: 'trace recorded ($5.00 per 1M)', source: XRAY },
  // https://aws.amazon.com/eventbridge/pricing/: EventBridge Scheduler, past 14M free a month
  // (a free allowance of the Scheduler itself, not the account's free tier: counted).
  schedulerInvocation: {
    usd: 1 / 1e6,
    per: 'scheduled invocation ($1.00 per 1M past 14M)',
    source: EVENTBRIDGE,
  },
} as const satisfies Record<string, Price>;

/** Custom metrics billed at customMetricMonth before customMetricMonthNext applies. */
export const CUSTOM_METRICS_FIRST_TIER = 10_000;

/** EventBridge Scheduler's monthly free invocations (the page above). */
export const SCHEDULER_FREE_INVOCATIONS = 14_000_000;

export type PriceName = keyof typeof PRICES;
