/**
 * Which test files need a fresh module graph of their own (vitest `isolate: true`), and which can
 * share one worker's modules with the files before them (`isolate: false`).
 *
 * Importing is most of a test file's cost: a clean clone's run spent 185 s of its 711 s of test
 * time importing, each of 252 files loading the same modules again. Files that only call pure
 * code can share the modules a worker already loaded. Files that touch process-wide state cannot:
 * a Lambda handler keeps the SDK clients it built at import time (with the first file's moto
 * port), aws-sdk-client-mock stubs a client class's prototype for every later file in the worker,
 * and environment variables, fake timers, module mocks and child processes outlive the file that
 * set them. A file is isolated when its source shows any of those (the patterns below, checked
 * on the file itself and on every tests/support module it imports); everything else is shared.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Source that means process-wide state: SDK clients or their mocks, handlers, env, timers, children. */
export const ISOLATE_PATTERNS: readonly RegExp[] = [
  /@aws-sdk\//,
  /aws-sdk-client-mock/,
  /#functions\/|\.\.\/functions\/|functions\/[a-z-]+\//,
  /moto/i,
  /dynalite/,
  /process\.env\b/,
  /vi\.(stubEnv|stubGlobal|useFakeTimers|mock|doMock|spyOn)\b/,
  /node:child_process/,
  /node:worker_threads|\/pool\.ts|workers?:/,
  /playwright|chromium/i,
  /hung-endpoint/,
];

/** The tests/support modules a source imports, by file name. */
function supportImports(source: string): string[] {
  const found: string[] = [];
  for (const m of source.matchAll(/support\/([a-z-]+\.ts)/g)) found.push(m[1]!);
  return found;
}

/** Whether a test file must run in a module graph of its own. */
export function needsIsolation(source: string, support: (name: string) => string): boolean {
  if (ISOLATE_PATTERNS.some((p) => p.test(source))) return true;
  return supportImports(source).some((name) => ISOLATE_PATTERNS.some((p) => p.test(support(name))));
}

function testFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...testFiles(path));
    else if (entry.name.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

/** Every tests/**\/*.test.ts under root, split by needsIsolation (paths relative to root, sorted). */
export function splitTestFiles(root: string): { isolated: string[]; shared: string[] } {
  const supportDir = join(root, 'tests/support');
  const cache = new Map<string, string>();
  const support = (name: string) => {
    if (!cache.has(name)) {
      let text = '';
      try {
        text = readFileSync(join(supportDir, name), 'utf8');
      } catch {
        text = '';
      }
      cache.set(name, text);
    }
    return cache.get(name)!;
  };
  const isolated: string[] = [];
  const shared: string[] = [];
  for (const file of testFiles(join(root, 'tests')).sort()) {
    const rel = relative(root, file).replaceAll('\\', '/');
    (needsIsolation(readFileSync(file, 'utf8'), support) ? isolated : shared).push(rel);
  }
  return { isolated, shared };
}
