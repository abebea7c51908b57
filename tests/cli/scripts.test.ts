/**
 * The npm scripts that need a tool npm cannot install say how to get it when it is missing
 * (`npm run local`: moto_server; `npm run validate`: cfn-lint), and `npm run local -- --keep`
 * leaves a seeded moto running with a `governor invoke` command that works against it. Every
 * script says how to run it (--help, exit 0) and answers a wrong argument with one line naming
 * it and the usage, exit 2, before it does anything (scripts/args.ts).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EASY_MINUTES, easyRates, easyTraffic } from '../../scripts/easy-traffic.ts';
import { yearTrace, yearTraceCsv } from '../../scripts/year-trace.ts';
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
    expect(run.stderr).toBe(
      "local: Unknown option '--minute': did you mean --minutes? (usage: npm run local -- [--minutes N] [--trace FILE] [--shadow] [--keep])\n",
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

describe('every script says how to run it, and refuses what it cannot read in one line', () => {
  /** Each script, the start of its synopsis, and one wrong use with the line it must answer. */
  const scripts = [
    {
      file: 'scripts/local.ts',
      synopsis: 'npm run local -- [--minutes N]',
      wrong: ['--minutes', '0'],
      says: '--minutes must be a whole number from 1 to 1440, got "0"',
    },
    {
      file: 'scripts/held-out-traces.ts',
      synopsis: 'node scripts/held-out-traces.ts [FOLDER]',
      wrong: ['a', 'b'],
      says: "takes at most 1 argument, got also 'b'",
    },
    {
      file: 'scripts/mix-variants.ts',
      synopsis: 'node scripts/mix-variants.ts TRACE.csv',
      wrong: [resolve('traces/nasa_http_1995_jul_per_minute.csv'), '--zones', '4'],
      says: '--zones must be a whole number from 1 to 3, got "4"',
    },
    {
      file: 'scripts/easy-traffic.ts',
      synopsis: 'node scripts/easy-traffic.ts [FOLDER]',
      wrong: ['a', 'b'],
      says: "takes at most 1 argument, got also 'b'",
    },
    {
      file: 'scripts/smooth-shifts.ts',
      synopsis: 'node scripts/smooth-shifts.ts [FOLDER]',
      wrong: ['a', 'b'],
      says: "takes at most 1 argument, got also 'b'",
    },
    {
      file: 'scripts/suite-pins.ts',
      synopsis: 'node scripts/suite-pins.ts REPORT.json',
      wrong: [],
      says: 'the report is missing',
    },
    {
      file: 'scripts/validate.ts',
      synopsis: 'npm run validate -- [TEMPLATE]',
      wrong: ['--strict'],
      says: "Unknown option '--strict'",
    },
    {
      file: 'scripts/year-trace.ts',
      synopsis: 'node scripts/year-trace.ts OUT.csv',
      wrong: ['out.csv', '--seed', '-1'],
      says: '--seed needs a value',
    },
    {
      file: 'bench/run.ts',
      synopsis: 'npm run bench -- [NAME]',
      wrong: ['nope'],
      says: 'no benchmark matches "nope"',
    },
  ];

  it.each(scripts)('$file --help: the usage on stdout, exit 0, nothing written', ({ file, synopsis }) => {
    const cwd = mkdtempSync(join(tmpdir(), 'governor-script-'));
    try {
      const run = spawnSync(NODE, [resolve(file), '--help'], { encoding: 'utf8', cwd });
      expect(run.status).toBe(0);
      expect(run.stderr).toBe('');
      expect(run.stdout.startsWith(`usage: ${synopsis}`)).toBe(true);
      // held-out-traces once took --help for its folder and wrote four traces into ./--help.
      expect(readdirSync(cwd)).toEqual([]);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  it.each(scripts)(
    '$file with $wrong: one line naming it and the usage, exit 2',
    ({ file, synopsis, wrong, says }) => {
      const cwd = mkdtempSync(join(tmpdir(), 'governor-script-'));
      const run = spawnSync(NODE, [resolve(file), ...wrong], { encoding: 'utf8', cwd });
      // Refused before anything is written (held-out-traces once wrote into a folder named by it).
      expect(readdirSync(cwd)).toEqual([]);
      rmSync(cwd, { recursive: true, force: true });
      expect(run.status).toBe(2);
      expect(run.stdout).toBe('');
      const name = file.startsWith('bench/') ? 'bench' : file.slice('scripts/'.length, -'.ts'.length);
      expect(run.stderr.startsWith(`${name}: ${says}`)).toBe(true);
      expect(run.stderr).toContain(`(usage: ${synopsis}`);
      expect(run.stderr.split('\n')).toHaveLength(2);
    },
  );

  /** Runs a trace-writing script into a fresh folder: the requests of each file it wrote, by name. */
  function written(script: string): Map<string, number[]> {
    const dir = mkdtempSync(join(tmpdir(), 'governor-traces-'));
    try {
      const run = spawnSync(NODE, [script, dir], { encoding: 'utf8' });
      expect(run.status).toBe(0);
      return new Map(
        readdirSync(dir)
          .sort()
          .map((file) => {
            const lines = readFileSync(join(dir, file), 'utf8').trim().split('\n');
            expect(lines[0]).toBe('minute,requests');
            return [file.replace(/\.csv$/, ''), lines.slice(1).map((l) => Number(l.split(',')[1]))];
          }),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it('smooth-shifts writes its seven traces, three weeks each, the same files every time', () => {
    const traces = written('scripts/smooth-shifts.ts');
    expect([...traces.keys()]).toEqual(['bursts', 'drop', 'jump-1.4', 'jump-1.8', 'noise', 'ramp', 'surge']);
    const bursts = traces.get('bursts')!;
    expect(bursts).toHaveLength(21 * 1440);
    // Two smooth weeks first: the same minutes as the year's.
    expect(bursts.slice(0, 14 * 1440)).toEqual(
      yearTrace(21 * 1440)
        .slice(0, 14 * 1440)
        .map((x) => Math.round(x)),
    );
  });

  it('easy-traffic writes its seven traces, three weeks each, Poisson counts around the rates it describes, the same files every time', () => {
    const traces = written('scripts/easy-traffic.ts');
    expect([...traces.keys()]).toEqual([
      'diurnal',
      'flash',
      'growth',
      'on-off',
      'sparse',
      'step-up',
      'wobbly',
    ]);
    const drawn = new Map(easyTraffic());
    const rates = new Map(easyRates());
    for (const [name, xs] of traces) {
      expect(xs).toHaveLength(EASY_MINUTES);
      expect(xs).toEqual(drawn.get(name));
      // Counts around their rates: the third day's total within 1 % of its rates' where it is large.
      const day = (ys: readonly number[]) => ys.slice(2 * 1440, 3 * 1440).reduce((a, b) => a + b, 0);
      const expected = day(rates.get(name)!);
      if (expected > 1e5) expect(Math.abs(day(xs) / expected - 1)).toBeLessThan(0.01);
    }
    // The step: the same minute of the day, three times the rate from day 12 on.
    const step = rates.get('step-up')!;
    expect(step[12 * 1440 + 600]! / step[11 * 1440 + 600]!).toBeCloseTo(3, 12);
  });

  it('year-trace writes the trace it describes: the same file as yearTraceCsv, any length and seed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'governor-year-'));
    try {
      const out = join(dir, 'short.csv');
      const run = spawnSync(NODE, ['scripts/year-trace.ts', out, '--minutes', '200', '--seed', '3'], {
        encoding: 'utf8',
      });
      expect(run.status).toBe(0);
      expect(run.stdout).toBe(`wrote ${out} (200 minutes, seed 3)\n`);
      expect(readFileSync(out, 'utf8')).toBe(yearTraceCsv(200, 3));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
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

    const invoke = spawnSync('bash', ['--norc', '-c', command!], { encoding: 'utf8', timeout: 60_000 });
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
