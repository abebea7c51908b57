/**
 * Policy text (YAML or JSON) to a validated policy, or a list of problems an operator can act
 * on: one line each, naming the path and the fix. Pure: reading the file is the caller's job.
 */
import { LineCounter, parseDocument } from 'yaml';
import type { z } from 'zod';
import { failoverProblems } from './failover-rules.ts';
import { FailoverSchema, ROUTING_KINDS } from './failover-schema.ts';
import { crossFieldProblems, formatPath, type PolicyProblem } from './rules.ts';
import {
  METRIC_NAMES,
  type PolicyFile,
  PolicyFileSchema,
  type TargetPolicy,
  TargetSchema,
} from './schema.ts';

export type { PolicyProblem } from './rules.ts';

export type PolicyResult = { ok: true; policy: PolicyFile } | { ok: false; problems: PolicyProblem[] };

/** What was found instead, as an operator would say it: `a string ("1")`, `8.5`, `a list`. */
const describe = (value: unknown): string => {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string')
    return `a string (${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value)})`;
  return `a ${typeof value}`;
};

/** zod's expected type names as an operator would read them. */
const EXPECTED: Record<string, string> = {
  int: 'a whole number',
  number: 'a number',
  string: 'a string',
  boolean: 'true or false',
  object: 'a mapping of fields',
  array: 'a list',
};

function phrase(issue: z.core.$ZodIssue): { path: PropertyKey[]; message: string } {
  const path = [...issue.path];
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return { path, message: `is required (${issue.expected})` };
      return {
        path,
        message: `must be ${EXPECTED[issue.expected] ?? issue.expected}, got ${describe(issue.input)}`,
      };
    case 'unrecognized_keys':
      return {
        path,
        message: `has unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}: remove or check the spelling`,
      };
    case 'invalid_value':
      return { path, message: `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}` };
    case 'invalid_union':
      if ((issue as { note?: string }).note === 'No matching discriminator') {
        const key = (issue as { discriminator?: string }).discriminator ?? String(path.at(-1));
        const at = path.at(-1) === key ? path : [...path, key];
        const allowed =
          key === 'metric' ? METRIC_NAMES : at.includes('routing') ? ROUTING_KINDS : TARGET_KINDS;
        return { path: at, message: `is missing or unknown: use one of ${allowed.join(', ')}` };
      }
      return { path, message: issue.message };
    case 'too_small':
    case 'too_big':
      if (issue.message.startsWith('Too') || issue.message.startsWith('Invalid')) {
        const bound = issue.code === 'too_small' ? 'at least' : 'at most';
        const strict =
          issue.inclusive === false ? (issue.code === 'too_small' ? 'greater than' : 'less than') : bound;
        return {
          path,
          message: `must be ${strict} ${String(issue.code === 'too_small' ? issue.minimum : issue.maximum)}`,
        };
      }
      return { path, message: issue.message };
    default:
      return { path, message: issue.message };
  }
}

export function problemsFromZod(error: z.ZodError): PolicyProblem[] {
  return error.issues.map((issue) => {
    const { path, message } = phrase(issue);
    return { path: path.length === 0 ? '(file)' : formatPath(path), message };
  });
}

export const formatProblem = (p: PolicyProblem): string => `${p.path} ${p.message}`;

/** Parses policy text (YAML, of which JSON is a subset). */
export function parsePolicyText(text: string): PolicyResult {
  // prettyErrors would wrap the message over several lines with a code excerpt; a line number
  // from the LineCounter keeps each problem on one line.
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: true, lineCounter });
  if (doc.errors.length > 0) {
    return {
      ok: false,
      problems: doc.errors.map((e) => ({
        path: `(line ${lineCounter.linePos(e.pos[0]).line})`,
        message: `is not valid YAML or JSON: ${e.message.split('\n')[0]}`,
      })),
    };
  }
  if (doc.contents === null) {
    return {
      ok: false,
      problems: [{ path: '(file)', message: 'is empty: write "version: 1" and a list of targets' }],
    };
  }
  return validatePolicy(doc.toJS());
}

const TARGET_KINDS = TargetSchema.options.map((o) => o.shape.kind.value);

/** Targets that pass their own schema, with holes where one does not. */
export function fieldValidTargets(data: unknown): (TargetPolicy | undefined)[] {
  const targets = (data as { targets?: unknown } | null)?.targets;
  if (!Array.isArray(targets)) return [];
  return targets.map((t) => {
    const r = TargetSchema.safeParse(t);
    return r.success ? r.data : undefined;
  });
}

/** The failover block's cross-field problems, when it is there and valid field by field. */
function fieldValidFailoverProblems(data: unknown, targets: (TargetPolicy | undefined)[]): PolicyProblem[] {
  const failover = (data as { failover?: unknown } | null)?.failover;
  if (failover === undefined) return [];
  const r = FailoverSchema.safeParse(failover);
  return r.success ? failoverProblems(r.data, targets) : [];
}

export function validatePolicy(data: unknown): PolicyResult {
  const result = PolicyFileSchema.safeParse(data, { reportInput: true });
  if (result.success) {
    const { targets, failover } = result.data;
    const problems = [
      ...crossFieldProblems(targets),
      ...(failover ? failoverProblems(failover, targets) : []),
    ];
    return problems.length === 0 ? { ok: true, policy: result.data } : { ok: false, problems };
  }
  const targets = fieldValidTargets(data);
  return {
    ok: false,
    problems: [
      ...problemsFromZod(result.error),
      ...crossFieldProblems(targets),
      ...fieldValidFailoverProblems(data, targets),
    ],
  };
}

/** Parses a policy or throws one error listing every problem (for cold starts and tests). */
export function policyOrThrow(data: unknown): PolicyFile {
  const result = validatePolicy(data);
  if (result.ok) return result.policy;
  throw new Error(`invalid policy:\n${result.problems.map(formatProblem).join('\n')}`);
}
