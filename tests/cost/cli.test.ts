/** `governor validate --cost` through main(): the summary line first, the lines, the 1/50/500 table; bad options exit 2. */
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';

const run = (...args: string[]) => runCli(['validate', ...args]);

describe('governor validate --cost', () => {
  it('says the monthly cost in one line after the validation, then each line and the table', async () => {
    const { code, out, err } = await run('examples/policy.yaml', '--cost');
    expect(err).toEqual([]);
    expect(code).toBe(0);
    expect(out[0]).toMatch(/^examples\/policy\.yaml: valid: 1 target/);
    expect(out[2]).toMatch(
      /^Governor's control plane for examples\/policy\.yaml \(1 target\): about \d+\.\d\d USD a month, \d+\.\d\d with X-Ray tracing on \(us-east-1 prices of \d{4}-\d\d-\d\d, before free tiers\)$/,
    );
    expect(out).toContain('| service | what | quantity a month | USD a month |');
    expect(out.filter((l) => /^\| (1|50|500) \|/.test(l))).toHaveLength(3);
  });

  it('with --tracing the total includes X-Ray, and --actions-per-day 0 bills no transitions', async () => {
    const { out } = await run('examples/policy.yaml', '--cost', '--tracing', '--actions-per-day', '0');
    expect(out[2]).toMatch(/about (\S+) USD a month\b/);
    expect(out.find((l) => l.startsWith('| Step Functions |'))).toMatch(/\| 0\.00 \|$/);
    expect(out.some((l) => l.startsWith('| X-Ray |'))).toBe(true);
    expect(out[2]).not.toContain('with X-Ray tracing on');
  });

  it.each([
    {
      case: '--tracing without --cost',
      args: ['examples/policy.yaml', '--tracing'],
      line: '--tracing goes with --cost: add --cost',
    },
    {
      case: 'a negative --actions-per-day',
      args: ['examples/policy.yaml', '--cost', '--actions-per-day=-1'],
      line: '--actions-per-day must be a number from 0 to 1440, got "-1"',
    },
    {
      case: 'a missing --template',
      args: ['examples/policy.yaml', '--cost', '--template', 'nope.yaml'],
      line: '--template nope.yaml: cannot read the file (ENOENT): check the path',
    },
  ])('$case: one line, exit 2', async ({ args, line }) => {
    const { code, err } = await run(...args);
    expect(code).toBe(2);
    expect(err).toEqual([`governor validate: ${line}`]);
  });
});
