/**
 * A baseline commit's code beside this one, for benchmarks that time the code now against the
 * code then in the same process (the machine's speed and load divide out of the ratio): the
 * commit's shared/ and package.json extracted with `git archive` into a temporary folder that
 * shares this checkout's node_modules; and the process's CPU time, which the ratios are taken of.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * Runs `use` with the folder holding `commit`'s shared/ (import its modules from there), then
 * removes the folder. Says so and runs nothing when git or the commit is not there.
 */
export async function withBaseline(commit: string, use: (folder: string) => Promise<void>): Promise<void> {
  const out = mkdtempSync(join(tmpdir(), 'governor-baseline-'));
  try {
    const archive = spawnSync('git', ['archive', '--format=tar', commit, 'shared', 'package.json'], {
      cwd: root,
      maxBuffer: 1 << 28,
    });
    const extracted =
      archive.status === 0 && spawnSync('tar', ['-x', '-C', out], { input: archive.stdout }).status === 0;
    if (!extracted) {
      console.log(`baseline ${commit}: not available (needs git and the commit), skipped`);
      return;
    }
    symlinkSync(join(root, 'node_modules'), join(out, 'node_modules'));
    await use(out);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/** This process's CPU time so far, in milliseconds (user + system). */
export function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}
