import { availableParallelism } from 'node:os';
import { parseDocument } from 'yaml';
import { progressBar } from '../backtest/progress.ts';
import { parseTrace, type Trace } from '../backtest/trace.ts';
import { formatProblem, parsePolicyText } from '../policy/load.ts';
import { tunedPolicyText } from '../tune/policy-file.ts';
import { formatTuneReport, toTuneReport } from '../tune/report.ts';
import { TuneInputError, tune } from '../tune/tune.ts';
import { EXAMPLE_POLICY, planReports, scenarioOptions, type Values } from './backtest.ts';
import { planOutput, readInput, writeOutput } from './files.ts';
import { type CliIo, EXIT, UsageError } from './io.ts';
import { numberOption, parseOptions } from './options.ts';

export const TUNE_OPTIONS = {
  trace: { type: 'string' },
  policy: { type: 'string' },
  target: { type: 'string' },
  out: { type: 'string' },
  'target-violation': { type: 'string' },
  'train-fraction': { type: 'string' },
  'budget-seconds': { type: 'string' },
  'max-candidates': { type: 'string' },
  workers: { type: 'string' },
  seed: { type: 'string' },
  html: { type: 'string' },
  json: { type: 'string' },
  'peak-instances': { type: 'string' },
  'slo-utilization': { type: 'string' },
  'cold-start': { type: 'string' },
  'metric-delay': { type: 'string' },
  price: { type: 'string' },
} as const;

/** "0.5%" or "0.005": a share of minutes. */
export function violationOption(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const text = raw.trim();
  const percent = text.endsWith('%');
  const value = Number(percent ? text.slice(0, -1) : text) / (percent ? 100 : 1);
  if (text === '' || text === '%' || !Number.isFinite(value) || value < 0 || value >= 1) {
    throw new UsageError(`--target-violation must be a share of minutes such as 0.5% or 0.005, got "${raw}"`);
  }
  return value;
}

const whole = (name: string, raw: string | undefined, fallback: number, min: number, max = Infinity) => {
  const v = numberOption(name, raw, fallback, min, max);
  if (!Number.isInteger(v)) throw new UsageError(`--${name} must be a whole number, got "${raw}"`);
  return v;
};

function loadTrace(text: string, file: string): Trace {
  try {
    return parseTrace(text, file.split(/[\\/]/).pop() ?? file);
  } catch (error) {
    throw new UsageError(`--trace ${file}: ${(error as Error).message}`);
  }
}

export async function tuneCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseOptions({ args, options: TUNE_OPTIONS, strict: true });
  if (!values.trace)
    throw new UsageError(
      '--trace HISTORY.csv is required (governor history writes one; see traces/ for the format)',
    );
  if (!values.out) throw new UsageError('--out FILE is required: where to write the tuned policy');
  const policyFile = values.policy ?? EXAMPLE_POLICY;
  const policyText = await readInput(policyFile, 'policy', io.cwd);
  const parsed = parsePolicyText(policyText);
  if (!parsed.ok) throw new UsageError(`--policy ${policyFile}: ${formatProblem(parsed.problems[0]!)}`);
  const targets = parsed.policy.targets;
  const index = values.target === undefined ? 0 : targets.findIndex((t) => t.id === values.target);
  if (index < 0) {
    throw new UsageError(
      `--target ${values.target} is not in ${policyFile}; its targets are ${targets.map((t) => t.id).join(', ')}`,
    );
  }
  const target = targets[index]!;
  const trace = loadTrace(await readInput(values.trace, 'trace', io.cwd), values.trace);
  const options = scenarioOptions(values as Values, target);
  const trainFraction = numberOption('train-fraction', values['train-fraction'], 0.67, 0.1, 0.95);
  const budgetSeconds = numberOption('budget-seconds', values['budget-seconds'], 110, 1);
  const maxCandidates = whole('max-candidates', values['max-candidates'], 1000, 1);
  const workers = whole('workers', values.workers, availableParallelism(), 0, 64);
  const seed = whole('seed', values.seed, 1, 0);
  const targetViolation = violationOption(values['target-violation']);
  await planOutput(values.out, { flag: 'out', what: 'a policy file such as tuned.yaml' }, io.cwd);
  await planReports(values, io.cwd);
  const raw = (parseDocument(policyText).toJS() as { targets: Record<string, unknown>[] }).targets[index]!;

  const started = Date.now();
  const bar = io.stderrIsTTY ? progressBar(io.stderr) : undefined;
  let lastLine = 0;
  let result: Awaited<ReturnType<typeof tune>>;
  try {
    result = await tune({
      trace,
      raw,
      target,
      options,
      trainFraction,
      ...(targetViolation !== undefined ? { targetViolation } : {}),
      maxCandidates,
      expired: () => Date.now() - started > budgetSeconds * 1000,
      workers,
      seed,
      onBatch: (tried, best) => {
        const done = Math.max(tried / maxCandidates, (Date.now() - started) / (budgetSeconds * 1000));
        const label = `${tried} candidates, best ${best.figures.costVsOracle.toFixed(2)}x at ${(100 * best.figures.violationRatio).toFixed(2)} %`;
        if (bar) bar.update(label, Math.min(1, done));
        else if (Date.now() - lastLine > 5000) {
          lastLine = Date.now();
          io.stderr(`tune: ${label} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
        }
      },
    });
  } catch (error) {
    if (error instanceof TuneInputError) throw new UsageError(`--trace ${values.trace}: ${error.message}`);
    throw error;
  } finally {
    bar?.done();
  }
  const seconds = (Date.now() - started) / 1000;
  const startName = (values.policy ?? 'examples/policy.yaml').split(/[\\/]/).pop()!;
  const preliminary = toTuneReport(result, {
    trace: trace.name,
    targetId: target.id,
    seconds,
    workers,
    changes: [],
  });
  const header = [
    `Tuned by governor tune on ${trace.name}: trained on minutes 0-${result.split} of ${trace.requests.length},`,
    `judged on the rest, which the search never saw (reference scenario unless options said otherwise).`,
    `Goal: the lowest cost with violation minutes within ${result.goal.source}.`,
    `Held-out part: tuned ${result.heldOut.tuned.costVsOracle.toFixed(2)}x of the oracle with ${result.heldOut.tuned.violationMinutes} violation minutes;`,
    `starting policy ${result.heldOut.start.costVsOracle.toFixed(2)}x / ${result.heldOut.start.violationMinutes}; AWS target tracking ${result.heldOut.baseline.costVsOracle.toFixed(2)}x / ${result.heldOut.baseline.violationMinutes}.`,
    `Verdict: ${preliminary.verdict.sentence}.`,
    'Deploy it in shadow mode first (docs/operations.md), then compare its decisions with the fleet.',
  ];
  const start = new Map(result.knobs.map((k) => [k.name, result.start.settings.get(k.name)!]));
  const file = tunedPolicyText(policyText, index, result.knobs, start, result.best.settings, header);
  const report = { ...preliminary, changes: file.changes };
  io.stdout(formatTuneReport(report, startName));
  await writeOutput(values.out, file.text, io, { flag: 'out' });
  if (values.json !== undefined) {
    await writeOutput(values.json, `${JSON.stringify(report, null, 2)}\n`, io, { flag: 'json' });
  }
  if (values.html !== undefined) {
    const { renderTuneHtml } = await import('../tune/html.ts');
    await writeOutput(values.html, renderTuneHtml(report, startName), io, { flag: 'html' });
  }
  return report.verdict.dominates ? EXIT.ok : EXIT.failure;
}
