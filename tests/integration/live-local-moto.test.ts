/**
 * `npm run local -- --shadow --keep` end to end, as an operator uses it: the replay in shadow
 * mode, then every command it prints, with the environment it prints, against the moto server it
 * leaves running: status, decisions, shadow-report (--html), pause, release, resume, and the
 * `governor invoke` tick. One printed command runs through bash exactly as printed (npx governor
 * with the export line); the others run in-process with the same environment, to stay fast.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli } from '../support/cli.ts';
import { motoGate } from '../support/moto.ts';

const gate = motoGate();

describe.skipIf(!gate.available)(
  'npm run local -- --shadow --keep, then every live command it prints',
  () => {
    let child: ChildProcess | undefined;
    let out = '';
    let exports: Record<string, string> = {};
    const dir = mkdtempSync(join(tmpdir(), 'governor-local-'));
    const printed = (prefix: string) =>
      out
        .split('\n')
        .map((l) => l.replace(/ {2}# .*$/, '').trim())
        .filter((l) => l.startsWith(prefix));

    beforeAll(async () => {
      child = spawn(process.execPath, ['scripts/local.ts', '--minutes', '6', '--shadow', '--keep'], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout!.on('data', (c: Buffer) => (out += c));
      child.stderr!.on('data', (c: Buffer) => (out += c));
      const deadline = Date.now() + 60_000;
      while (!out.includes('Ctrl-C stops moto_server.') && Date.now() < deadline && child.exitCode === null)
        await new Promise((r) => setTimeout(r, 100));
      const line = printed('export ')[0] ?? '';
      exports = Object.fromEntries(
        line
          .slice('export '.length)
          .split(' ')
          .map((kv) => kv.split('=') as [string, string]),
      );
      for (const [k, v] of Object.entries(exports)) vi.stubEnv(k, v);
    }, 90_000);

    afterAll(async () => {
      vi.unstubAllEnvs();
      rmSync(dir, { recursive: true, force: true });
      if (child && child.exitCode === null) {
        const exited = new Promise((done) => child!.once('exit', done));
        child.kill('SIGINT');
        await exited;
      }
    });

    /** A printed `npx governor ...` command, run in-process with the printed environment. */
    const governor = (command: string, ...extra: string[]) => {
      const found = printed(`npx governor ${command}`)[0];
      expect(found, out).toBeDefined();
      return runCli([...found!.slice('npx governor '.length).split(' '), ...extra], dir);
    };

    it('prints what to export: the endpoint, the region and fake credentials', () => {
      expect(Object.keys(exports)).toEqual([
        'AWS_ENDPOINT_URL',
        'AWS_REGION',
        'AWS_ACCESS_KEY_ID',
        'AWS_SECRET_ACCESS_KEY',
      ]);
      expect(exports.AWS_ENDPOINT_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    });

    it('status, exactly as printed through bash: the demo target in shadow mode, its last decision', () => {
      const env = Object.entries(exports)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ');
      const run = spawnSync('bash', ['--norc', '-c', `export ${env}; ${printed('npx governor status')[0]}`], {
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toMatch(
        /^demo-llm: endpoint governor-demo, variant AllTraffic \(us-east-1\)\n {2}mode {11}shadow/,
      );
      expect(run.stdout).toMatch(/ {2}last decision {2}\d{4}-.* shadow /);
    }, 60_000);

    it('decisions: the replay, one record a minute', async () => {
      const run = await governor('decisions');
      expect(run.code).toBe(0);
      expect(run.out.filter((l) => !l.startsWith('    '))).toHaveLength(6);
    });

    it('shadow-report: the verdict first, the HTML written', async () => {
      const run = await governor('shadow-report');
      expect(run.code, run.err.join('\n')).toBe(0);
      expect(run.out[0]).toMatch(/^Over the last 1 day \([1-9] minutes compared\), Governor would have run /);
      expect(run.out.find((l) => l.startsWith('fleet capacity from'))).toMatch(
        /Governor CurrentCapacity \(TargetId=demo-llm\)$/,
      );
      expect(existsSync(join(dir, 'reports', 'shadow.html'))).toBe(true);
    });

    it("pause, release and resume set the stack's kill switch, and the printed tick evaluates against it", async () => {
      expect((await governor('pause')).out[0]).toMatch(/^kill switch \/governor\/kill-switch: off -> on: /);
      expect((await governor('release')).out[0]).toMatch(/: on -> release: /);
      expect((await governor('resume')).out[0]).toMatch(/: release -> off: /);
      const tick = /^ {2}(AWS_ENDPOINT_URL=\S+ npx governor invoke evaluate .*)$/m.exec(out)?.[1];
      const invoke = spawnSync('bash', ['--norc', '-c', tick!], { encoding: 'utf8', timeout: 60_000 });
      expect(invoke.status, invoke.stderr).toBe(0);
      expect(JSON.parse(invoke.stdout.trim())).toMatchObject({ targetId: 'demo-llm', outcome: 'shadow' });
    }, 60_000);
  },
);
