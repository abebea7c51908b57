/**
 * `governor forecast --trace FILE [--history-days N] [--horizon-hours N] [--json FILE]`: a
 * rolling-origin evaluation of Governor's forecaster against seasonal-naive and EC2-style
 * predictive scaling on one trace; a table, and the figures as JSON for machines.
 */
import { basename } from 'node:path';
import { parseTrace, TraceError } from '../backtest/trace.ts';
import { ForecastInputError } from '../forecast/types.ts';
import { type Evaluation, evaluateForecasts } from '../forecast-accuracy/evaluate.ts';
import { planOutput, readInput, writeOutput } from './files.ts';
import { type CliIo, EXIT, UsageError } from './io.ts';
import { numberOption, parseOptions } from './options.ts';

const USAGE =
  'usage: governor forecast --trace FILE [--history-days N] [--horizon-hours N] [--fill-gaps] [--json FILE]';

async function readTraceFile(file: string, cwd: string, fillGaps: boolean) {
  const text = await readInput(file, 'trace', cwd);
  try {
    return parseTrace(text, basename(file), { fillGaps });
  } catch (error) {
    if (error instanceof TraceError) throw new UsageError(`--trace ${file}: ${error.message}`);
    throw error;
  }
}

const cell = (x: number, width: number, digits = 2) => x.toFixed(digits).padStart(width);

/** The side-by-side table: one row per method, losses in requests per minute. */
export function formatEvaluation(traceName: string, e: Evaluation): string[] {
  const days = (minute: number) => (minute / 1440).toFixed(1);
  const head = [
    `forecast evaluation of ${traceName}: ${e.origins} origins every ${e.originEveryHours} h (day ${days(e.firstOriginMinute)} to ${days(e.lastOriginMinute)}), ${e.horizonHours} h ahead, ${e.historyDays} whole days and today of history for Governor`,
    'scored at five-minute resolution (mean requests per minute in each bin); pinball losses in requests per minute',
    '',
    `${'method'.padEnd(50)}${'pinball p50'.padStart(12)}${'pinball p90'.padStart(12)}${'MAPE %'.padStart(8)}${'p90 cover'.padStart(10)}`,
  ];
  const rows = e.methods.map(
    (m) =>
      `${m.label.padEnd(50)}${cell(m.pinballP50, 12)}${cell(m.pinballP90, 12)}${cell(m.mape, 8, 1)}${cell(m.coverageP90, 10)}${m.quantiles === 'point' ? '  (p90 = point)' : ''}`,
  );
  const best = e.methods.find((m) => m.id === e.bestNaive)!;
  const gain = 100 * e.p90GainVsBestNaive;
  const verdict = `Governor's p90 pinball loss is ${Math.abs(gain).toFixed(1)} % ${gain >= 0 ? 'lower' : 'higher'} than the best naive baseline (${best.label}).`;
  return [...head, ...rows, '', fallbackLine(e), verdict];
}

/** How often Governor's forecast was a simpler forecaster's (Forecast.fallback), by kind. */
export function fallbackLine(e: Evaluation): string {
  const kinds = Object.entries(e.governorFallbacks).filter(([, n]) => (n ?? 0) > 0);
  const total = kinds.reduce((sum, [, n]) => sum + (n ?? 0), 0);
  if (total === 0) return `Governor used its seasonal model at all ${e.origins} origins (no fallback).`;
  const detail = kinds.map(([kind, n]) => `${kind} ${n}`).join(', ');
  return `Governor fell back to a simpler forecaster at ${total} of ${e.origins} origins (${detail}): its seasonal model had scored worse over the 24 h before.`;
}

export async function forecastCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseOptions({
    args,
    allowPositionals: true,
    options: {
      trace: { type: 'string' },
      'history-days': { type: 'string' },
      'horizon-hours': { type: 'string' },
      'fill-gaps': { type: 'boolean' },
      json: { type: 'string' },
    },
  });
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"; ${USAGE}`);
  if (!values.trace) throw new UsageError(`--trace FILE is required (a trace CSV as in traces/); ${USAGE}`);
  const historyDays = numberOption('history-days', values['history-days'], 14, 1, 28);
  const horizonHours = numberOption('horizon-hours', values['horizon-hours'], 48, 1, 48);
  if (!Number.isInteger(historyDays) || !Number.isInteger(horizonHours)) {
    throw new UsageError('--history-days and --horizon-hours must be whole numbers');
  }
  const trace = await readTraceFile(values.trace, io.cwd, values['fill-gaps'] === true);
  if (values.json !== undefined) await planOutput(values.json, { flag: 'json' }, io.cwd);
  let evaluation: Evaluation;
  try {
    evaluation = evaluateForecasts(trace.requests, { historyDays, horizonHours });
  } catch (error) {
    if (error instanceof ForecastInputError) throw new UsageError(`${values.trace}: ${error.message}`);
    throw error;
  }
  for (const line of formatEvaluation(trace.name, evaluation)) io.stdout(line);
  if (values.json !== undefined) {
    await writeOutput(values.json, `${JSON.stringify({ trace: trace.name, ...evaluation }, null, 2)}\n`, io, {
      flag: 'json',
    });
  }
  return EXIT.ok;
}
