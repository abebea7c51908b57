/**
 * Writes tests/suite/pins.json from a suite's JSON report, so tests/suite/bundled.test.ts pins
 * every cell's verdict (shared/suite/pins.ts):
 *   npx governor suite --json reports/suite.json
 *   npx node scripts/suite-pins.ts reports/suite.json
 * The report must be the default run (examples/policy.yaml, every bundled trace and variant).
 * Exit 2 with one line on a missing or malformed report.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { pinsOf } from '../shared/suite/pins.ts';
import type { SuiteReport } from '../shared/suite/report.ts';
import { type ScriptUsage, scriptArgs, usageExit } from './args.ts';

const OUT = 'tests/suite/pins.json';
const USAGE: ScriptUsage = {
  script: 'suite-pins',
  synopsis: 'node scripts/suite-pins.ts REPORT.json',
  maxPositionals: 1,
  details: `Writes ${OUT} from the JSON report of the default suite run, so tests/suite/bundled.test.ts
pins every cell's verdict (a win that flips fails):
  npx governor suite --json reports/suite.json
  node scripts/suite-pins.ts reports/suite.json`,
};
const file =
  scriptArgs(USAGE, { allowPositionals: true }).positionals[0] ?? usageExit(USAGE, 'the report is missing');
try {
  const report = JSON.parse(readFileSync(file, 'utf8')) as SuiteReport;
  if (!Array.isArray(report.cells) || report.cells.length === 0 || !report.cells[0]?.outcome) {
    throw new Error(`${file} has no cells with a verdict: write it with npx governor suite --json ${file}`);
  }
  if (report.targetId !== null || !report.policy.endsWith('examples/policy.yaml')) {
    throw new Error(
      `${file} is a run of ${report.policy}: pin the default run (npx governor suite, no --policy)`,
    );
  }
  const pins = pinsOf(report.cells);
  writeFileSync(OUT, `${JSON.stringify(pins, null, 2)}\n`);
  const wins = Object.values(pins).filter((v) => v === 'win').length;
  console.log(`suite-pins: ${OUT}: ${Object.keys(pins).length} cells, ${wins} wins`);
} catch (error) {
  console.error(`suite-pins: ${(error as Error).message}`);
  process.exit(2);
}
