#!/usr/bin/env node
/**
 * The CLI itself, on Node's type stripping (Node 22.18+). Start it through bin/governor.js (the
 * package's "bin", `npx governor`, `npm run governor --`), which first checks the Node version:
 * an older Node cannot even load this file.
 */
import { installProcessBoundary } from '../shared/cli/boundary.ts';
import { processIo } from '../shared/cli/io.ts';
import { main } from '../shared/cli/main.ts';

installProcessBoundary();
process.exitCode = await main(process.argv.slice(2), processIo());
