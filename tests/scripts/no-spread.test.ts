/**
 * No spread of a possibly long array into a call. `Math.max(...oracle)` passes every minute as an
 * argument and V8 throws "Maximum call stack size exceeded" at about 125,000 of them: a 90-day
 * per-minute trace crashed the backtest (issue 18). The same holds for push(...x),
 * String.fromCharCode(...x), f.apply(this, x) and new X(...x).
 *
 * Every call or `new` with a spread argument, and every two-argument `.apply`, in shared/,
 * functions/, bin/ and scripts/ fails here with its file and line, unless it is provably tiny
 * and says why: `// spread-ok: <why>` on the line or the line above. Use maxOf, minOf or
 * appendAll (shared/arrays/extent.ts) instead. Files other teams own are allowed below, by
 * excerpt, with the reason the array is small.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const FOLDERS = ['shared', 'functions', 'bin', 'scripts'];

/** Spreads in files this guard's authors may not edit: `file: excerpt` -> why it is small. */
const OWNED_ELSEWHERE: Record<string, string> = {
  'shared/forecast/correction.ts: Math.max(...WINDOW_CANDIDATES, SHORT_BINS)': 'a constant list of windows',
  'functions/evaluate/mix-plan.ts: Math.max(pick.capacity, ...steps)': 'steps of one plan horizon',
  'functions/evaluate/attempt.ts: Math.max(...times)': 'times of one decision record',
  "shared/failover/plan.ts: hold('Steady', ...(standbyDown": 'none or one reason',
  'shared/failover/plan.ts: move.reasons.push(...stepReasons(c, s, dark)': 'reasons of one step',
  'shared/failover/plan.ts: move.actions.push(...grown.actions)': 'actions of one step',
  'shared/suite/html.ts: ...xs)': 'one per suite cell: 66 (6 traces x 11 variants)',
  'shared/suite/html.ts: ...ys.map(Math.abs))': 'one per suite cell: 66',
  'functions/spot-events/run.ts: targets.push(...(await handleTargets(byTarget, now)))':
    "one result per target of one batch of spot events: at most the policy's targets (500)",
  'functions/spot-events/target.ts: out.detached.push(...done.detached)':
    'the instances one replace action names, within one group',
  // Not proven small: pooling runs while a band holds fewer than 200 errors, but the neighbour
  // band it takes in may be long. The year trace's forecast (1,397 origins) ran through it.
  'shared/forecast/residuals.ts: .push(...bands[other]!.': 'not proven: owned by shared/forecast (issue 18)',
};

interface Finding {
  where: string;
  excerpt: string;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : sourceFiles(path);
    return /\.(ts|js|mjs)$/.test(e.name) && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Each call with a spread argument, or two-argument .apply, without a spread-ok comment. */
function spreadsIn(rel: string, text: string): Finding[] {
  const lines = text.split('\n');
  const source = ts.createSourceFile(rel, text, ts.ScriptTarget.Latest, true);
  const found: Finding[] = [];
  const flag = (node: ts.Node) => {
    const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
    const near = `${lines[line - 1] ?? ''}\n${lines[line] ?? ''}`;
    if (near.includes('spread-ok:')) return;
    found.push({
      where: `${rel}:${line + 1}`,
      excerpt: node.getText(source).replace(/\s+/g, ' ').slice(0, 120),
    });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
      const args = node.arguments ?? ts.factory.createNodeArray();
      const callee = node.expression;
      const applied =
        ts.isCallExpression(node) &&
        ts.isPropertyAccessExpression(callee) &&
        callee.name.text === 'apply' &&
        args.length === 2;
      if (applied || args.some(ts.isSpreadElement)) flag(node);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const allowed = (f: Finding): boolean =>
  Object.keys(OWNED_ELSEWHERE).some((key) => {
    const [file, excerpt] = key.split(': ') as [string, string];
    return f.where.startsWith(`${file}:`) && f.excerpt.includes(excerpt);
  });

describe('no spread of a possibly long array into a call', () => {
  it('finds none in shared/, functions/, bin/ or scripts/ that does not say why it is small', () => {
    const files = FOLDERS.flatMap((d) => sourceFiles(join(root, d)));
    const findings = files.flatMap((f) => spreadsIn(relative(root, f), readFileSync(f, 'utf8')));
    const offending = findings.filter((f) => !allowed(f)).map((f) => `${f.where}: ${f.excerpt}`);
    expect(
      offending,
      'use maxOf, minOf or appendAll (shared/arrays/extent.ts), or add // spread-ok: <why>',
    ).toEqual([]);
  });

  it.each([
    { case: 'Math.max spread', code: 'const a = Math.max(...xs);', hits: 1 },
    { case: 'push spread over lines', code: 'out.push(\n  ...xs,\n);', hits: 1 },
    { case: 'apply with an array', code: 'Math.max.apply(null, xs);', hits: 1 },
    { case: 'an allowed spread', code: '// spread-ok: three regions\nMath.max(...regions);', hits: 0 },
    { case: 'array and object literals', code: 'const a = [...xs]; const b = { ...o };', hits: 0 },
    { case: 'a three-argument apply', code: 'ports.groups.apply(region, name, plan);', hits: 0 },
  ])('$case: $hits finding(s)', ({ code, hits }) => {
    expect(spreadsIn('fixture.ts', code)).toHaveLength(hits);
  });
});
