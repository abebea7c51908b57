/**
 * `governor suite [--policy F] [--target ID] [--trace F]... [--variants a,b] [--workers N]
 * [--json F] [--html F]`: every bundled trace (or the ones named) under the reference scenario
 * and the variants that move one knob each, Governor judged in every cell against the objective
 * and AWS target tracking at its best target, in worker threads. Exit 0 when Governor wins every
 * cell (meets the objective at no more than the best target that meets it), 1 when a cell is a
 * loss (a failed check, as CI reads it), 2 on bad input.
 */
import { readdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { progressBar } from '../backtest/progress.ts';
import { formatSuite, summarize } from '../suite/format.ts';
import { SuiteInputError } from '../suite/load.ts';
import { runSuite } from '../suite/pool.ts';
import { toSuiteJson } from '../suite/report.ts';
import { selectVariants, type Variant } from '../suite/variants.ts';
import { EXAMPLE_POLICY, planReports } from './backtest-inputs.ts';
import { readInput, writeOutput } from './files.ts';
import { type CliIo, EXIT, UsageError } from './io.ts';
import { numberOption, parseOptions } from './options.ts';

/** The bundled traces, found from this file so the command works from any folder. */
export const BUNDLED_TRACES = fileURLToPath(new URL('../../traces/', import.meta.url));

export const SUITE_OPTIONS = {
  policy: { type: 'string' },
  target: { type: 'string' },
  trace: { type: 'string', multiple: true },
  variants: { type: 'string' },
  'fill-gaps': { type: 'boolean' },
  workers: { type: 'string' },
  json: { type: 'string' },
  html: { type: 'string' },
} as const;

async function bundledTraces(): Promise<string[]> {
  const files = (await readdir(BUNDLED_TRACES)).filter((f) => f.endsWith('.csv')).sort();
  return files.map((f) => resolve(BUNDLED_TRACES, f));
}

function variantsFrom(raw: string | undefined): Variant[] {
  try {
    return selectVariants(
      (raw ?? '')
        .split(',')
        .map((v) => v.trim())
        .filter(Boolean),
    );
  } catch (error) {
    throw new UsageError(`--variants: ${(error as Error).message}`);
  }
}

export async function suiteCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseOptions({ args, options: SUITE_OPTIONS, strict: true });
  const policyName = values.policy ?? EXAMPLE_POLICY;
  const policyText = await readInput(policyName, 'policy', io.cwd);
  const tracePaths = values.trace?.map((t) => resolve(io.cwd, t)) ?? (await bundledTraces());
  const variants = variantsFrom(values.variants);
  await planReports(values, io.cwd);
  const workersRaw = numberOption('workers', values.workers, Number.NaN, 0, 64);
  if (values.workers !== undefined && !Number.isInteger(workersRaw)) {
    throw new UsageError(`--workers must be a whole number, got "${values.workers}"`);
  }
  const bar = io.stderrIsTTY ? progressBar(io.stderr) : undefined;
  const started = Date.now();
  let cells: Awaited<ReturnType<typeof runSuite>>;
  try {
    cells = await runSuite({
      policyText,
      policyName,
      ...(values.target !== undefined ? { targetId: values.target } : {}),
      tracePaths,
      ...(values['fill-gaps'] ? { fillGaps: true } : {}),
      variants,
      ...(values.workers !== undefined ? { workers: workersRaw } : {}),
      onCell: (done, total, cell) => {
        const label = `${cell.trace} ${cell.variant}: ${cell.outcome}`;
        if (bar) bar.update(label, done / total);
        else io.stderr(`suite: ${done}/${total} ${label}`);
      },
    });
  } catch (error) {
    if (error instanceof SuiteInputError) throw new UsageError(error.message);
    throw error;
  } finally {
    bar?.done();
  }
  const seconds = (Date.now() - started) / 1000;
  io.stdout(formatSuite(cells));
  io.stderr(`suite: ${cells.length} cells in ${seconds.toFixed(1)} s`);
  const report = toSuiteJson({ policy: policyName, targetId: values.target, variants, cells, seconds });
  if (values.json !== undefined) {
    await writeOutput(values.json, `${JSON.stringify(report, null, 2)}\n`, io, { flag: 'json' });
  }
  if (values.html !== undefined) {
    const { renderSuiteHtml } = await import('../suite/html.ts');
    await writeOutput(values.html, renderSuiteHtml(report), io, { flag: 'html' });
  }
  return summarize(cells).losses > 0 ? EXIT.failure : EXIT.ok;
}
