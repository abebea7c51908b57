/**
 * `governor policy split` and `governor validate MAIN --part FILE`: a 1,000-target policy split
 * into files each under 8,192 bytes, validated back in parts with the same result, the printed
 * aws ssm commands publishing exactly those files (parts, then main, then stale parts deleted;
 * the deletion line run in bash against a stand-in `aws`), and bad input as one line, exit 2.
 */

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parsePolicyText } from '#shared/policy/load.ts';
import { mergePolicyParts } from '#shared/policy-store/parts.ts';
import { fleetYaml } from '../control/policy-fleet.ts';
import { runCli } from '../support/cli.ts';

const STANDIN_BIN = fileURLToPath(new URL('../support/bin', import.meta.url));
const governor = (cwd: string, ...args: string[]) => runCli(args, cwd);

/** A working folder holding policy.yaml with n targets like examples/policy.yaml. */
function folder(n: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'governor-split-'));
  writeFileSync(join(dir, 'policy.yaml'), fleetYaml(n));
  return dir;
}

describe('governor policy split', () => {
  it('splits 1,000 targets into a main file and 112 parts, each under 8,192 bytes, that merge back', async () => {
    const cwd = folder(1000);
    const run = await governor(cwd, 'policy', 'split', '--in', 'policy.yaml', '--out-dir', 'out');
    expect(run.code).toBe(0);
    const files = readdirSync(join(cwd, 'out')).sort();
    expect(files).toHaveLength(114); // main.json, parts.txt and 112 parts
    for (const f of files) expect(readFileSync(join(cwd, 'out', f)).byteLength).toBeLessThan(8192);
    expect(run.err.at(-1)).toMatch(
      /^policy\.yaml: 1000 targets in 112 parts under out, main\.json holding the rest of the policy \(largest \d+ bytes of 8192\); publish them with:$/,
    );
    // The printed commands: every part, then the main parameter, then the stale parts' deletion.
    const puts = run.out
      .filter((l) => l.startsWith('aws ssm put-parameter'))
      .map((l) => /--name (\S+) .*--value file:\/\/(\S+)$/.exec(l)!.slice(1, 3) as [string, string]);
    expect(puts).toHaveLength(113);
    expect(puts.at(-1)).toEqual(['/governor/policy', 'out/main.json']);
    expect(puts[0]).toEqual(['/governor/policy/parts/001', 'out/part-001.json']);
    expect(run.out.at(-1)).toMatch(
      /^aws ssm get-parameters-by-path --path \/governor\/policy\/parts .*delete-parameters/,
    );
    // What those commands publish is the policy.
    const text = (file: string) => readFileSync(join(cwd, file), 'utf8');
    const [mainPut, ...partPuts] = [puts.at(-1)!, ...puts.slice(0, -1)];
    const merged = mergePolicyParts(
      { name: mainPut[0], text: text(mainPut[1]) },
      partPuts.map(([name, file]) => ({ name, text: text(file) })),
    );
    const single = parsePolicyText(text('policy.yaml'));
    expect(merged.ok && single.ok && merged.policy).toEqual(single.ok && single.policy);
    // And governor validate says the same of the files.
    const parts = files.filter((f) => f.startsWith('part-')).flatMap((f) => ['--part', `out/${f}`]);
    const validated = await governor(cwd, 'validate', 'out/main.json', ...parts);
    expect(validated.code).toBe(0);
    expect(validated.out[0]).toMatch(/^out\/main\.json \+ 112 parts: valid: 1000 targets: chat-llm-0000 /);
  });

  it('the printed deletion removes exactly the parts the new policy does not have', async () => {
    const cwd = folder(30);
    const run = await governor(
      cwd,
      'policy',
      'split',
      '--in',
      'policy.yaml',
      '--out-dir',
      'out',
      '--max-bytes',
      '4096',
    );
    expect(run.code).toBe(0);
    const parts = readFileSync(join(cwd, 'out', 'parts.txt'), 'utf8')
      .trim()
      .split('\n');
    expect(parts.length).toBeGreaterThan(1);
    // A stand-in aws (tests/support/bin/aws, committed executable): SSM holds the new parts plus
    // two stale ones; the calls it gets are recorded.
    const stale = [
      '/governor/policy/parts/eu',
      `/governor/policy/parts/${String(parts.length + 1).padStart(3, '0')}`,
    ];
    writeFileSync(join(cwd, 'parameters'), `${[...parts, ...stale].join('\n')}\n`);
    // --norc: bash reads ~/.bashrc even with -c when its stdin is a socket (Node's pipes are) and
    // SHLVL is unset, and a ~/.bashrc that puts its own PATH first (pyenv's shims) then finds the
    // real aws before the stand-in: a full run failed so ("You must specify a region").
    const shell = spawnSync('bash', ['--norc', '-c', `set -o pipefail; ${run.out.at(-1)!}`], {
      cwd,
      encoding: 'utf8',
      env: {
        ...process.env,
        PATH: `${STANDIN_BIN}:${process.env.PATH}`,
        STANDIN_AWS_PARAMETERS: join(cwd, 'parameters'),
        STANDIN_AWS_CALLS: join(cwd, 'deleted'),
      },
    });
    expect(shell.status, shell.stderr).toBe(0);
    expect(readFileSync(join(cwd, 'deleted'), 'utf8').trim()).toBe(
      `ssm delete-parameters --names ${stale.join(' ')}`,
    );
  });

  it('keeps a policy that fits one parameter whole: no parts, and every old part deleted', async () => {
    const cwd = folder(1);
    const run = await governor(cwd, 'policy', 'split', '--in', 'policy.yaml', '--out-dir', 'out');
    expect(run.code).toBe(0);
    expect(run.out.filter((l) => l.startsWith('aws ssm put-parameter'))).toHaveLength(1);
    expect(readFileSync(join(cwd, 'out', 'parts.txt'), 'utf8')).toBe('');
    expect(run.err.at(-1)).toMatch(
      /^policy\.yaml: 1 target, all in main\.json under out \(\d+ bytes of 8192\): one parameter holds the policy; publish it with:$/,
    );
  });

  it.each([
    {
      case: 'no subcommand',
      args: ['policy'],
      line: /^governor policy: a subcommand is needed: usage: governor policy split/,
    },
    {
      case: 'an unknown subcommand',
      args: ['policy', 'merge'],
      line: /^governor policy: unknown subcommand "merge": usage/,
    },
    {
      case: 'no --in',
      args: ['policy', 'split', '--out-dir', 'out'],
      line: /^governor policy: --in and --out-dir are required; usage/,
    },
    {
      case: 'a limit above what SSM holds',
      args: ['policy', 'split', '--in', 'policy.yaml', '--out-dir', 'out', '--max-bytes', '9000'],
      line: /^governor policy: --max-bytes must be a number from 512 to 8192, got "9000"$/,
    },
    {
      case: 'a target larger than the limit',
      args: ['policy', 'split', '--in', 'policy.yaml', '--out-dir', 'out', '--max-bytes', '600'],
      line: /^governor policy: --in policy\.yaml: targets\[0\] \("chat-llm-0000"\) takes \d+ bytes in a part on its own, more than 600: raise --max-bytes/,
    },
    {
      case: 'a missing input file',
      args: ['policy', 'split', '--in', 'nope.yaml', '--out-dir', 'out'],
      line: /^governor policy: --in nope\.yaml: cannot read the file \(ENOENT\): check the path$/,
    },
  ])('$case: one line, exit 2', async ({ args, line }) => {
    const run = await governor(folder(3), ...args);
    expect(run.code).toBe(2);
    expect(run.err).toHaveLength(1);
    expect(run.err[0]).toMatch(line);
  });

  it('an invalid policy is one line per problem, exit 2, and nothing written', async () => {
    const cwd = folder(2);
    writeFileSync(join(cwd, 'policy.yaml'), fleetYaml(2).replace('chat-llm-0001', 'chat-llm-0000'));
    const run = await governor(cwd, 'policy', 'split', '--in', 'policy.yaml', '--out-dir', 'out');
    expect(run).toMatchObject({ code: 2, out: [] });
    expect(run.err).toEqual([
      'policy.yaml: targets[1].id "chat-llm-0000" is already used by targets[0]: ids must be unique',
    ]);
    expect(readdirSync(cwd)).toEqual(['policy.yaml']);
  });
});

describe('governor validate MAIN --part FILE', () => {
  it('names the part file a problem comes from, and the file the other id is in', async () => {
    const cwd = folder(2);
    writeFileSync(join(cwd, 'main.yaml'), 'version: 1\ntargets: []\n');
    const run = await governor(
      cwd,
      'validate',
      'main.yaml',
      '--part',
      'policy.yaml',
      '--part',
      'policy.yaml',
    );
    expect(run.code).toBe(2);
    expect(run.err).toContain(
      'policy.yaml: targets[0].id "chat-llm-0000" is already used by targets[0]: ids must be unique',
    );
  });

  it('with --part, takes exactly one main file', async () => {
    const run = await governor(folder(1), 'validate', 'a.yaml', 'b.yaml', '--part', 'c.yaml');
    expect(run).toEqual({
      code: 2,
      out: [],
      err: [
        'governor validate: --part needs exactly one main file, got 2: validate one policy in parts at a time',
      ],
    });
  });

  it('a part file that cannot be read is one line naming --part', async () => {
    const run = await governor(folder(1), 'validate', 'policy.yaml', '--part', 'nope.yaml');
    expect(run).toEqual({
      code: 2,
      out: [],
      err: ['--part nope.yaml: cannot read the file (ENOENT): check the path'],
    });
  });
});
