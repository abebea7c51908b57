/**
 * cfn-lint (Python, 1.51, with the SAM translator) finds no error, warning or informational
 * finding in template.yaml. One run lints the template and a copy with one unknown property,
 * so the test also proves cfn-lint really checked (the copy must fail).
 *
 * Without cfn-lint on the PATH the test is skipped with a plain message; with CI set it fails.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEMPLATE_PATH, templateText } from './load.ts';

const version = spawnSync('cfn-lint', ['--version'], { encoding: 'utf8' });
const available = version.status === 0;
if (!available) {
  const message = 'cfn-lint is not on the PATH: skipping the cfn-lint test (pip install cfn-lint)';
  if (process.env.CI)
    throw new Error(`${message.split(':')[0]}, and CI is set: the CI image must provide cfn-lint`);
  console.log(message);
}

interface Finding {
  Filename: string;
  Level: string;
  Message: string;
  Rule: { Id: string };
  Location: { Start: { LineNumber: number } };
}

describe.skipIf(!available)('cfn-lint', () => {
  let dir = '';
  let broken = '';
  let stderr = '';
  let findings: Finding[] = [];
  // One run for both files: cfn-lint starts in about 6 s, linting takes little more.
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'governor-cfn-lint-'));
    broken = join(dir, 'broken.yaml');
    writeFileSync(
      broken,
      templateText.replace('      SSESpecification:\n', '      Unknown: 1\n      SSESpecification:\n'),
    );
    const run = spawnSync('cfn-lint', ['--format', 'json', TEMPLATE_PATH, broken], { encoding: 'utf8' });
    stderr = run.stderr;
    findings = JSON.parse(run.stdout || '[]') as Finding[];
    // About 6 s on an idle machine; a clean clone's CI with both cores busy took 104 s.
  }, 300_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const of = (file: string) =>
    findings
      .filter((f) => f.Filename === file)
      .map((f) => `${f.Level} ${f.Rule.Id} line ${f.Location.Start.LineNumber}: ${f.Message}`);

  it(`${version.stdout.trim()} finds nothing to report in template.yaml`, () => {
    expect(stderr).toBe('');
    expect(of(TEMPLATE_PATH)).toEqual([]);
  });

  it('reports an unknown property in a broken copy (the lint really ran)', () => {
    expect(of(broken).join('\n')).toMatch(/E3002 .*'Unknown' was unexpected/);
  });
});
