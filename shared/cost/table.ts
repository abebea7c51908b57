/**
 * The cost report as text: a one-line summary, the month line by line, and a table of the same
 * policy grown to 1, 50 and 500 targets. docs/operations.md holds that table as `costTable`
 * prints it for examples/policy.yaml; tests/cost/docs-table.test.ts keeps the two equal.
 */
import type { TargetPolicy } from '../policy/schema.ts';
import type { CostInputs, CostLine, CostReport } from './model.ts';
import { monthlyCost } from './model.ts';
import { PRICES, PRICES_CHECKED } from './prices.ts';

/** The sizes the table shows. */
export const TABLE_SIZES = [1, 50, 500] as const;

const SERVICES: CostLine['service'][] = [
  'Lambda',
  'EventBridge Scheduler',
  'Step Functions',
  'DynamoDB',
  'CloudWatch',
];

export const usd = (n: number) =>
  n >= 100 ? n.toLocaleString('en-US', { maximumFractionDigits: 0 }) : n.toFixed(2);

/** Distinct names for the n-th copy of a target: the id and the resource it scales. */
function copyOf(t: TargetPolicy, k: number): TargetPolicy {
  if (k === 0) return t;
  const id = `${t.id}-${k}`;
  if (t.kind === 'sagemaker-variant') return { ...t, id, endpointName: `${t.endpointName}-${k}` };
  if (t.kind === 'sagemaker-inference-component')
    return { ...t, id, inferenceComponentName: `${t.inferenceComponentName}-${k}` };
  return { ...t, id, autoScalingGroupName: `${t.autoScalingGroupName}-${k}` };
}

/** The policy's targets repeated (in order, renamed) to `n` targets. */
export function grown(targets: readonly TargetPolicy[], n: number): TargetPolicy[] {
  return Array.from({ length: n }, (_, i) =>
    copyOf(targets[i % targets.length]!, Math.floor(i / targets.length)),
  );
}

export function summary(report: CostReport, what: string): string {
  const n = report.targets;
  const tracing = report.monthlyUsdWithTracing - report.monthlyUsd;
  const extra = tracing > 0.005 ? `, ${usd(report.monthlyUsdWithTracing)} with X-Ray tracing on` : '';
  return `Governor's control plane for ${what} (${n} target${n === 1 ? '' : 's'}): about ${usd(report.monthlyUsd)} USD a month${extra} (us-east-1 prices of ${PRICES_CHECKED}, before free tiers)`;
}

const quantity = (n: number) =>
  n >= 1000 ? Math.round(n).toLocaleString('en-US') : n >= 10 ? n.toFixed(1) : n.toPrecision(3);

/** The month line by line, as a Markdown table. */
export function linesTable(report: CostReport): string[] {
  const rows = report.lines.map(
    (l) =>
      `| ${l.service} | ${l.item}${l.whenTracing ? ' (Tracing=Active only)' : ''} | ${quantity(l.quantity)} ${PRICES[l.price].per} | ${l.usd.toFixed(2)} |`,
  );
  return ['| service | what | quantity a month | USD a month |', '| --- | --- | --- | --- |', ...rows];
}

/** USD a month by service for 1, 50 and 500 targets like the policy's, as a Markdown table. */
export function costTable(
  inputs: Omit<CostInputs, 'targets'> & { targets: readonly TargetPolicy[] },
): string[] {
  const head = ['targets', ...SERVICES, 'total', 'X-Ray on: total'];
  const rows = TABLE_SIZES.map((n) => {
    const r = monthlyCost({ ...inputs, targets: grown(inputs.targets, n) });
    const by = (s: CostLine['service']) =>
      r.lines.filter((l) => l.service === s).reduce((x, l) => x + l.usd, 0);
    return `| ${n} | ${SERVICES.map((s) => usd(by(s))).join(' | ')} | ${usd(r.monthlyUsd)} | ${usd(r.monthlyUsdWithTracing)} |`;
  });
  return [`| ${head.join(' | ')} |`, `|${head.map(() => ' ---').join(' |')} |`, ...rows];
}

/** The prices assumed, one line each with its page. */
export const pricesTable = (): string[] => [
  '| price | USD | source |',
  '| --- | --- | --- |',
  ...Object.values(PRICES).map(
    (p) => `| ${p.per} | ${p.usd < 0.001 ? p.usd.toExponential(4) : p.usd} | ${p.source} |`,
  ),
];
