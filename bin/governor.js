#!/usr/bin/env node
/**
 * `governor`: checks that this Node can run the CLI (bin/node-version.js), then starts it
 * (bin/governor.ts). On an older Node: one line saying which Node runs and how to run
 * Governor, exit 2, before anything TypeScript is loaded.
 *
 * Node's module compile cache is on: each module's type-stripped source and compiled code are
 * kept on disk (NODE_COMPILE_CACHE, else <tmpdir>/node-compile-cache; NODE_DISABLE_COMPILE_CACHE=1
 * turns it off), so a command after the first loads its ~200 TypeScript modules without
 * stripping and compiling them again: `governor backtest` on an hour-long trace 0.47 to 0.30 s.
 * The directory goes on in the environment, so the suite's and tune's worker threads use it too.
 */
import module from 'node:module';
import { nodeProblem } from './node-version.js';

const problem = nodeProblem(process.versions.node, process.features.typescript);
if (problem) {
  process.stderr.write(`governor: ${problem}\n`);
  process.exitCode = 2;
} else {
  // Quiet by design: a cache that cannot be enabled (read-only tmpdir) returns a status, no error.
  const cache = module.enableCompileCache?.();
  if (cache?.directory && process.env.NODE_COMPILE_CACHE === undefined) {
    process.env.NODE_COMPILE_CACHE = cache.directory;
  }
  await import('./governor.ts');
}
