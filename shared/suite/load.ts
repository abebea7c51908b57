/**
 * What a suite run reads: the policy file's target and the trace files. Used by the CLI (in its
 * own thread) and by each worker thread (which parses once and keeps the traces).
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { parseTrace, type Trace, type TraceOptions } from '../backtest/trace.ts';
import { formatProblem, parsePolicyText } from '../policy/load.ts';
import type { TargetPolicy } from '../policy/schema.ts';

export class SuiteInputError extends Error {
  override name = 'SuiteInputError';
}

/** The target to judge: `targetId`, or the policy file's first. */
export function targetFrom(policyText: string, policyName: string, targetId?: string): TargetPolicy {
  const result = parsePolicyText(policyText);
  if (!result.ok) throw new SuiteInputError(`${policyName}: ${formatProblem(result.problems[0]!)}`);
  const { targets } = result.policy;
  if (targetId === undefined) return targets[0]!;
  const found = targets.find((t) => t.id === targetId);
  if (!found) {
    throw new SuiteInputError(
      `--target ${targetId} is not in ${policyName}; its targets are ${targets.map((t) => t.id).join(', ')}`,
    );
  }
  return found;
}

export function readTraceFile(path: string, options: TraceOptions = {}): Trace {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new SuiteInputError(`${path}: cannot read the trace (${code}): check the path`);
  }
  try {
    return parseTrace(text, basename(path), options);
  } catch (error) {
    throw new SuiteInputError(`${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
