/**
 * The first hour's rough edges (issue 20, item 6), through the CLI: a trace with a missing minute
 * names it and the option that fills it; a CloudWatch export is pointed to `governor history`;
 * `--html` with `--outage` or `--spot` names what to write instead, and --help says which modes
 * draw HTML.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';

let dir: string;
/** Two hours of a steady 60 requests a minute, minute 30 left out. */
const rows = Array.from({ length: 120 }, (_, m) => m).filter((m) => m !== 30);

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'governor-rough-'));
  writeFileSync(join(dir, 'gap.csv'), `minute,requests\n${rows.map((m) => `${m},60`).join('\n')}\n`);
  writeFileSync(join(dir, 'cloudwatch.csv'), 'Timestamp,Value\n2025-06-01T00:00:00Z,60\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a trace with a missing minute', () => {
  it.each([
    ['backtest', []],
    ['forecast', []],
    ['suite', ['--workers', '0', '--variants', 'reference']],
  ])('governor %s names the minute and --fill-gaps, exit 2', async (command, extra) => {
    const { code, err } = await runCli([command, '--trace', 'gap.csv', ...extra], dir);
    expect(code).toBe(2);
    expect(err).toHaveLength(1);
    expect(err[0]).toContain(
      'line 32: minute 30 is missing (this row is minute 31): add it with 0 requests, or run with --fill-gaps to read missing minutes as 0',
    );
  });

  it('governor backtest --fill-gaps replays it, the missing minute as 0 requests', async () => {
    const { code, err } = await runCli(['backtest', '--trace', 'gap.csv', '--fill-gaps'], dir);
    expect(err.filter((l) => l.startsWith('governor'))).toEqual([]);
    expect(code).toBe(0);
  });
});

it('a CloudWatch export given to backtest points to governor history in one line', async () => {
  const { code, err } = await runCli(['backtest', '--trace', 'cloudwatch.csv'], dir);
  expect(code).toBe(2);
  expect(err).toEqual([
    'governor backtest: --trace cloudwatch.csv: line 1: header is "Timestamp,Value", a CloudWatch export (timestamps and values), not a trace: governor history --target ID --policy FILE --days N --out trace.csv reads the same metric from CloudWatch and writes a trace (docs/history.md)',
  ]);
});

describe('--html beside --outage and --spot', () => {
  it.each([['--outage', 'us-east-1:peak:30'], ['--spot']])(
    '%s --html names --json instead, exit 2',
    async (...mode) => {
      const { code, err } = await runCli(
        ['backtest', '--trace', 'gap.csv', '--fill-gaps', ...mode, '--html', 'r.html'],
        dir,
      );
      expect(code).toBe(2);
      expect(err).toEqual([
        `governor backtest: --html does not apply to ${mode[0]}: the HTML report draws the default backtest only; write the ${mode[0] === '--spot' ? 'mix' : 'failover'} result with --json FILE, or drop ${mode[0]} for the HTML`,
      ]);
    },
  );

  it('--help says which modes write HTML', async () => {
    const { out } = await runCli(['backtest', '--help']);
    expect(out.join('\n')).toContain(
      'write the self-contained HTML report (the default backtest only: not\n                            with --outage or --spot, which write --json)',
    );
  });
});
