/**
 * What `governor backtest` reads before it runs, shared by its modes and by tune, suite and
 * commit: the options, the policy's target, the trace, the scenario options from the flags, and
 * the report paths checked before any minute is simulated.
 */
import { fileURLToPath } from 'node:url';
import { DEFAULT_SCENARIO, policySloMs, type ScenarioOptions } from '../backtest/scenario.ts';
import { parseTrace, type Trace, TraceError } from '../backtest/trace.ts';
import { formatProblem, parsePolicyText } from '../policy/load.ts';
import type { PolicyFile, TargetPolicy } from '../policy/schema.ts';
import { distinctOutputs, planOutput, readInput } from './files.ts';
import { UsageError } from './io.ts';
import { numberOption } from './options.ts';

/** The bundled example, found from this file so the command works from any folder. */
export const EXAMPLE_POLICY = fileURLToPath(new URL('../../examples/policy.yaml', import.meta.url));

export const OPTIONS = {
  trace: { type: 'string' },
  policy: { type: 'string' },
  target: { type: 'string' },
  'peak-instances': { type: 'string' },
  'slo-utilization': { type: 'string' },
  'slo-ms': { type: 'string' },
  'cold-start': { type: 'string' },
  'warm-start': { type: 'string' },
  'metric-delay': { type: 'string' },
  price: { type: 'string' },
  'token-work': { type: 'boolean' },
  'output-token-weight': { type: 'string' },
  'noise-seed': { type: 'string' },
  'warm-pool': { type: 'string' },
  'score-from': { type: 'string' },
  'fill-gaps': { type: 'boolean' },
  outage: { type: 'string' },
  'warm-floor': { type: 'string' },
  spot: { type: 'boolean' },
  'spot-price': { type: 'string' },
  'interruption-band': { type: 'string' },
  'interruption-scale': { type: 'string' },
  committed: { type: 'string' },
  'committed-price': { type: 'string' },
  'spot-seed': { type: 'string' },
  'zone-wide': { type: 'string' },
  zones: { type: 'string' },
  'max-pool-share': { type: 'string' },
  'over-provision': { type: 'string' },
  'loss-domain': { type: 'string' },
  workers: { type: 'string' },
  json: { type: 'string' },
  html: { type: 'string' },
} as const;

export type Values = {
  [K in keyof typeof OPTIONS]?: (typeof OPTIONS)[K]['type'] extends 'boolean' ? boolean : string;
};

export function wholeOption(name: string, raw: string | undefined, fallback: number, min: number): number {
  const value = numberOption(name, raw, fallback, min);
  if (!Number.isInteger(value)) throw new UsageError(`--${name} must be a whole number, got "${raw}"`);
  return value;
}

export async function loadTarget(values: Values, cwd: string): Promise<TargetPolicy> {
  return (await loadPolicyTarget(values, cwd)).target;
}

export async function loadPolicyTarget(
  values: Values,
  cwd: string,
): Promise<{ policy: PolicyFile; target: TargetPolicy }> {
  const file = values.policy ?? EXAMPLE_POLICY;
  const result = parsePolicyText(await readInput(file, 'policy', cwd));
  if (!result.ok) {
    const more =
      result.problems.length > 1 ? ` (and ${result.problems.length - 1} more: run governor validate)` : '';
    throw new UsageError(`--policy ${file}: ${formatProblem(result.problems[0]!)}${more}`);
  }
  const { policy } = result;
  const { targets } = policy;
  if (values.target === undefined) return { policy, target: targets[0]! };
  const found = targets.find((t) => t.id === values.target);
  if (!found) {
    throw new UsageError(
      `--target ${values.target} is not in ${file}; its targets are ${targets.map((t) => t.id).join(', ')}`,
    );
  }
  return { policy, target: found };
}

export async function loadTrace(values: Values, cwd: string): Promise<Trace> {
  const file = values.trace;
  if (!file) throw new UsageError('--trace FILE is required (a per-minute or per-second CSV, see traces/)');
  const text = await readInput(file, 'trace', cwd);
  try {
    return parseTrace(text, file.split(/[\\/]/).pop() ?? file, { fillGaps: values['fill-gaps'] === true });
  } catch (error) {
    if (error instanceof TraceError) throw new UsageError(`--trace ${file}: ${error.message}`);
    throw error;
  }
}

export function scenarioOptions(values: Values, target: TargetPolicy): ScenarioOptions {
  const d = DEFAULT_SCENARIO;
  const utilization = numberOption(
    'slo-utilization',
    values['slo-utilization'],
    d.sloUtilization,
    0.01,
    0.99,
  );
  return {
    peakInstances: wholeOption('peak-instances', values['peak-instances'], d.peakInstances, 1),
    sloUtilization: utilization,
    coldStartMinutes: wholeOption('cold-start', values['cold-start'], d.coldStartMinutes, 0),
    warmStartMinutes: wholeOption('warm-start', values['warm-start'], d.warmStartMinutes, 0),
    metricDelayMinutes: wholeOption('metric-delay', values['metric-delay'], d.metricDelayMinutes, 0),
    pricePerInstanceHour: numberOption('price', values.price, d.pricePerInstanceHour, 0),
    sloMs: numberOption('slo-ms', values['slo-ms'], policySloMs(target) ?? d.sloMs, 1),
    outputTokenWeight: values['token-work']
      ? numberOption('output-token-weight', values['output-token-weight'], 5, 0)
      : null,
    noiseSeed:
      values['noise-seed'] === undefined ? null : wholeOption('noise-seed', values['noise-seed'], 0, 0),
    warmPoolInstances: wholeOption('warm-pool', values['warm-pool'], d.warmPoolInstances, 0),
  };
}

/**
 * --json and --html (and tune's --out) checked before the run, so a bad path costs no minutes
 * of work: each writable, and no two the same file.
 */
export async function planReports(
  values: { json?: string; html?: string; out?: string },
  cwd: string,
): Promise<void> {
  distinctOutputs({ out: values.out, json: values.json, html: values.html }, cwd);
  if (values.json !== undefined) await planOutput(values.json, { flag: 'json' }, cwd);
  if (values.html !== undefined) await planOutput(values.html, { flag: 'html' }, cwd);
}
