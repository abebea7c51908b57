/**
 * The tuned policy file: the operator's own file with the tuned target's knobs set in place (the
 * YAML document is edited, so their comments and the other targets stay as they were), a note on
 * every changed field saying what it was, and a header saying what it was tuned on and how it did
 * on the part the search never saw. It must pass `governor validate`: the check runs before it is
 * written.
 */
import { isScalar, parseDocument } from 'yaml';
import { formatProblem, parsePolicyText } from '../policy/load.ts';
import { sourceProblems } from '../signals/sources.ts';
import { applyKnobs, type Knob, type KnobValue, readKnob } from './knobs.ts';
import type { Settings } from './search.ts';

export interface TunedFile {
  text: string;
  /** knob name, before, after: for the report. */
  changes: [string, KnobValue | undefined, KnobValue][];
}

export function tunedPolicyText(
  original: string,
  targetIndex: number,
  knobs: readonly Knob[],
  start: Settings,
  tuned: Settings,
  header: readonly string[],
): TunedFile {
  const doc = parseDocument(original);
  const raw = (doc.toJS() as { targets: Record<string, unknown>[] }).targets[targetIndex];
  const changes: TunedFile['changes'] = [];
  // The values the candidate ran with: applyKnobs keeps cross-field pairs valid (scaleInBreaches
  // raised to scaleOutBreaches), and the file must say what ran, not the raw setting.
  const ran = applyKnobs(raw ?? {}, tuned, knobs);
  for (const knob of knobs) {
    const value = readKnob(ran, knob) ?? tuned.get(knob.name)!;
    if (value === start.get(knob.name)) continue;
    const written = readKnob(raw, knob);
    const path = ['targets', targetIndex, ...knob.path];
    doc.setIn(path, doc.createNode(value));
    const node = doc.getIn(path, true);
    const before = written ?? start.get(knob.name);
    if (isScalar(node) && value !== before) node.comment = ` tuned (was ${before ?? 'the default'})`;
    if (value !== before) changes.push([knob.name, before, value]);
  }
  doc.commentBefore = [...header, ...(doc.commentBefore ? ['', doc.commentBefore] : [])]
    .map((l) => (l === '' ? '' : ` ${l}`))
    .join('\n');
  const text = doc.toString({ lineWidth: 0 });
  const parsed = parsePolicyText(text);
  const problems = parsed.ok ? sourceProblems(parsed.policy.targets) : parsed.problems;
  if (problems.length > 0) {
    throw new Error(`the tuned policy does not validate: ${problems.map(formatProblem).join('; ')}`);
  }
  return { text, changes };
}
