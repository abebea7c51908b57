import { fileURLToPath } from 'node:url';
import { boundNotes } from '../backtest/bounds.ts';
import { OutageError, parseOutage } from '../backtest/failover/outage.ts';
import { runFailoverBacktest } from '../backtest/failover/run.ts';
import { formatFailoverTable, toFailoverJson } from '../backtest/failover/table.ts';
import { DEFAULT_SPOT, runMixBacktest, type SpotOptions } from '../backtest/mix/run.ts';
import { formatMixTable, toMixJson } from '../backtest/mix/table.ts';
import { UNSIMULATED_METRICS } from '../backtest/policies/governor.ts';
import { progressBar } from '../backtest/progress.ts';
import { runBacktest } from '../backtest/run.ts';
import { DEFAULT_SCENARIO, policySloMs, type ScenarioOptions } from '../backtest/scenario.ts';
import { formatTable, toJsonReport } from '../backtest/table.ts';
import { parseTrace, type Trace, TraceError } from '../backtest/trace.ts';
import { INTERRUPTION_BANDS, type InterruptionBand } from '../policy/capacity-mix-schema.ts';
import { formatProblem, parsePolicyText } from '../policy/load.ts';
import type { PolicyFile, TargetPolicy } from '../policy/schema.ts';
import { distinctOutputs, planOutput, readInput, writeOutput } from './files.ts';
import { type CliIo, EXIT, UsageError } from './io.ts';
import { numberOption, parseOptions } from './options.ts';

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
  'spot-seed': { type: 'string' },
  json: { type: 'string' },
  html: { type: 'string' },
} as const;

export type Values = {
  [K in keyof typeof OPTIONS]?: (typeof OPTIONS)[K]['type'] extends 'boolean' ? boolean : string;
};

function wholeOption(name: string, raw: string | undefined, fallback: number, min: number): number {
  const value = numberOption(name, raw, fallback, min);
  if (!Number.isInteger(value)) throw new UsageError(`--${name} must be a whole number, got "${raw}"`);
  return value;
}

async function loadTarget(values: Values, cwd: string): Promise<TargetPolicy> {
  return (await loadPolicyTarget(values, cwd)).target;
}

async function loadPolicyTarget(
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

async function loadTrace(values: Values, cwd: string): Promise<Trace> {
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

/** Things that make a run mean less than it seems: said on stderr, the run goes on. */
function warnings(target: TargetPolicy, options: ScenarioOptions): string[] {
  const out: string[] = [];
  if (options.warmPoolInstances > 0 && target.kind !== 'ec2-asg') {
    out.push(
      `warning: --warm-pool simulates stopped warm-pool instances, which ${target.id} (${target.kind}) cannot keep: SageMaker has no warm pool; read the figures as a what-if, or use a warmPool section (standby headroom)`,
    );
  }
  const ageSeconds = (1 + options.metricDelayMinutes) * 60;
  for (const s of target.signals) {
    if (UNSIMULATED_METRICS.includes(s.metric)) {
      out.push(`warning: ${s.metric} is not simulated; the governor policy reads it as missing`);
    } else if (s.staleAfterSeconds < ageSeconds) {
      out.push(
        `warning: ${s.metric} arrives ${ageSeconds} s old with --metric-delay ${options.metricDelayMinutes}, past its staleAfterSeconds ${s.staleAfterSeconds}; the policy will see no data`,
      );
    }
  }
  return out;
}

/**
 * --score-from: a whole number is a minute of the trace; a number with a decimal point, a
 * fraction of it (0.67: the last third is scored). Minute 1 is "1", two thirds "0.67".
 */
export function scoreFromOption(raw: string | undefined, minutes: number): number | undefined {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  const fraction = raw.includes('.');
  if (raw.trim() === '' || !Number.isFinite(value) || value < 0 || (fraction && value >= 1)) {
    throw new UsageError(
      `--score-from must be a minute of the trace (a whole number) or a fraction of it below 1 (0.67: score the last third), got "${raw}"`,
    );
  }
  if (!fraction && !Number.isInteger(value)) {
    throw new UsageError(
      `--score-from must be a whole minute or a fraction with a decimal point, got "${raw}"`,
    );
  }
  const minute = fraction ? Math.floor(value * minutes) : value;
  if (minute >= minutes) {
    throw new UsageError(
      `--score-from ${raw} is minute ${minute}, but the trace has ${minutes} minutes: nothing would be scored`,
    );
  }
  return minute;
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

/**
 * --outage REGION:START:DURATION: the failover backtest (docs/failover.md, "The backtest"): every
 * failover strategy on this trace with the target's region down for DURATION minutes from START.
 * A policy without a failover block gets one built from the target and a mirror in a second region.
 */
async function outageCommand(values: Values, io: CliIo): Promise<number> {
  const spec = (() => {
    try {
      return parseOutage(values.outage!);
    } catch (error) {
      if (error instanceof OutageError) throw new UsageError(error.message);
      throw error;
    }
  })();
  for (const flag of ['html', 'score-from', 'warm-pool'] as const) {
    if (values[flag] !== undefined)
      throw new UsageError(
        flag === 'html'
          ? '--html does not apply to --outage: the HTML report draws the default backtest only; write the failover result with --json FILE, or drop --outage for the HTML'
          : `--${flag} does not apply to --outage (a failover backtest has a table and --json only): drop it`,
      );
  }
  const trace = await loadTrace(values, io.cwd);
  const { policy, target } = await loadPolicyTarget(values, io.cwd);
  await planReports(values, io.cwd);
  const options = scenarioOptions(values, target);
  const warmFloor =
    values['warm-floor'] === undefined ? undefined : wholeOption('warm-floor', values['warm-floor'], 1, 1);
  const bar = io.stderrIsTTY ? progressBar(io.stderr) : undefined;
  let result: ReturnType<typeof runFailoverBacktest>;
  try {
    result = runFailoverBacktest({
      trace,
      target,
      policy,
      options,
      outage: spec,
      ...(warmFloor !== undefined ? { warmFloor } : {}),
      onProgress: bar?.update,
    });
  } catch (error) {
    if (error instanceof TraceError || error instanceof OutageError) throw new UsageError(error.message);
    throw error;
  } finally {
    bar?.done();
  }
  io.stdout(formatFailoverTable(result));
  if (values.json !== undefined) {
    await writeOutput(values.json, `${JSON.stringify(toFailoverJson(result), null, 2)}\n`, io, {
      flag: 'json',
    });
  }
  return EXIT.ok;
}

const SPOT_ONLY = [
  'spot-price',
  'interruption-band',
  'interruption-scale',
  'committed',
  'spot-seed',
] as const;

function spotOptions(values: Values, target: TargetPolicy): SpotOptions {
  const band = values['interruption-band'];
  if (band !== undefined && !INTERRUPTION_BANDS.includes(band as InterruptionBand))
    throw new UsageError(
      `--interruption-band must be one of ${INTERRUPTION_BANDS.join(' ')} (a Spot Instance Advisor band), got "${band}"`,
    );
  if (target.capacityMix) {
    for (const flag of ['spot-price', 'committed'] as const)
      if (values[flag] !== undefined)
        throw new UsageError(
          `--${flag} applies to the reference mix only; ${target.id} has a capacityMix with its own prices and commitment: drop --${flag} or edit the policy`,
        );
    if (!target.capacityMix.spot)
      throw new UsageError(
        `--spot needs a target that may run spot; ${target.id}'s capacityMix has no spot section: add one, or pick another --target`,
      );
  }
  const d = DEFAULT_SPOT;
  return {
    spotFraction: numberOption('spot-price', values['spot-price'], d.spotFraction, 0.01, 1),
    band: (band as InterruptionBand | undefined) ?? null,
    interruptionScale: numberOption(
      'interruption-scale',
      values['interruption-scale'],
      d.interruptionScale,
      0,
    ),
    committed: wholeOption('committed', values.committed, d.committed, 0),
    seed: wholeOption('spot-seed', values['spot-seed'], d.seed, 0),
  };
}

/** --spot: the capacity mix backtest (docs/capacity-mix.md, "The backtest"): a table and --json. */
async function spotCommand(values: Values, io: CliIo): Promise<number> {
  for (const flag of ['html', 'score-from', 'warm-pool', 'outage'] as const) {
    if (values[flag] !== undefined)
      throw new UsageError(
        flag === 'html'
          ? '--html does not apply to --spot: the HTML report draws the default backtest only; write the mix result with --json FILE, or drop --spot for the HTML'
          : `--${flag} does not apply to --spot (a mix backtest has a table and --json only): drop it`,
      );
  }
  const trace = await loadTrace(values, io.cwd);
  const target = await loadTarget(values, io.cwd);
  const spot = spotOptions(values, target);
  await planReports(values, io.cwd);
  const options = scenarioOptions(values, target);
  const bar = io.stderrIsTTY ? progressBar(io.stderr) : undefined;
  let result: ReturnType<typeof runMixBacktest>;
  try {
    result = runMixBacktest({ trace, target, options, spot, onProgress: bar?.update });
  } catch (error) {
    if (error instanceof TraceError) throw new UsageError(error.message);
    throw error;
  } finally {
    bar?.done();
  }
  io.stdout(formatMixTable(result));
  if (values.json !== undefined)
    await writeOutput(values.json, `${JSON.stringify(toMixJson(result), null, 2)}\n`, io, { flag: 'json' });
  return EXIT.ok;
}

export async function backtestCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseOptions({ args, options: OPTIONS, strict: true });
  if (values.spot) return spotCommand(values, io);
  for (const flag of SPOT_ONLY)
    if (values[flag] !== undefined) throw new UsageError(`--${flag} needs --spot`);
  if (values.outage !== undefined) return outageCommand(values, io);
  if (values['warm-floor'] !== undefined)
    throw new UsageError('--warm-floor needs --outage REGION:START:DURATION');
  const trace = await loadTrace(values, io.cwd);
  const target = await loadTarget(values, io.cwd);
  await planReports(values, io.cwd);
  const options = scenarioOptions(values, target);
  for (const line of warnings(target, options)) io.stderr(line);
  const bar = io.stderrIsTTY ? progressBar(io.stderr) : undefined;
  const scoreFrom = scoreFromOption(values['score-from'], trace.requests.length);
  let result: ReturnType<typeof runBacktest>;
  try {
    result = runBacktest({
      trace,
      target,
      options,
      onProgress: bar?.update,
      ...(scoreFrom !== undefined ? { scoreFrom } : {}),
    });
  } catch (error) {
    if (error instanceof TraceError) throw new UsageError(error.message);
    throw error;
  } finally {
    bar?.done();
  }
  io.stdout(formatTable(result));
  for (const note of boundNotes(result, target)) io.stderr(`note: ${note}`);
  if (values.json !== undefined) {
    await writeOutput(values.json, `${JSON.stringify(toJsonReport(result), null, 2)}\n`, io, {
      flag: 'json',
    });
  }
  if (values.html !== undefined) {
    const { renderHtmlReport } = await import('../report/html.ts');
    await writeOutput(values.html, renderHtmlReport(result), io, { flag: 'html' });
  }
  return EXIT.ok;
}
