/**
 * Any length (issue 18): every command on a one-year per-minute trace (525,600 minutes, made by
 * scripts/year-trace.ts into a temporary folder, about 5 MB), each in its own process on the
 * pinned Node, with its wall time, peak memory (resident set, worker threads included) and exit
 * code, against the 1 GB it should stay within. Prints figures; never fails.
 *
 * `suite` runs the year as its one trace, reference scenario only (one cell: governor, target
 * tracking and the 19-target sweep). Not run here: `history` (reads CloudWatch; its gap filling
 * is tested on a year in tests/history/year.test.ts). Takes about 15 minutes on two cores;
 * `node bench/run.ts year` runs it alone.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeYearTrace, YEAR_MINUTES } from '../scripts/year-trace.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const LIMIT_MB = 1024;

interface Measured {
  seconds: number;
  peakMb: number | null;
  code: number | null;
  lastLine: string;
}

function measure(args: readonly string[], dir: string): Measured {
  const rssFile = join(dir, 'max-rss');
  rmSync(rssFile, { force: true });
  const started = performance.now();
  const out = spawnSync(
    process.execPath,
    ['--import', join(root, 'bench/max-rss.ts'), join(root, 'bin/governor.js'), ...args],
    {
      cwd: root,
      env: { ...process.env, GOVERNOR_BENCH_RSS_FILE: rssFile },
      encoding: 'utf8',
      maxBuffer: 1 << 28,
    },
  );
  const seconds = (performance.now() - started) / 1000;
  let peakMb: number | null = null;
  try {
    peakMb = Number(readFileSync(rssFile, 'utf8')) / 1024;
  } catch {
    // Killed before exit (out of memory): no figure.
  }
  const lines = `${out.stderr ?? ''}`.trim().split('\n');
  return { seconds, peakMb, code: out.status, lastLine: lines.at(-1) ?? '' };
}

export function run(): void {
  const dir = mkdtempSync(join(tmpdir(), 'governor-year-'));
  try {
    const trace = join(dir, 'year.csv');
    writeYearTrace(trace);
    console.log(
      `one-year trace: ${YEAR_MINUTES.toLocaleString('en-US')} minutes (scripts/year-trace.ts) in ${dir}`,
    );
    const commands: [string, string[]][] = [
      ['backtest', ['backtest', '--trace', trace]],
      [
        'backtest --json --html',
        ['backtest', '--trace', trace, '--json', join(dir, 'b.json'), '--html', join(dir, 'b.html')],
      ],
      ['backtest --spot', ['backtest', '--trace', trace, '--spot', '--interruption-scale', '10']],
      ['backtest --outage', ['backtest', '--trace', trace, '--outage', 'us-east-1:peak:120']],
      ['forecast', ['forecast', '--trace', trace]],
      ['suite --variants reference', ['suite', '--trace', trace, '--variants', 'reference']],
      ['commit', ['commit', '--trace', trace, '--one-year', '0.99', '--three-year', '0.62']],
      [
        'tune --candidates 8',
        [
          'tune',
          '--trace',
          trace,
          '--candidates',
          '8',
          '--out',
          join(dir, 't.yaml'),
          '--html',
          join(dir, 't.html'),
        ],
      ],
    ];
    // Exit 1 from tune is a verdict (the tuned policy misses the objective on the held-out part), not a crash.
    console.log('command                      wall s   peak MB  exit  within 1 GB');
    for (const [name, args] of commands) {
      const m = measure(args, dir);
      const peak = m.peakMb === null ? '      -' : m.peakMb.toFixed(0).padStart(7);
      const within = m.peakMb !== null && m.peakMb <= LIMIT_MB ? 'yes' : 'NO';
      console.log(
        `${name.padEnd(26)} ${m.seconds.toFixed(1).padStart(8)}  ${peak}  ${String(m.code).padStart(4)}  ${within}`,
      );
      if (m.code !== 0) console.log(`  stderr: ${m.lastLine.slice(0, 200)}`);
    }
    console.log('history: needs CloudWatch, not run here; its gaps on a year in tests/history/year.test.ts');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
