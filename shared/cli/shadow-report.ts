/**
 * `governor shadow-report --target ID --days N [--html F] [--json F] [--usd-per-hour P]`:
 * Governor's shadow decisions against the capacity the fleet really ran and its latency, over
 * the last N days (shared/live/shadow.ts says how they are compared; shadow-reads.ts where each
 * series is read). Prints the verdict first, then the figures; --html writes a page with the
 * chart, --json the figures and the series. Read-only. The clock is injected (shadowReportWith).
 */
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { clientConfig, HISTORY_TIMEOUTS } from '../aws/clients.ts';
import { cloudWatchHistory } from '../aws/demand-history.ts';
import { shadowReport } from '../live/shadow.ts';
import { shadowLines, shadowPage } from '../live/shadow-lines.ts';
import {
  capacitySource,
  describeSource,
  latencySource,
  minuteSeries,
  shadowDecisions,
} from '../live/shadow-reads.ts';
import type { TargetPolicy } from '../policy/schema.ts';
import { renderShadowHtml } from '../report/shadow-html.ts';
import { distinctOutputs, planOutput, writeOutput } from './files.ts';
import { type CliIo, type Command, EXIT, UsageError } from './io.ts';
import {
  awsCall,
  deployedPolicy,
  deployedTargets,
  findStack,
  LIVE_OPTIONS,
  type LiveTarget,
  liveConfig,
  liveTarget,
} from './live.ts';
import { numberOption, parseOptions } from './options.ts';

const OPTIONS = {
  ...LIVE_OPTIONS,
  target: { type: 'string' },
  days: { type: 'string' },
  html: { type: 'string' },
  json: { type: 'string' },
  'usd-per-hour': { type: 'string' },
} as const;

/** CloudWatch keeps one-minute datapoints for 15 days; the last whole day inside them is the 14th. */
export const MAX_SHADOW_DAYS = 14;
/** The newest minutes are not all published yet: the window ends this long before now. */
const PUBLICATION_MS = 2 * 60_000;

/** The price: --usd-per-hour, else the on-demand price of the target's committed (or first) pool. */
function priceOf(t: TargetPolicy, raw: string | undefined) {
  if (raw !== undefined)
    return { usdPerHour: numberOption('usd-per-hour', raw, 0, 0.0001, 1000), source: '--usd-per-hour' };
  const mix = t.capacityMix;
  if (!mix) return null;
  const pool = mix.pools.find((p) => p.instanceType === mix.committed.instanceType) ?? mix.pools[0];
  return pool
    ? { usdPerHour: pool.onDemandUsdPerHour, source: `the on-demand price of ${pool.instanceType}` }
    : null;
}

async function readSeries(target: LiveTarget, t: TargetPolicy, window: { start: number; end: number }) {
  const options = {
    region: t.region,
    ...(target.endpoint ? { endpoint: target.endpoint } : {}),
    timeouts: HISTORY_TIMEOUTS,
  };
  const port = cloudWatchHistory((r) => new CloudWatchClient(clientConfig(options, r)));
  const capacity = capacitySource(t);
  const fleet = await awsCall(target, 'cloudwatch:GetMetricData', () =>
    minuteSeries(port, t.region, capacity, window),
  );
  const sli = latencySource(t);
  // A latency read that fails costs only the latency (moto computes no percentile).
  const byMinute = sli ? await minuteSeries(port, t.region, sli.source, window).catch(() => null) : null;
  const latency = sli && byMinute ? { byMinute, sloMs: sli.sloMs, metric: sli.metric } : null;
  return { fleet, fleetSource: describeSource(capacity), latency };
}

export function shadowReportWith(now: () => number): Command {
  return async (args: string[], io: CliIo) => {
    const { values, positionals } = parseOptions({ args, allowPositionals: true, options: OPTIONS });
    if (positionals.length > 0)
      throw new UsageError(
        `unexpected argument ${JSON.stringify(positionals[0])}; run governor shadow-report --help`,
      );
    if (!values.target)
      throw new UsageError('--target ID is required: the id of a target in the deployed policy');
    if (values.days === undefined)
      throw new UsageError(`--days N is required: whole days back from now, 1 to ${MAX_SHADOW_DAYS}`);
    const days = numberOption('days', values.days, 1, 1, MAX_SHADOW_DAYS);
    if (!Number.isInteger(days))
      throw new UsageError(
        `--days must be a whole number of days, 1 to ${MAX_SHADOW_DAYS} (CloudWatch keeps one-minute data 15 days)`,
      );
    distinctOutputs({ html: values.html, json: values.json }, io.cwd);
    if (values.html) await planOutput(values.html, { flag: 'html' }, io.cwd);
    if (values.json) await planOutput(values.json, { flag: 'json' }, io.cwd);
    const target = liveTarget(values);
    const stack = await findStack(target);
    const policy = await deployedPolicy(target, stack.policyParameter);
    const [t] = deployedTargets(policy, stack.policyParameter, values.target);
    if (!t) throw new Error('deployedTargets returned none');
    const price = priceOf(t, values['usd-per-hour']);
    const end = Math.floor((now() - PUBLICATION_MS) / 60_000) * 60_000;
    const window = { start: end - days * 86_400_000, end };
    const doc = DynamoDBDocumentClient.from(new DynamoDBClient(liveConfig(target)));
    const decisions = await awsCall(target, 'dynamodb:Query', () =>
      shadowDecisions(doc, stack.tableName, t.id, window),
    );
    const series = await readSeries(target, t, window);
    const report = shadowReport({ targetId: t.id, ...window, decisions, ...series, price });
    for (const line of shadowLines(report)) io.stdout(line);
    if (values.json)
      await writeOutput(values.json, `${JSON.stringify(report, null, 2)}\n`, io, { flag: 'json' });
    if (values.html)
      await writeOutput(values.html, renderShadowHtml(shadowPage(report)), io, { flag: 'html' });
    return EXIT.ok;
  };
}

export const shadowReportCommand = shadowReportWith(Date.now);
