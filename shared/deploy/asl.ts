/**
 * Checks of a state machine definition (Amazon States Language, JSONPath) beyond what
 * asl-validator checks: no ARNs but service integrations, every Task with TimeoutSeconds, Retry
 * and Catch, state names that read as sentences, `${Placeholders}` that match the template's
 * DefinitionSubstitutions; and the IAM action each Task's integration needs.
 */

import { createRequire } from 'node:module';
import { appendAll } from '../arrays/extent.ts';

export interface AslProblem {
  /** Where: a state name (with its parents for Map and Parallel states) or the definition. */
  where: string;
  message: string;
}

export interface StateEntry {
  name: string;
  /** "Parent state > child state" for states inside Map or Parallel. */
  where: string;
  state: Record<string, unknown>;
}

type Validator = (
  definition: unknown,
  options?: { checkPaths: boolean; checkArn: boolean },
) => { isValid: boolean; errorsText: (separator?: string) => string };
const aslValidator = createRequire(import.meta.url)('asl-validator') as Validator;

/** The service-integration prefix every Task Resource must start with (no resource ARNs). */
export const INTEGRATION_PREFIX = 'arn:aws:states:::';

/** Step Functions' aws-sdk service names that differ from the IAM service prefix. */
const IAM_PREFIX_BY_SDK_SERVICE: Readonly<Record<string, string>> = {
  sfn: 'states',
  applicationautoscaling: 'application-autoscaling',
  cloudwatchlogs: 'logs',
  eventbridge: 'events',
};

/** Optimized integrations whose IAM action is not the API name in PascalCase. */
const OPTIMIZED_ACTIONS: Readonly<Record<string, string>> = {
  'lambda:invoke': 'lambda:InvokeFunction',
  'states:startExecution': 'states:StartExecution',
  'events:putEvents': 'events:PutEvents',
};

const pascal = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** The `${Name}` placeholders in a definition's text. */
export function placeholders(text: string): Set<string> {
  return new Set([...text.matchAll(/\$\{([A-Za-z0-9_]+)\}/g)].map((m) => m[1]!));
}

/** Replaces each `${Name}` by its value, as SAM's DefinitionSubstitutions does. */
export function substitute(text: string, values: Readonly<Record<string, string>>): string {
  return text.replace(/\$\{([A-Za-z0-9_]+)\}/g, (whole, name: string) => values[name] ?? whole);
}

/** Every state, depth first, including those inside Map (ItemProcessor/Iterator) and Parallel. */
export function allStates(definition: Record<string, unknown>, parent = ''): StateEntry[] {
  const states = (definition.States ?? {}) as Record<string, Record<string, unknown>>;
  return Object.entries(states).flatMap(([name, state]) => {
    const where = parent ? `${parent} > ${name}` : name;
    const inner = [state.ItemProcessor, state.Iterator, ...((state.Branches as unknown[]) ?? [])].filter(
      (d): d is Record<string, unknown> => typeof d === 'object' && d !== null,
    );
    return [{ name, where, state }, ...inner.flatMap((d) => allStates(d, where))];
  });
}

/** `arn:aws:states:::aws-sdk:sagemaker:describeEndpoint` to `sagemaker:DescribeEndpoint`. */
export function iamActionForResource(resource: string): string | null {
  if (!resource.startsWith(INTEGRATION_PREFIX)) return null;
  const parts = resource.slice(INTEGRATION_PREFIX.length).split(':');
  if (parts[0] === 'aws-sdk' && parts.length >= 3) {
    const service = parts[1]!;
    const api = parts[2]!.split('.')[0]!;
    return `${IAM_PREFIX_BY_SDK_SERVICE[service] ?? service}:${pascal(api)}`;
  }
  if (parts.length >= 2) {
    const key = `${parts[0]}:${parts[1]!.split('.')[0]}`;
    return OPTIMIZED_ACTIONS[key] ?? `${parts[0]}:${pascal(parts[1]!.split('.')[0]!)}`;
  }
  return null;
}

/**
 * A state name reads as a sentence: a capital first, at least two words, no word in camelCase
 * ("readEndpoint") or joined by _ (proper names such as SageMaker are fine).
 */
export const readsAsSentence = (name: string): boolean =>
  /^[A-Z][^\s_]*( [^\s_]+)+$/.test(name) && !name.split(' ').some((w) => /^[a-z]+[A-Z]/.test(w));

function taskProblems(entry: StateEntry): AslProblem[] {
  const s = entry.state;
  const problems: AslProblem[] = [];
  if (s.TimeoutSeconds === undefined && s.TimeoutSecondsPath === undefined) {
    problems.push({ where: entry.where, message: 'a Task needs TimeoutSeconds (the default is 99999999 s)' });
  }
  for (const field of ['Retry', 'Catch'] as const) {
    if (!Array.isArray(s[field]) || (s[field] as unknown[]).length === 0) {
      problems.push({ where: entry.where, message: `a Task needs a ${field}` });
    }
  }
  const resource = String(s.Resource ?? '');
  if (!resource.startsWith(INTEGRATION_PREFIX)) {
    problems.push({
      where: entry.where,
      message: `Resource ${resource} is not a service integration (${INTEGRATION_PREFIX}...)`,
    });
  }
  return problems;
}

/** Strings holding an ARN that is not a Task's integration resource. */
function arnProblems(value: unknown, where: string, key = ''): AslProblem[] {
  if (typeof value === 'string') {
    const isIntegration = key === 'Resource' && value.startsWith(INTEGRATION_PREFIX);
    return !isIntegration && /arn:aws[\w-]*:/.test(value)
      ? [
          {
            where,
            message: `holds an ARN (${value.slice(0, 60)}): use a \${Placeholder} and DefinitionSubstitutions`,
          },
        ]
      : [];
  }
  if (Array.isArray(value)) return value.flatMap((v) => arnProblems(v, where, key));
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).flatMap(([k, v]) => arnProblems(v, where, k));
  }
  return [];
}

/**
 * Choice rules with `IsPresent: false`: AWS matches them when the path is absent, but
 * aws-local-stepfunctions 3.0 never matches them (it reads `IsPresent && present`), so the local
 * tests would take another branch than AWS. `Not: { IsPresent: true }` means the same everywhere.
 */
function isPresentFalse(rule: unknown, where: string): AslProblem[] {
  if (typeof rule !== 'object' || rule === null) return [];
  const r = rule as Record<string, unknown>;
  const own =
    r.IsPresent === false
      ? [
          {
            where,
            message: `IsPresent: false on ${String(r.Variable)}: write Not: { IsPresent: true } (engines differ)`,
          },
        ]
      : [];
  const inner = [...((r.And as unknown[]) ?? []), ...((r.Or as unknown[]) ?? []), ...(r.Not ? [r.Not] : [])];
  return [...own, ...inner.flatMap((x) => isPresentFalse(x, where))];
}

/** Every problem of a definition: asl-validator's, then this project's rules. */
export function checkDefinition(definition: Record<string, unknown>): AslProblem[] {
  const verdict = aslValidator(structuredClone(definition), { checkPaths: true, checkArn: true });
  const problems: AslProblem[] = verdict.isValid
    ? []
    : [{ where: '(definition)', message: verdict.errorsText('; ') }];
  for (const entry of allStates(definition)) {
    if (!readsAsSentence(entry.name)) {
      problems.push({
        where: entry.where,
        message: 'a state name should read as a sentence ("Read the endpoint status")',
      });
    }
    if (entry.state.Type === 'Task') appendAll(problems, taskProblems(entry));
    if (entry.state.Type === 'Choice')
      for (const c of (entry.state.Choices as unknown[]) ?? [])
        appendAll(problems, isPresentFalse(c, entry.where));
    const { ItemProcessor: _i, Iterator: _t, Branches: _b, ...own } = entry.state;
    appendAll(problems, arnProblems(own, entry.where));
  }
  return problems;
}

/** The IAM actions the Task states need, with the states that need each. */
export function actionsNeeded(definition: Record<string, unknown>): Map<string, string[]> {
  const needed = new Map<string, string[]>();
  for (const entry of allStates(definition)) {
    if (entry.state.Type !== 'Task') continue;
    const action = iamActionForResource(String(entry.state.Resource ?? ''));
    if (action) needed.set(action, [...(needed.get(action) ?? []), entry.where]);
  }
  return needed;
}
