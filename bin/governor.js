#!/usr/bin/env node
/**
 * `governor`: checks that this Node can run the CLI (bin/node-version.js), then starts it
 * (bin/governor.ts). On an older Node: one line saying which Node runs and how to run
 * Governor, exit 2, before anything TypeScript is loaded.
 */
import { nodeProblem } from './node-version.js';

const problem = nodeProblem(process.versions.node, process.features.typescript);
if (problem) {
  process.stderr.write(`governor: ${problem}\n`);
  process.exitCode = 2;
} else {
  await import('./governor.ts');
}
