/**
 * Backtest speed: simulated minutes per second on the 27.6-day NASA trace (each policy alone,
 * then all of them as `governor backtest` runs them), each against a plain loop of the reference
 * scenario's tick run in the same process (the "x plain loop" column: machine speed divides
 * out); the whole backtest with the governor's forecasts on a second thread against one thread;
 * the whole backtest against the code of a baseline commit run in the same process,
 * paired (GOVERNOR_BENCH_BASELINE, default f2ba738: before issue 19's speed work; needs git);
 * peak memory; and the wall time of the whole `npm start` (a fresh node process: load,
 * simulate, table, JSON and HTML). Prints figures; never fails.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildPolicies } from '#shared/backtest/policies/index.ts';
import { runBacktest } from '#shared/backtest/run.ts';
import { buildScenario, buildWorkload, DEFAULT_SCENARIO, oracleCapacity } from '#shared/backtest/scenario.ts';
import { simulate } from '#shared/backtest/simulate.ts';
import { parseTrace } from '#shared/backtest/trace.ts';
import { parsePolicyText } from '#shared/policy/load.ts';
import { cpuMs, withBaseline } from './baseline.ts';

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

/**
 * The reference scenario's tick (BACKTEST.md) in a plain loop: target tracking's formula each
 * minute on the last visible datapoint, the fleet as a ring of pending counts, no objects. What
 * a minimal simulator costs on this machine now: the yardstick the figures below are divided by.
 */
function plainLoop(requests: readonly number[], mu: number, muSat: number, cold: number): number {
  const pending = new Int32Array(cold + 1);
  let [ready, backlog, violations] = [40, 0, 0];
  for (let m = 0; m < requests.length; m++) {
    ready += pending[m % (cold + 1)]!;
    pending[m % (cold + 1)] = 0;
    let queued = 0;
    for (const p of pending) queued += p;
    const seen = m >= 2 ? requests[m - 2]! / Math.max(1, ready) : 0;
    const want = Math.max(1, Math.ceil((ready * seen) / (0.5 * muSat) - 1e-9));
    if (want > ready + queued) pending[(m + cold) % (cold + 1)]! += want - ready - queued;
    else if (want < ready) ready = want;
    const r = requests[m]!;
    if (r + backlog > ready * mu) violations++;
    backlog = Math.max(0, backlog + r - ready * muSat);
  }
  return violations;
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
  const plain = best(5, () => plainLoop(trace.requests, scenario.mu, scenario.muSat!, 8)).ms;
  console.log(`plain loop of the reference tick: ${fmt(plain, 2)} ms, ${fmt(n / (plain / 1000))} minutes/s`);
  const names = buildPolicies({ scenario, work: workload.work }, target).map((p) => p.name);
  names.forEach((name, i) => {
    const { ms } = best(3, () => {
      const policy = buildPolicies({ scenario, work: workload.work }, target)[i]!;
      return simulate(policy, { scenario, workload, oracleInstanceMinutes });
    });
    console.log(
      `  ${name.padEnd(32)} ${fmt(ms, 1).padStart(7)} ms  ${fmt(n / (ms / 1000)).padStart(11)} minutes/s  ${fmt(ms / plain, 1).padStart(7)}x plain loop`,
    );
  });
  const all = best(3, () => runBacktest({ trace, target, options: DEFAULT_SCENARIO }));
  const simulated = n * all.value.policies.length;
  console.log(
    `all ${all.value.policies.length} policies: ${fmt(all.ms)} ms, ${fmt(simulated / (all.ms / 1000))} simulated minutes/s, ${fmt(all.ms / plain)}x plain loop; peak resident memory ${fmt(process.resourceUsage().maxRSS / 1024)} MB`,
  );
}

/**
 * The governor's forecasts on a second thread (`governor backtest` on two cores or more) against
 * the same backtest in one thread, alternating in this process, wall time (the thread saves
 * wall time and costs CPU time: it loads its own modules and shares the cores).
 */
function forecastThread(): void {
  const parsed = parsePolicyText(readFileSync(join(root, 'examples/policy.yaml'), 'utf8'));
  if (!parsed.ok) throw new Error('examples/policy.yaml is invalid');
  const target = parsed.policy.targets[0]!;
  const trace = parseTrace(readFileSync(join(root, TRACE), 'utf8'), TRACE);
  const walls = { one: [] as number[], two: [] as number[] };
  for (let i = 0; i < 3; i++) {
    for (const parallel of [false, true]) {
      const t0 = performance.now();
      runBacktest({ trace, target, options: DEFAULT_SCENARIO, parallel });
      walls[parallel ? 'two' : 'one'].push(performance.now() - t0);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[1]!;
  const [one, two] = [median(walls.one), median(walls.two)];
  console.log(
    `whole NASA backtest, wall time: one thread ${fmt(one)} ms, forecasts on a second thread ${fmt(two)} ms (${fmt(one / two, 2)}x; median of 3, alternating; ${availableParallelism()} cores)`,
  );
}

type RunBacktest = typeof runBacktest;

/**
 * The whole backtest against the baseline commit's, alternating in this process (CPU time, so a
 * busy machine slows both alike). Both must give the same result: tests/backtest/identical.test.ts
 * pins that on every bundled trace.
 */
async function againstBaseline(): Promise<void> {
  const commit = process.env.GOVERNOR_BENCH_BASELINE ?? 'f2ba738';
  await withBaseline(commit, async (folder) => {
    const baseline = (await import(join(folder, 'shared/backtest/run.ts'))) as { runBacktest: RunBacktest };
    const parsed = parsePolicyText(readFileSync(join(root, 'examples/policy.yaml'), 'utf8'));
    if (!parsed.ok) throw new Error('examples/policy.yaml is invalid');
    const target = parsed.policy.targets[0]!;
    const trace = parseTrace(readFileSync(join(root, TRACE), 'utf8'), TRACE);
    const spent = { baseline: 0, now: 0 };
    for (let i = 0; i < 2; i++) {
      for (const [name, run] of [
        ['baseline', baseline.runBacktest],
        ['now', runBacktest],
      ] as const) {
        const t0 = cpuMs();
        run({ trace, target, options: DEFAULT_SCENARIO });
        spent[name] += cpuMs() - t0;
      }
    }
    console.log(
      `whole NASA backtest, CPU time: baseline ${commit} ${fmt(spent.baseline / 2)} ms, now ${fmt(spent.now / 2)} ms (${fmt(spent.baseline / spent.now, 2)}x)`,
    );
  });
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

export async function run(): Promise<void> {
  perPolicy();
  forecastThread();
  await againstBaseline();
  npmStart();
}
