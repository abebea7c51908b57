/**
 * A policy in parts: the main document (the policy parameter, or `governor validate FILE`) and
 * any number of parts (the parameters under `<main>/parts/`, or `--part FILE`), merged into one
 * policy and validated as one. Pure: reading the parameters or files is the caller's job.
 *
 * - A part holds `version` (the main document's) and `targets`, nothing else: top-level sections
 *   such as `failover` refer to targets across parts, so they live in one place, the main one.
 * - Targets are the main document's, then each part's in the order given (callers sort parts
 *   by name). The main document may have `targets: []` when the parts bring at least one.
 * - Every rule of a single policy applies to the merged one (unique ids, one target per
 *   resource, every cross-field and CloudWatch-source rule), and every problem names the
 *   document it comes from and the target's index in it:
 *   `/governor/policy/parts/eu: targets[2].id "x" is already used by /governor/policy targets[0]: ...`
 * - A part that does not parse or validate fails the whole policy: never a smaller fleet. The
 *   main document's `parts.count` (written by governor policy split) must match the parts found,
 *   so a part deleted by mistake fails the load too.
 *
 * With no parts, the problems are exactly those of parsePolicyText and sourceProblems, prefixed
 * with the document's name, as the functions logged them before parts existed.
 */

import { parseDocument } from 'yaml';
import { appendAll } from '../arrays/extent.ts';
import {
  fieldValidTargets,
  formatProblem,
  type PolicyProblem,
  parsePolicyText,
  validatePolicy,
} from '../policy/load.ts';
import type { PolicyFile } from '../policy/schema.ts';
import { sourceProblems } from '../signals/sources.ts';

/** A document of the policy: its name in problems (a parameter name or a file path) and its text. */
export interface PolicyText {
  name: string;
  text: string;
}

/** Where the merged policy's targets came from: each document and how many targets it gave. */
export interface PolicyOrigin {
  name: string;
  targets: number;
}

export type MergedPolicy =
  | { ok: true; policy: PolicyFile; origins: PolicyOrigin[] }
  | { ok: false; problems: string[] };

/** The fields a part may carry. */
export const PART_FIELDS = ['version', 'targets'] as const;

type Parsed = { ok: true; data: unknown } | { ok: false; problems: PolicyProblem[] };

/** YAML (or JSON) to data; a document that does not parse gets parsePolicyText's own lines. */
function parse(text: string): Parsed {
  const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0 || doc.contents === null) {
    const result = parsePolicyText(text);
    return { ok: false, problems: result.ok ? [] : result.problems };
  }
  try {
    return { ok: true, data: doc.toJS() };
  } catch (error) {
    // toJS refuses, for one, more aliases than the yaml package's resource-exhaustion limit.
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, problems: [{ path: '(file)', message: `is not valid YAML or JSON: ${message}` }] };
  }
}

const isMapping = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A part's own shape: a mapping of version (the main one's) and a non-empty list of targets. */
export function partProblems(data: unknown, mainName: string, mainVersion: unknown): PolicyProblem[] {
  if (!isMapping(data)) {
    return [
      {
        path: '(file)',
        message: 'must be a mapping with version and targets: write "version: 1" and a list of targets',
      },
    ];
  }
  const problems: PolicyProblem[] = [];
  const extra = Object.keys(data).filter((k) => !(PART_FIELDS as readonly string[]).includes(k));
  if (extra.length > 0) {
    problems.push({
      path: '(file)',
      message: `has unknown field${extra.length > 1 ? 's' : ''} ${extra.map((k) => `"${k}"`).join(', ')}: a part holds only version and targets; put other sections in ${mainName}`,
    });
  }
  const want = mainVersion ?? 1;
  if (data.version === undefined) {
    problems.push({
      path: 'version',
      message: `is required: write version: ${JSON.stringify(want)}, as in ${mainName}`,
    });
  } else if (data.version !== want) {
    problems.push({
      path: 'version',
      message: `is ${JSON.stringify(data.version)} but ${mainName} has ${JSON.stringify(want)}: the versions must agree`,
    });
  }
  if (!Array.isArray(data.targets)) {
    problems.push({ path: 'targets', message: 'must be a list of targets' });
  } else if (data.targets.length === 0) {
    problems.push({ path: 'targets', message: 'is empty: add targets, or delete the part' });
  }
  return problems;
}

/** Which document holds merged target `index`, and its index there. */
type Locate = (index: number) => { name: string; local: number };

function locator(spans: { name: string; start: number; count: number }[]): Locate {
  return (index) => {
    const span = spans.find((s) => index >= s.start && index < s.start + s.count) ?? spans[0]!;
    return { name: span.name, local: index - span.start };
  };
}

/** A merged problem back in its document: its path and every `targets[i]` it mentions. */
function placed(p: PolicyProblem, locate: Locate, mainName: string): string {
  const at = /^targets\[(\d+)\]/.exec(p.path);
  const home = at ? locate(Number(at[1])) : { name: mainName, local: -1 };
  const path = at ? p.path.replace(at[0], `targets[${home.local}]`) : p.path;
  const message = p.message.replace(/(?<![\w.\]])targets\[(\d+)\]/g, (_, i: string) => {
    const other = locate(Number(i));
    return other.name === home.name ? `targets[${other.local}]` : `${other.name} targets[${other.local}]`;
  });
  return `${home.name}: ${formatProblem({ path, message })}`;
}

/** The main document and its parts as one validated policy, or one line per problem. */
export function mergePolicyParts(main: PolicyText, parts: readonly PolicyText[]): MergedPolicy {
  const lines: string[] = [];
  const say = (name: string, problems: PolicyProblem[]) => {
    for (const p of problems) lines.push(`${name}: ${formatProblem(p)}`);
  };
  const head = parse(main.text);
  if (!head.ok) say(main.name, head.problems);
  const data = head.ok ? head.data : undefined;
  const mainTargets = isMapping(data) && Array.isArray(data.targets) ? data.targets : null;
  const spans = [{ name: main.name, start: 0, count: mainTargets?.length ?? 0 }];
  const targets: unknown[] = [...(mainTargets ?? [])];
  for (const part of parts) {
    const parsed = parse(part.text);
    const problems = parsed.ok
      ? partProblems(parsed.data, main.name, isMapping(data) ? data.version : undefined)
      : parsed.problems;
    say(part.name, problems);
    if (!parsed.ok || problems.length > 0) continue;
    const own = (parsed.data as { targets: unknown[] }).targets;
    spans.push({ name: part.name, start: targets.length, count: own.length });
    appendAll(targets, own);
  }
  if (!head.ok) return { ok: false, problems: lines };
  // The main document says how many parts it was published with: a part deleted (or one left
  // over from an older split) fails the load instead of silently changing the fleet.
  const declared = isMapping(data) && isMapping(data.parts) ? data.parts.count : undefined;
  if (typeof declared === 'number' && declared !== parts.length) {
    lines.push(
      `${main.name}: parts.count is ${declared} but ${parts.length} part${parts.length === 1 ? ' was' : 's were'} found: ${parts.length < declared ? 'a part is missing' : 'a part is left over from another split'}; publish the policy again with governor policy split and the commands it prints`,
    );
  }
  // A main document without a list of targets is validated as it is: its own problem comes first.
  // parts.count is how the policy was published, not policy: checked above, then left out.
  const { parts: _published, ...body } = isMapping(data) ? data : {};
  const merged = mainTargets ? { ...body, targets } : data;
  const locate = locator(spans);
  const result = validatePolicy(merged);
  // Every problem at once: with schema or rule problems, the source rules still judge the targets
  // that are valid field by field (a target that is not cannot be judged, and has its lines).
  const problems = result.ok
    ? sourceProblems(result.policy.targets)
    : [...result.problems, ...sourceProblems(fieldValidTargets(merged))];
  appendAll(
    lines,
    problems.map((p) => placed(p, locate, main.name)),
  );
  if (!result.ok || lines.length > 0) return { ok: false, problems: lines };
  return {
    ok: true,
    policy: result.policy,
    origins: spans.map(({ name, count }) => ({ name, targets: count })),
  };
}

/** The parameter path the parts of policy parameter `name` live under: `/governor/policy/parts`. */
export const partsPath = (name: string): string => `${name.replace(/\/+$/, '')}/parts`;
