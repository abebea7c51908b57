/**
 * `npm run validate`: cfn-lint on template.yaml, then the project's own template checks
 * (shared/deploy/validate.ts), both always run. Exit 1 when either finds a problem, or when
 * cfn-lint is missing: then one line says how to install it (README, "Prerequisites"), and the
 * project's checks still run so their findings are not hidden behind it.
 *
 *   node scripts/validate.ts [template.yaml]
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type ScriptUsage, scriptArgs } from './args.ts';

const USAGE: ScriptUsage = {
  script: 'validate',
  synopsis: 'npm run validate -- [TEMPLATE]',
  maxPositionals: 1,
  details: `Lints TEMPLATE (default template.yaml) with cfn-lint, then runs the project's own template checks
(shared/deploy/validate.ts); both always run. Exit 1 when either finds a problem, or when cfn-lint
is missing (pipx install cfn-lint): the project's checks still run.`,
};
const template = scriptArgs(USAGE, { allowPositionals: true }).positionals[0] ?? 'template.yaml';
const OWN_CHECKS = fileURLToPath(new URL('../shared/deploy/validate.ts', import.meta.url));

const CFN_LINT_MISSING =
  "validate: cfn-lint (Python) is not on the PATH, so only the project's own checks ran: install it with pipx install cfn-lint (or pip install cfn-lint; macOS: brew install cfn-lint), then run npm run validate again";

/** cfn-lint's exit status, or 'missing' when it is not on the PATH. */
function cfnLint(): number | 'missing' {
  const run = spawnSync('cfn-lint', [template], { stdio: 'inherit' });
  if ((run.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') return 'missing';
  if (run.status === 0) console.log(`ok   cfn-lint: no findings in ${template}`);
  return run.status ?? 1;
}

const lint = cfnLint();
const own = spawnSync(process.execPath, [OWN_CHECKS, template], { stdio: 'inherit' }).status ?? 1;
// Said last, so it is the line the operator reads when the run ends.
if (lint === 'missing') console.error(CFN_LINT_MISSING);
process.exitCode = lint === 0 && own === 0 ? 0 : 1;
