/**
 * The npm scripts that need a tool npm cannot install say how to get it when it is missing
 * (`npm run local`: moto_server; `npm run validate`: cfn-lint), and `npm run local -- --keep`
 * leaves a seeded moto running with a `governor invoke` command that works against it.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { dirname } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { motoGate } from '../support/moto.ts';

const NODE = process.execPath;
/** A PATH with the pinned Node and nothing else: no moto_server, no cfn-lint. */
const BARE_PATH = dirname(NODE);

describe('a missing prerequisite is one line saying how to install it', () => {
  it('npm run local without moto_server: exit 2, before anything starts', () => {
    const run = spawnSync(NODE, ['scripts/local.ts', '--minutes', '1'], {
      encoding: 'utf8',
      env: { ...process.env, PATH: BARE_PATH },
    });
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      'local: moto_server (the AWS emulator, Python) is not on the PATH: install it with pipx install "moto[server]" (or pip install "moto[server]"; README, "Prerequisites"), or run the handler without it: npx governor invoke evaluate --event events/scheduler-tick.json --policy examples/policy.yaml --metrics events/invoke/chat-llm.json --now event\n',
    );
  });

  it('npm run local with a mistyped option: one line, exit 2', () => {
    const run = spawnSync(NODE, ['scripts/local.ts', '--minute', '1'], { encoding: 'utf8' });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(
      /^local: Unknown option '--minute'.*\(options: --minutes N, --trace FILE, --shadow, --keep\)\n$/,
    );
  });

  it('npm run validate without cfn-lint: the project checks still run, then one line, exit 1', () => {
    const run = spawnSync(NODE, ['scripts/validate.ts', 'template.yaml'], {
      encoding: 'utf8',
      env: { ...process.env, PATH: BARE_PATH },
      timeout: 60_000,
    });
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(/resource types and properties/);
    expect(run.stderr.trim().split('\n').at(-1)).toBe(
      "validate: cfn-lint (Python) is not on the PATH, so only the project's own checks ran: install it with pipx install cfn-lint (or pip install cfn-lint; macOS: brew install cfn-lint), then run npm run validate again",
    );
  });
});

const gate = motoGate();

describe.skipIf(!gate.available)('npm run local -- --keep', () => {
  let child: ChildProcess | undefined;
  afterAll(() => {
    if (child && child.exitCode === null) child.kill('SIGTERM');
  });

  it('replays, keeps moto running, and the command it prints decides against it', async () => {
    child = spawn(NODE, ['scripts/local.ts', '--minutes', '2', '--keep'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (c: Buffer) => (out += c));
    child.stderr!.on('data', (c: Buffer) => (out += c));
    const deadline = Date.now() + 60_000;
    while (!out.includes('Ctrl-C stops moto_server.') && Date.now() < deadline && child.exitCode === null) {
      await new Promise((r) => setTimeout(r, 100));
    }
    const command =
      /^ {2}(AWS_ENDPOINT_URL=http:\/\/127\.0\.0\.1:\d+ npx governor invoke evaluate .*)$/m.exec(out)?.[1];
    expect(command, out).toMatch(/--event \.tmp\/local-tick\.json --shadow --now event$/);
    // Every replayed minute is decided: its tick comes from aws.scheduler in moto's account and
    // region, as the deployed schedule's does (a tick without them was ignored as foreign).
    expect(out.match(/ req\/min on \d+: .*\[(held|started)\]/g), out).toHaveLength(2);

    const invoke = spawnSync('bash', ['-c', command!], { encoding: 'utf8', timeout: 60_000 });
    expect(invoke.status, invoke.stderr).toBe(0);
    expect(JSON.parse(invoke.stdout.trim())).toMatchObject({
      targetId: 'demo-llm',
      mode: 'shadow',
      outcome: 'shadow',
    });

    const exited = new Promise<number | null>((done) => child!.once('exit', (code) => done(code)));
    child.kill('SIGINT');
    expect(await exited).toBe(0);
  }, 120_000);
});
