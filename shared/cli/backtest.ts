import { availableParallelism } from 'node:os';
import { boundNotes } from '../backtest/bounds.ts';
import { UNSIMULATED_METRICS } from '../backtest/policies/snapshot.ts';
import { progressBar } from '../backtest/progress.ts';
import { runBacktest } from '../backtest/run.ts';
import type { ScenarioOptions } from '../backtest/scenario.ts';
import { formatTable, toJsonReport } from '../backtest/table.ts';
import { TraceError } from '../backtest/trace.ts';
import type { TargetPolicy } from '../policy/schema.ts';
import { loadTarget, loadTrace, OPTIONS, planReports, scenarioOptions } from './backtest-inputs.ts';
import { outageCommand, SPOT_ONLY, spotCommand } from './backtest-modes.ts';
import { writeOutput } from './files.ts';
import { type CliIo, EXIT, UsageError } from './io.ts';
import { numberOption, parseOptions } from './options.ts';

export { EXAMPLE_POLICY, OPTIONS, planReports, scenarioOptions, type Values } from './backtest-inputs.ts';

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

export async function backtestCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseOptions({ args, options: OPTIONS, strict: true });
  if (values.workers !== undefined && (values.spot || values.outage !== undefined))
    throw new UsageError(
      `--workers is for the default backtest: --${values.spot ? 'spot' : 'outage'} runs in one thread`,
    );
  const workers = numberOption('workers', values.workers, availableParallelism() > 1 ? 1 : 0, 0, 1, true);
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
      parallel: workers === 1,
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
