import { availableParallelism } from 'node:os';
import { parseDocument } from 'yaml';
import { progressBar } from '../backtest/progress.ts';
import { parseTrace, type Trace } from '../backtest/trace.ts';
import { formatProblem, parsePolicyText } from '../policy/load.ts';
import { describeObjective, sloOf } from '../slo/objective.ts';
import { BUDGET_MARGIN } from '../tune/objective.ts';
import { tunedPolicyText } from '../tune/policy-file.ts';
import { formatTuneReport, toTuneReport } from '../tune/report.ts';
import { DEFAULT_CANDIDATES, TuneInputError, type TuneResult, tune } from '../tune/tune.ts';
import { EXAMPLE_POLICY, planReports, scenarioOptions, type Values } from './backtest-inputs.ts';
import { planOutput, readInput, writeOutput } from './files.ts';
import { type CliIo, EXIT, UsageError } from './io.ts';
import { numberOption, parseOptions } from './options.ts';

export const TUNE_OPTIONS = {
  trace: { type: 'string' },
  policy: { type: 'string' },
  target: { type: 'string' },
  out: { type: 'string' },
  candidates: { type: 'string' },
  margin: { type: 'string' },
  'train-fraction': { type: 'string' },
  // Gone, kept only to say what replaced them (retiredOption).
  'target-violation': { type: 'string' },
  'budget-seconds': { type: 'string' },
  'max-candidates': { type: 'string' },
  workers: { type: 'string' },
  seed: { type: 'string' },
  'full-front': { type: 'boolean' },
  html: { type: 'string' },
  json: { type: 'string' },
  'peak-instances': { type: 'string' },
  'slo-utilization': { type: 'string' },
  'cold-start': { type: 'string' },
  'metric-delay': { type: 'string' },
  price: { type: 'string' },
} as const;

/** Options tune no longer has, and the fix for each. */
const RETIRED: Record<string, string> = {
  'target-violation':
    "tune aims at the policy's SLO objective now: set slo.objective.minutes in the policy (0.995 is 99.5 % of minutes), and --margin for the share of its error budget held back",
  'budget-seconds':
    'the search stops at a candidate budget, never a clock, so the same seed writes the same file on any machine: use --candidates N',
  'max-candidates': 'it is called --candidates N now',
};

export function retiredOption(values: Record<string, unknown>): void {
  for (const [name, fix] of Object.entries(RETIRED)) {
    if (values[name] !== undefined) throw new UsageError(`--${name} is gone: ${fix}`);
  }
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
  retiredOption(values);
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
  const maxCandidates = whole('candidates', values.candidates, DEFAULT_CANDIDATES, 1, 100_000);
  const margin = numberOption('margin', values.margin, BUDGET_MARGIN, 0, 0.95);
  const workers = whole('workers', values.workers, availableParallelism(), 0, 64);
  const seed = whole('seed', values.seed, 1, 0);
  await planOutput(values.out, { flag: 'out', what: 'a policy file such as tuned.yaml' }, io.cwd);
  await planReports(values, io.cwd);
  const raw = (parseDocument(policyText).toJS() as { targets: Record<string, unknown>[] }).targets[index]!;

  const started = Date.now();
  const bar = io.stderrIsTTY ? progressBar(io.stderr) : undefined;
  let lastLine = 0;
  let result: TuneResult;
  try {
    result = await tune({
      trace,
      raw,
      target,
      options,
      trainFraction,
      margin,
      maxCandidates,
      workers,
      seed,
      fullFront: values['full-front'] === true,
      onBatch: (tried, best) => {
        const label = `${tried} of ${maxCandidates} candidates, best ${best.figures.costVsOracle.toFixed(2)}x at ${(100 * (1 - best.figures.violationRatio)).toFixed(2)} % of minutes`;
        if (bar) bar.update(label, Math.min(1, tried / maxCandidates));
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
  const slo = sloOf(target);
  const objectiveText = `${describeObjective(slo)} (${slo.source === 'policy' ? "the policy's" : 'the default: the policy has no slo section'})`;
  const info = { trace: trace.name, targetId: target.id, objectiveText, seed, seconds, workers };
  const v = result.heldOut.verdict;
  const h = result.heldOut;
  // Nothing here depends on the clock or the threads: the same seed writes the same file.
  const header = [
    `Tuned by governor tune on ${trace.name} (seed ${seed}, ${maxCandidates} candidates): trained on minutes 0-${result.split} of ${trace.requests.length},`,
    `judged on the rest, which the search never saw (reference scenario unless options said otherwise).`,
    `Objective: ${describeObjective(slo)}; goal: the lowest cost with ${result.goal.source}.`,
    `Held-out part: tuned ${h.tuned.costVsOracle.toFixed(2)}x of the oracle at ${(100 * v.tuned.minutes).toFixed(2)} % of minutes;`,
    `starting policy ${h.start.costVsOracle.toFixed(2)}x at ${(100 * v.start.minutes).toFixed(2)} %; AWS target tracking ${h.baseline.costVsOracle.toFixed(2)}x at ${(100 * v.baseline.minutes).toFixed(2)} %.`,
    `Verdict: ${v.sentence}.`,
    `${v.written[0]!.toUpperCase()}${v.written.slice(1)}.`,
    'Deploy it in shadow mode first (docs/operations.md), then compare its decisions with the fleet.',
  ];
  const start = new Map(result.knobs.map((k) => [k.name, result.start.settings.get(k.name)!]));
  const proposed = tunedPolicyText(policyText, index, result.knobs, start, result.best.settings, header);
  const file = v.kept ? tunedPolicyText(policyText, index, result.knobs, start, start, header) : proposed;
  const report = toTuneReport(result, { ...info, changes: proposed.changes });
  io.stdout(formatTuneReport(report, startName));
  await writeOutput(values.out, file.text, io, { flag: 'out' });
  if (values.json !== undefined) {
    await writeOutput(values.json, `${JSON.stringify(report, null, 2)}\n`, io, { flag: 'json' });
  }
  if (values.html !== undefined) {
    const { renderTuneHtml } = await import('../tune/html.ts');
    await writeOutput(values.html, renderTuneHtml(report, startName), io, { flag: 'html' });
  }
  return v.meets ? EXIT.ok : EXIT.failure;
}
