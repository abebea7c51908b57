#!/usr/bin/env node
import { processIo } from '../shared/cli/io.ts';
import { main } from '../shared/cli/main.ts';

process.exitCode = await main(process.argv.slice(2), processIo());
