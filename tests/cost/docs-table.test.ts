/**
 * docs/operations.md's cost table is the code's: costTable for examples/policy.yaml on the
 * template's defaults, as `governor validate --cost` prints it. A change to a price, the
 * template or the evaluator that moves a figure fails here, naming the table to regenerate.
 */
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import type { CliIo } from '#shared/cli/io.ts';
import { costSetting } from '#shared/cli/validate-cost.ts';
import { costTable } from '#shared/cost/table.ts';
import { parsePolicyText } from '#shared/policy/load.ts';

const io: CliIo = { stdout: () => {}, stderr: () => {}, stderrIsTTY: false, cwd: process.cwd() };

it('docs/operations.md shows the cost table the code computes for examples/policy.yaml', async () => {
  const parsed = parsePolicyText(readFileSync('examples/policy.yaml', 'utf8'));
  if (!parsed.ok) throw new Error('examples/policy.yaml does not validate');
  const setting = await costSetting(
    { template: 'template.yaml', tracing: false, actionsPerDay: undefined },
    io,
  );
  const table = costTable({ ...setting, targets: parsed.policy.targets }).join('\n');
  const docs = readFileSync('docs/operations.md', 'utf8');
  const shown = /<!-- cost-table[^>]*-->\n([\s\S]*?)\n<!-- \/cost-table -->/.exec(docs)?.[1];
  expect(
    shown,
    'docs/operations.md: regenerate the table between the cost-table markers with npx governor validate examples/policy.yaml --cost',
  ).toBe(table);
});
