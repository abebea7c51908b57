/**
 * The CLI as a process (bin/governor.js on the pinned Node): a closed stdout ends it quietly,
 * and a Node that cannot run it gets one line saying which Node runs, what Governor needs and
 * how to run it, with exit 2, before any TypeScript is loaded. Node's compile cache keeps the
 * stripped and compiled modules for the next command, where NODE_COMPILE_CACHE (or the tmpdir)
 * says, and not at all under NODE_DISABLE_COMPILE_CACHE.
 */
import { type SpawnOptions, spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeProblem } from '../../bin/node-version.js';

const BIN = resolve('bin/governor.js');
const PINNED = process.execPath;

/** Runs `node args...` to the end: exit code, stdout and stderr. */
function run(node: string, args: string[], options: SpawnOptions & { closeStdout?: boolean } = {}) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((done, fail) => {
    const child = spawn(node, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
    let stdout = '';
    let stderr = '';
    // A reader that went away before the first line: the first write fails with EPIPE.
    if (options.closeStdout) child.stdout!.destroy();
    else child.stdout!.on('data', (c: Buffer) => (stdout += c));
    child.stderr!.on('data', (c: Buffer) => (stderr += c));
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

describe('a closed stdout ends the command quietly', () => {
  it.each([
    { case: 'governor schema (75 kB of JSON)', args: ['schema'] },
    { case: 'governor --help', args: ['--help'] },
    { case: 'governor validate', args: ['validate', 'examples/policy.yaml'] },
  ])('$case: exit 0, nothing on stderr', async ({ args }) => {
    const result = await run(PINNED, [BIN, ...args], { closeStdout: true });
    expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('keeps the command’s own exit code (validate of a bad file: 2)', async () => {
    const result = await run(PINNED, [BIN, 'validate', 'events/policies/invalid-duplicate-target-id.yaml'], {
      closeStdout: true,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^events\/policies\/invalid-duplicate-target-id\.yaml: targets\[1\]\.id/);
  });

  it('in a shell pipeline: governor schema | head -1', () => {
    const shell = spawnSync(
      'bash',
      ['-c', `"${PINNED}" "${BIN}" schema | head -1; echo "exit \${PIPESTATUS[0]}" >&2`],
      { encoding: 'utf8' },
    );
    expect(shell.stdout).toBe('{\n');
    expect(shell.stderr).toBe('exit 0\n');
  });
});

describe('the Node version guard', () => {
  const FIX =
    'run it as "npx governor ..." or "npm run governor -- ..." in the repository after "npm ci", which use the pinned Node 24';
  it.each([
    { version: '20.20.2', typescript: undefined, ok: false },
    { version: '18.19.0', typescript: undefined, ok: false },
    { version: '22.17.1', typescript: false, ok: false },
    { version: '22.18.0', typescript: 'strip', ok: true },
    { version: '23.5.0', typescript: false, ok: false },
    { version: '23.6.0', typescript: 'strip', ok: true },
    { version: '24.21.0', typescript: 'strip', ok: true },
    { version: '26.0.0', typescript: 'strip', ok: true },
  ])('Node $version can run Governor: $ok', ({ version, typescript, ok }) => {
    const problem = nodeProblem(version, typescript);
    expect(problem).toBe(
      ok ? null : `this is Node ${version}; Governor needs Node 22.18 or later (24 is pinned): ${FIX}`,
    );
  });

  it('a Node with type stripping turned off: one line, exit 2', async () => {
    const result = await run(PINNED, ['--no-strip-types', BIN, '--help']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `governor: this Node ${process.versions.node} runs with type stripping turned off (--no-strip-types in NODE_OPTIONS?); Governor needs it: ${FIX}\n`,
    );
  });

  it('the pinned Node passes the guard and runs the CLI', async () => {
    expect(await run(PINNED, [BIN, '--version'])).toMatchObject({
      code: 0,
      stdout: /^governor \d+\.\d+\.\d+\n$/,
    });
  });

  /** A Node on the PATH other than the pinned one that is too old for Governor, if there is one. */
  const oldNode = (process.env.PATH ?? '')
    .split(delimiter)
    .filter((dir) => dir !== '' && resolve(dir) !== dirname(PINNED) && !dir.includes('node_modules'))
    .map((dir) => join(dir, 'node'))
    .find((node) => {
      try {
        accessSync(node, constants.X_OK);
      } catch {
        return false;
      }
      const version = spawnSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim();
      return /^\d+\./.test(version) && nodeProblem(version, undefined) !== null;
    });
  if (!oldNode)
    console.log('no Node older than 22.18 on the PATH: skipping the old-Node run of bin/governor.js');

  it.skipIf(!oldNode)('a real older Node (the machine’s own): one line, exit 2', async () => {
    const result = await run(oldNode!, [BIN, 'backtest', '--help']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^governor: this is Node \d+\.\d+\.\d+; Governor needs Node 22\.18 or later \(24 is pinned\): run it as "npx governor \.\.\."[^\n]*\n$/,
    );
  });
});

describe('the compile cache', () => {
  /** Files under `dir`, recursively (none when it does not exist). */
  const filesUnder = (dir: string): string[] => {
    try {
      return readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => e.name);
    } catch {
      return [];
    }
  };

  /** governor --help with the environment less any compile-cache setting, plus `extra`. */
  async function helpWith(extra: Record<string, string>) {
    const env = { ...process.env };
    delete env.NODE_COMPILE_CACHE;
    delete env.NODE_DISABLE_COMPILE_CACHE;
    const result = await run(PINNED, [BIN, '--help'], { env: { ...env, ...extra } });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
  }

  const scratch = () => mkdtempSync(join(tmpdir(), 'governor-cache-'));

  it('is kept under the tmpdir by default, one entry per module the command loaded', async () => {
    const tmp = scratch();
    try {
      await helpWith({ TMPDIR: tmp });
      // bin/governor.ts, the CLI's entry and what --help imports: over a dozen modules.
      expect(filesUnder(join(tmp, 'node-compile-cache')).length).toBeGreaterThan(10);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('goes where NODE_COMPILE_CACHE says', async () => {
    const tmp = scratch();
    try {
      await helpWith({ TMPDIR: join(tmp, 'unused'), NODE_COMPILE_CACHE: join(tmp, 'chosen') });
      expect(filesUnder(join(tmp, 'chosen')).length).toBeGreaterThan(10);
      expect(filesUnder(join(tmp, 'unused'))).toEqual([]);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('is not written under NODE_DISABLE_COMPILE_CACHE=1', async () => {
    const tmp = scratch();
    try {
      await helpWith({ TMPDIR: tmp, NODE_DISABLE_COMPILE_CACHE: '1' });
      expect(filesUnder(tmp)).toEqual([]);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
