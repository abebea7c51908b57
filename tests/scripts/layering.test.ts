/**
 * The house rules of the source tree (issue 21), checked from the code's own imports:
 *
 * - no import circle between files (a type-only import counts: it ties the files as much);
 * - no circle between rooms (a room is a folder under shared/ or functions/; scripts/, bench/ and
 *   bin/ are one room each): then the rooms stack in floors and no import runs upward;
 * - the floors the layout promises: the pure rooms import no AWS adapter, no function and no
 *   CLI; the adapters (shared/aws) no function and no CLI; a function no other function and no
 *   CLI; nothing in shared/ a function, except the CLI, which runs the evaluate function locally;
 * - a room whose README.md says `May import: ...` imports only those rooms;
 * - no source file over MAX_LINES lines; no folder under shared/ with more than MAX_FILES
 *   source files unless its README says `One concern: ...`.
 *
 * Imports are read with TypeScript's own pre-processor (static imports, re-exports and import()
 * of a literal), resolved from relative paths and the #shared/ and #functions/ aliases.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const FOLDERS = ['shared', 'functions', 'scripts', 'bench', 'bin'];
const MAX_LINES = 300;
const MAX_FILES = 15;

/** Rooms that decide and compute, with no I/O: the bottom floors. */
const PURE = [
  'shared/arrays',
  'shared/policy',
  'shared/engine',
  'shared/forecast',
  'shared/forecast-accuracy',
  'shared/sizing',
  'shared/mix',
  'shared/failover',
  'shared/slo',
];

/** Folders over MAX_FILES that hold more than one concern, each with what splitting it waits on. */
const TO_SPLIT: Record<string, string> = {};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : sourceFiles(path);
    return /\.(ts|js|mjs)$/.test(e.name) && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The repository paths a file imports (only those inside the repository). */
function importsOf(file: string, text: string): string[] {
  return ts.preProcessFile(text, true, true).importedFiles.flatMap(({ fileName: spec }) => {
    if (spec.startsWith('#shared/')) return [`shared/${spec.slice('#shared/'.length)}`];
    if (spec.startsWith('#functions/')) return [`functions/${spec.slice('#functions/'.length)}`];
    if (spec.startsWith('.')) return [posix.normalize(posix.join(posix.dirname(file), spec))];
    return [];
  });
}

/** shared/engine/decide.ts -> shared/engine; scripts/local.ts -> scripts. */
function roomOf(path: string): string {
  const parts = path.split('/');
  return (parts[0] === 'shared' || parts[0] === 'functions') && parts.length > 2
    ? `${parts[0]}/${parts[1]}`
    : parts[0]!;
}

/** Every cycle's members (strongly connected components of more than one node), Tarjan's way. */
function circles(graph: Map<string, Set<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const members: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      members.push(w);
    } while (w !== v);
    if (members.length > 1) found.push(members.sort());
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return found;
}

/** What a rule says `from` may not import from `to`, or null when it may. */
function forbidden(from: string, to: string): string | null {
  const pure = PURE.includes(from);
  if (pure && (to === 'shared/aws' || to.startsWith('functions'))) return 'a pure room imports no adapter';
  if ((pure || from === 'shared/aws') && to === 'shared/cli') return 'only bin/ and scripts/ import the CLI';
  if (from.startsWith('shared/') && from !== 'shared/cli' && to.startsWith('functions'))
    return 'shared/ imports no function (only the CLI runs one)';
  if (from.startsWith('functions/') && (to.startsWith('functions/') || to === 'shared/cli'))
    return 'a function imports no other function and no CLI';
  return null;
}

const rooms = readdirSync(join(root, 'shared'), { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => `shared/${e.name}`);
const readme = (room: string): string | null => {
  const path = join(root, room, 'README.md');
  return existsSync(path) ? readFileSync(path, 'utf8') : null;
};
/** The rooms a README's `May import:` line names (`nothing` for none), or null without one. */
function mayImport(text: string | null): string[] | null {
  const line = text?.split('\n').find((l) => l.startsWith('May import:'));
  if (line === undefined) return null;
  const list = line.slice('May import:'.length).trim();
  return list === 'nothing' ? [] : list.split(',').map((r) => r.trim());
}

const files = FOLDERS.flatMap((d) => sourceFiles(join(root, d))).map((f) => relative(root, f));
const texts = new Map(files.map((f) => [f, readFileSync(join(root, f), 'utf8')]));
const fileGraph = new Map(files.map((f) => [f, new Set(importsOf(f, texts.get(f)!))]));
const arrows = [...fileGraph].flatMap(([from, tos]) =>
  [...tos].filter((to) => !to.startsWith('tests/')).map((to) => ({ from, to })),
);

describe('the rooms of the source tree', () => {
  it('has no import circle between files', () => {
    expect(circles(fileGraph)).toEqual([]);
  });

  it('has no circle between rooms, so no import runs upward', () => {
    const roomGraph = new Map<string, Set<string>>();
    for (const { from, to } of arrows) {
      if (roomOf(from) === roomOf(to)) continue;
      const set = roomGraph.get(roomOf(from)) ?? new Set<string>();
      roomGraph.set(roomOf(from), set.add(roomOf(to)));
    }
    expect(circles(roomGraph)).toEqual([]);
  });

  it('keeps adapters, functions and the CLI above the rooms they use', () => {
    const broken = arrows.flatMap(({ from, to }) => {
      if (roomOf(from) === roomOf(to)) return [];
      const why = forbidden(roomOf(from), roomOf(to));
      return why === null ? [] : [`${from} -> ${to}: ${why}`];
    });
    expect(broken).toEqual([]);
  });

  it("imports only the rooms a room's README allows", () => {
    const broken = arrows.flatMap(({ from, to }) => {
      const [a, b] = [roomOf(from), roomOf(to)];
      const allowed = a.startsWith('shared/') ? mayImport(readme(a)) : null;
      return a === b || allowed === null || allowed.includes(b)
        ? []
        : [`${from} -> ${to}: not in ${a}/README.md`];
    });
    expect(broken).toEqual([]);
  });

  it(`has no source file over ${MAX_LINES} lines`, () => {
    const long = files
      .map((f) => ({ f, lines: texts.get(f)!.split('\n').length - (texts.get(f)!.endsWith('\n') ? 1 : 0) }))
      .filter(({ lines }) => lines > MAX_LINES)
      .map(({ f, lines }) => `${f}: ${lines} lines`);
    expect(long, 'split it along a seam: one module per thing it does').toEqual([]);
  });

  it(`has no folder under shared/ with more than ${MAX_FILES} files of more than one concern`, () => {
    const crowded = rooms
      .flatMap((room) => [room, ...sourceFiles(join(root, room)).map((f) => relative(root, dirname(f)))])
      .filter((dir, i, all) => all.indexOf(dir) === i)
      .map((dir) => ({
        dir,
        count: readdirSync(join(root, dir)).filter((n) => /\.(ts|js|mjs)$/.test(n)).length,
      }))
      .filter(
        ({ dir, count }) => count > MAX_FILES && !readme(dir)?.includes('One concern:') && !TO_SPLIT[dir],
      )
      .map(({ dir, count }) => `${dir}: ${count} files`);
    expect(crowded, 'split it into rooms, or say in its README.md `One concern: ...`').toEqual([]);
  });

  it.each([
    {
      case: 'a two-file circle and a tail',
      edges: [
        ['a', 'b'],
        ['b', 'a'],
        ['b', 'c'],
      ],
      found: [['a', 'b']],
    },
    {
      case: 'a chain',
      edges: [
        ['a', 'b'],
        ['b', 'c'],
      ],
      found: [],
    },
  ])('finds circles: $case', ({ edges, found }) => {
    const graph = new Map<string, Set<string>>();
    for (const [a, b] of edges) graph.set(a!, (graph.get(a!) ?? new Set<string>()).add(b!));
    expect(circles(graph)).toEqual(found);
  });

  it('reads imports, re-exports, import() and the aliases, and names rooms', () => {
    const text = `import type { A } from './a.ts';\nexport { B } from '../engine/b.ts';\nconst c = await import('#functions/evaluate/c.ts');\nimport z from 'zod';`;
    expect(importsOf('shared/apply/plan.ts', text)).toEqual([
      'shared/apply/a.ts',
      'shared/engine/b.ts',
      'functions/evaluate/c.ts',
    ]);
    expect(['shared/engine/decide.ts', 'functions/mix/run.ts', 'scripts/local.ts'].map(roomOf)).toEqual([
      'shared/engine',
      'functions/mix',
      'scripts',
    ]);
    expect(mayImport('# x\n\nMay import: shared/arrays, shared/policy\n')).toEqual([
      'shared/arrays',
      'shared/policy',
    ]);
    expect(mayImport('May import: nothing')).toEqual([]);
  });
});
