/**
 * Backtest speed: simulated minutes per second on the 27.6-day NASA trace (each policy alone,
 * then all six as `governor backtest` runs them), and the wall time of the whole `npm start`
 * (a fresh node process: load, simulate, table, JSON and HTML). Prints figures; never fails.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildPolicies } from '#shared/backtest/policies/index.ts';
import { runBacktest } from '#shared/backtest/run.ts';
import { buildScenario, buildWorkload, DEFAULT_SCENARIO, oracleCapacity } from '#shared/backtest/scenario.ts';
import { simulate } from '#shared/backtest/simulate.ts';
import { parseTrace } from '#shared/backtest/trace.ts';
import { parsePolicyText } from '#shared/policy/load.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const TRACE = 'traces/nasa_http_1995_jul_per_minute.csv';
const fmt = (x: number, digits = 0) => x.toLocaleString('en-US', { maximumFractionDigits: digits });

function best<T>(runs: number, fn: () => T): { ms: number; value: T } {
  let ms = Number.POSITIVE_INFINITY;
  let value!: T;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    value = fn();
    ms = Math.min(ms, performance.now() - t0);
  }
  return { ms, value };
}

function perPolicy(): void {
  const parsed = parsePolicyText(readFileSync(join(root, 'examples/policy.yaml'), 'utf8'));
  if (!parsed.ok) throw new Error('examples/policy.yaml is invalid');
  const target = parsed.policy.targets[0]!;
  const text = readFileSync(join(root, TRACE), 'utf8');
  const parse = best(3, () => parseTrace(text, TRACE));
  const trace = parse.value;
  const n = trace.requests.length;
  console.log(`trace: ${fmt(n)} minutes, parsed in ${fmt(parse.ms, 1)} ms`);
  const workload = buildWorkload(trace, DEFAULT_SCENARIO);
  const scenario = buildScenario(workload, DEFAULT_SCENARIO, target.instanceCapacity?.requestsPerMinuteAtSlo);
  const oracleInstanceMinutes = oracleCapacity(workload.work, scenario.peakInstances).reduce(
    (a, b) => a + b,
    0,
  );
  const names = buildPolicies({ scenario, work: workload.work }, target).map((p) => p.name);
  names.forEach((name, i) => {
    const { ms } = best(3, () => {
      const policy = buildPolicies({ scenario, work: workload.work }, target)[i]!;
      return simulate(policy, { scenario, workload, oracleInstanceMinutes });
    });
    console.log(
      `  ${name.padEnd(28)} ${fmt(ms, 1).padStart(7)} ms  ${fmt(n / (ms / 1000)).padStart(11)} minutes/s`,
    );
  });
  const all = best(3, () => runBacktest({ trace, target, options: DEFAULT_SCENARIO }));
  const simulated = n * all.value.policies.length;
  console.log(
    `all ${all.value.policies.length} policies: ${fmt(all.ms)} ms, ${fmt(simulated / (all.ms / 1000))} simulated minutes/s`,
  );
}

function npmStart(): void {
  const out = mkdtempSync(join(tmpdir(), 'governor-bench-'));
  const args = ['bin/governor.ts', 'backtest', '--trace', TRACE, '--json', join(out, 'nasa.json')];
  const runs: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    const child = spawnSync(process.execPath, [...args, '--html', join(out, 'nasa.html')], { cwd: root });
    runs.push(performance.now() - t0);
    if (child.status !== 0) {
      console.log(
        `npm start equivalent failed (exit ${child.status}): ${String(child.stderr).split('\n')[0]}`,
      );
      break;
    }
  }
  rmSync(out, { recursive: true, force: true });
  console.log(
    `npm start equivalent (table + JSON + HTML, fresh process): best ${fmt(Math.min(...runs))} ms of ${runs.length}`,
  );
}

export function run(): void {
  perPolicy();
  npmStart();
}
