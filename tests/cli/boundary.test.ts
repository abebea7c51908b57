/**
 * The CLI's error boundary through main() with a captured CliIo, in a scratch working folder:
 * every failure is one line naming the fix with a documented exit code, reports never create
 * folders outside the working folder, a path that is a folder is one line before any work,
 * --version, and "did you mean" for mistyped commands and options.
 */

import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeFailure } from '#shared/cli/boundary.ts';
import { EXIT, RunError, UsageError } from '#shared/cli/io.ts';
import { didYouMean, editDistance } from '#shared/cli/suggest.ts';
import { runCli } from '../support/cli.ts';

const REPO = process.cwd();
const TRACE = join(REPO, 'traces/nasa_http_1995_jul_per_minute.csv');
/** The working folder, and a folder beside it that is outside it. */
const root = mkdtempSync(join(tmpdir(), 'governor-boundary-'));
const work = join(root, 'work');
const beside = join(root, 'beside');
mkdirSync(join(work, 'reports'), { recursive: true });
mkdirSync(beside);
writeFileSync(join(work, 'notes.txt'), 'a file, not a folder');
afterAll(() => rmSync(root, { recursive: true, force: true }));

const run = (...argv: string[]) => runCli(argv, work);

describe('an output path that cannot be written is one line and exit 2, before any work', () => {
  it.each([
    {
      case: 'schema --write to a folder',
      argv: ['schema', '--write', 'reports'],
      line: 'governor schema: --write reports is a folder: name a file such as policy.schema.json',
    },
    {
      case: 'schema --write to a missing folder outside the working folder',
      argv: ['schema', '--write', join(beside, 'missing/policy.schema.json')],
      line: `governor schema: --write ${join(beside, 'missing/policy.schema.json')}: folder ${join(beside, 'missing')} does not exist and is outside the working folder (${work}): create it first, or write under the working folder`,
    },
    {
      case: 'backtest --html to a folder (the backtest does not run)',
      argv: ['backtest', '--trace', TRACE, '--html', 'reports'],
      line: 'governor backtest: --html reports is a folder: name a file such as reports/report.html',
    },
    {
      case: 'backtest --json under a file',
      argv: ['backtest', '--trace', TRACE, '--json', 'notes.txt/r.json'],
      line: 'governor backtest: --json notes.txt/r.json: notes.txt is a file, not a folder: choose another path',
    },
    {
      case: 'suite --json in a folder at the filesystem root that does not exist',
      argv: ['suite', '--json', '/governor-no-such-folder/suite.json'],
      line: `governor suite: --json /governor-no-such-folder/suite.json: folder /governor-no-such-folder does not exist and is outside the working folder (${work}): create it first, or write under the working folder`,
    },
    {
      case: 'forecast --json to a folder',
      argv: ['forecast', '--trace', TRACE, '--json', '.'],
      line: 'governor forecast: --json . is a folder: name a file such as report.json',
    },
    {
      case: 'backtest --json and --html naming one file',
      argv: ['backtest', '--trace', TRACE, '--json', 'F', '--html', './F'],
      line: 'governor backtest: --json F and --html ./F name the same file: give each its own file',
    },
    {
      case: 'tune --out and --html naming one file',
      argv: ['tune', '--trace', TRACE, '--out', 'tuned.yaml', '--html', 'tuned.yaml'],
      line: 'governor tune: --out tuned.yaml and --html tuned.yaml name the same file: give each its own file',
    },
    {
      case: 'tune --out to a folder (the search does not start)',
      argv: ['tune', '--trace', TRACE, '--out', 'reports'],
      line: 'governor tune: --out reports is a folder: name a policy file such as tuned.yaml',
    },
  ])('$case', async ({ argv, line }) => {
    const started = Date.now();
    expect(await run(...argv)).toEqual({ code: EXIT.usage, out: [], err: [line] });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(existsSync('/governor-no-such-folder')).toBe(false);
    expect(existsSync(join(beside, 'missing'))).toBe(false);
  });
});

describe('writing reports says where', () => {
  it('creates a missing folder inside the working folder and says so', async () => {
    const { code, out, err } = await run('schema', '--write', 'schemas/deeper/policy.schema.json');
    expect({ code, out, err }).toEqual({
      code: EXIT.ok,
      out: [],
      err: ['created folder schemas/deeper', 'wrote schemas/deeper/policy.schema.json'],
    });
    expect(JSON.parse(readFileSync(join(work, 'schemas/deeper/policy.schema.json'), 'utf8'))).toHaveProperty(
      '$schema',
    );
  });

  it('writes into an existing folder outside the working folder, naming the absolute path', async () => {
    const file = join(beside, 'policy.schema.json');
    const { code, err } = await run('schema', '--write', file);
    expect(code).toBe(EXIT.ok);
    expect(err).toEqual([`wrote ${file} (outside the working folder ${work})`]);
    expect(existsSync(file)).toBe(true);
  });
});

describe('mistakes on the command line', () => {
  it.each([
    {
      case: 'a mistyped command',
      argv: ['backtset'],
      line: 'governor: unknown command "backtset": did you mean "backtest"? (governor --help lists the commands)',
    },
    {
      case: 'another mistyped command',
      argv: ['valdiate', 'x.yaml'],
      line: 'governor: unknown command "valdiate": did you mean "validate"? (governor --help lists the commands)',
    },
    {
      case: 'a command nothing resembles',
      argv: ['deploy'],
      line: 'governor: unknown command "deploy" (governor --help lists the commands)',
    },
    {
      case: 'a mistyped global option',
      argv: ['--verison'],
      line: 'governor: unknown option "--verison": did you mean "--version"? (governor --help lists the commands)',
    },
    {
      case: 'a mistyped option of a command',
      argv: ['backtest', '--trce', 'x.csv'],
      line: "governor backtest: Unknown option '--trce': did you mean --trace?",
    },
    {
      case: 'a shortened option of a command',
      argv: ['tune', '--budget', '10'],
      line: "governor tune: Unknown option '--budget': did you mean --budget-seconds?",
    },
    {
      case: 'an option nothing resembles',
      argv: ['schema', '--pretty'],
      line: "governor schema: Unknown option '--pretty' (--help lists the options)",
    },
    {
      case: 'an inherited property name is not a command',
      argv: ['constructor'],
      line: 'governor: unknown command "constructor" (governor --help lists the commands)',
    },
  ])('$case: one line, exit 2', async ({ argv, line }) => {
    expect(await run(...argv)).toEqual({ code: EXIT.usage, out: [], err: [line] });
  });

  it.each(['--version', '-V', 'version'])('%s prints the version in package.json', async (flag) => {
    const { version } = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8'));
    expect(await run(flag)).toEqual({ code: EXIT.ok, out: [`governor ${version}`], err: [] });
  });

  it('--help documents the exit codes', async () => {
    const { code, out } = await run('--help');
    expect(code).toBe(EXIT.ok);
    expect(out.join('\n')).toMatch(
      /exit codes:\n {2}0 {2}ok\n {2}1 {2}a check failed.*\n.*\n {2}2 {2}bad input/,
    );
  });

  it('no command at all: the usage on stderr, exit 2', async () => {
    const { code, out, err } = await run();
    expect({ code, out }).toEqual({ code: EXIT.usage, out: [] });
    expect(err).toHaveLength(1);
    expect(err[0]).toMatch(/^usage: governor <command> \[options\]\n/);
  });
});

describe('describeFailure: whatever is thrown becomes one line and an exit code', () => {
  const enoent = Object.assign(new Error("ENOENT: no such file or directory, open '/x/y'"), {
    code: 'ENOENT',
    syscall: 'open',
    path: '/x/y',
  });
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5000'), {
    code: 'ECONNREFUSED',
    syscall: 'connect',
    address: '127.0.0.1',
  });
  it.each([
    {
      case: 'a usage error',
      error: new UsageError('--trace is required'),
      line: '--trace is required',
      code: 2,
    },
    {
      case: 'a run error',
      error: new RunError('disk full: free space'),
      line: 'disk full: free space',
      code: 1,
    },
    {
      case: 'a file-system error',
      error: enoent,
      line: 'open /x/y failed (ENOENT): check the path',
      code: 1,
    },
    {
      case: 'a refused connection',
      error: refused,
      line: 'connect 127.0.0.1 failed (ECONNREFUSED): nothing answers at that address: start the service or check AWS_ENDPOINT_URL',
      code: 1,
    },
    {
      case: 'a bug, with a multi-line message',
      error: new TypeError("Cannot read properties of undefined (reading 'x')\n    at somewhere"),
      line: "unexpected error: TypeError: Cannot read properties of undefined (reading 'x') (set GOVERNOR_DEBUG=1 to see the stack trace, and please report it)",
      code: 1,
    },
    {
      case: 'something that is not an Error',
      error: 'a string',
      line: 'unexpected error: a string (set GOVERNOR_DEBUG=1 to see the stack trace, and please report it)',
      code: 1,
    },
  ])('$case', ({ error, line, code }) => {
    expect(describeFailure(error)).toEqual({ line, code });
  });

  it('GOVERNOR_DEBUG shows the stack of a bug', () => {
    const bug = new Error('boom');
    expect(describeFailure(bug, true).line).toBe(bug.stack);
  });
});

describe('did you mean', () => {
  it.each([
    { a: 'backtset', b: 'backtest', distance: 1 },
    { a: 'trce', b: 'trace', distance: 1 },
    { a: 'sute', b: 'suite', distance: 1 },
    { a: 'ab', b: 'ba', distance: 1 },
    { a: 'deploy', b: 'suite', distance: 6 },
  ])('$a is $distance from $b', ({ a, b, distance }) => {
    expect(editDistance(a, b)).toBe(distance);
  });

  it.each([
    { input: '--trce', candidates: ['--trace', '--target'], guess: '--trace' },
    { input: '--pol', candidates: ['--policy', '--peak-instances'], guess: '--policy' },
    { input: 'forcast', candidates: ['forecast', 'backtest'], guess: 'forecast' },
    { input: 'x', candidates: ['suite', 'tune'], guess: undefined },
    { input: '--p', candidates: ['--policy', '--price'], guess: undefined },
  ])('$input -> $guess', ({ input, candidates, guess }) => {
    expect(didYouMean(input, candidates)).toBe(guess);
  });
});
