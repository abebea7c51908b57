/**
 * vitest globalSetup: finds botocore's service models once per run and hands their folder to every
 * test file (inject('botocoreData')); tests/support/aws-model-setup.ts checks each file's SDK calls
 * against them. Without botocore the check is skipped, said in one line here.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** botocore's data folder (…/botocore/data), or '' when it is not installed. */
    botocoreData: string;
  }
}

/** botocore's data folder from the Python environment beside moto, or why there is none. */
export function findBotocoreData(): { dir: string } | { missing: string } {
  try {
    const out = execFileSync(
      'python3',
      ['-c', 'import botocore,os;print(os.path.dirname(botocore.__file__))'],
      {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
        timeout: 20_000,
      },
    );
    const dir = join(out.trim(), 'data');
    return existsSync(dir) ? { dir } : { missing: `botocore has no data folder at ${dir}` };
  } catch {
    return { missing: 'python3 cannot import botocore' };
  }
}

export default function setup(project: TestProject) {
  const found = findBotocoreData();
  if ('missing' in found)
    console.log(
      `AWS model check skipped: ${found.missing}, so no service-2.json.gz to check SDK calls against (pip install botocore; moto brings it)`,
    );
  project.provide('botocoreData', 'dir' in found ? found.dir : '');
}
