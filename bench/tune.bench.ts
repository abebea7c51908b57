/**
 * Tune speed: the wall time of `governor tune` on the NASA trace (27.6 days, two thirds trained)
 * with 1,000 candidates on one worker thread per core, and what one candidate costs once the
 * forecasts and noise fits are shared, against a candidate that fits its own (the same process);
 * then 300 candidates with candidates stopped once they cannot qualify (the default) against
 * every candidate run to the end (--full-front), alternating in this process, and whether both
 * tuned the same policy. Prints figures; never fails.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { DIRECT_FITS, lookaheadMemo } from '#shared/backtest/policies/lookahead.ts';
import { referenceScenario } from '#shared/backtest/scenario.ts';
import { parseTrace } from '#shared/backtest/trace.ts';
import { parsePolicyText } from '#shared/policy/load.ts';
import { evaluate } from '#shared/tune/evaluate.ts';
import { SearchDeadlineError } from '#shared/tune/search.ts';
import { tune } from '#shared/tune/tune.ts';

const root = fileURLToPath(new URL('..', import.meta.url));

export async function run(): Promise<void> {
  const text = readFileSync(join(root, 'examples/policy.yaml'), 'utf8');
  const parsed = parsePolicyText(text);
  if (!parsed.ok) throw new Error('examples/policy.yaml is invalid');
  const target = parsed.policy.targets[0]!;
  const raw = (parse(text) as { targets: Record<string, unknown>[] }).targets[0]!;
  const file = 'traces/nasa_http_1995_jul_per_minute.csv';
  const trace = parseTrace(readFileSync(join(root, file), 'utf8'), file);
  const options = referenceScenario(target);
  const training = { ...trace, requests: trace.requests.slice(0, Math.floor(0.67 * trace.requests.length)) };

  let t0 = performance.now();
  evaluate(training, target, options, DIRECT_FITS);
  const direct = performance.now() - t0;
  const memo = lookaheadMemo();
  evaluate(training, target, options, memo);
  t0 = performance.now();
  evaluate(training, target, options, memo);
  const shared = performance.now() - t0;
  console.log(
    `one candidate on NASA's training part (18.5 days): ${direct.toFixed(0)} ms fitting its own forecasts and noise, ${shared.toFixed(0)} ms sharing them (${(direct / shared).toFixed(1)}x)`,
  );

  const workers = availableParallelism();
  const started = Date.now();
  const DEADLINE_MS = 110_000;
  // The search throws at its safety deadline rather than write another policy; on a busy machine
  // that is a figure (how far it got), not a failure of the bench.
  const result = await tune({
    trace,
    raw,
    target,
    options,
    trainFraction: 0.67,
    maxCandidates: 1000,
    expired: () => Date.now() - started > DEADLINE_MS,
    workers,
  }).catch((e: unknown) => {
    if (!(e instanceof SearchDeadlineError)) throw e;
    console.log(
      `governor tune on NASA: not finished within ${DEADLINE_MS / 1000} s on ${workers} worker threads (a busy machine?): ${e.message}`,
    );
    return null;
  });
  if (!result) return;
  const seconds = (Date.now() - started) / 1000;
  const h = result.heldOut;
  const stopped = result.tried.filter((c) => c.figures.stopped).length;
  console.log(
    `governor tune on NASA: ${result.tried.length + result.refused} candidates in ${seconds.toFixed(1)} s on ${workers} worker threads, ${((result.tried.length + result.refused) / seconds).toFixed(1)} candidates/s (stopped: ${result.stoppedBy}; ${stopped} candidates stopped early); held-out tuned ${h.tuned.costVsOracle.toFixed(2)}x / ${h.tuned.violationMinutes}, target tracking ${h.baseline.costVsOracle.toFixed(2)}x / ${h.baseline.violationMinutes}`,
  );

  const walls = { early: [] as number[], full: [] as number[] };
  const tuned: Record<string, string> = {};
  for (let i = 0; i < 2; i++) {
    for (const fullFront of i % 2 ? [true, false] : [false, true]) {
      const t = performance.now();
      const r = await tune({
        trace,
        raw,
        target,
        options,
        trainFraction: 0.67,
        maxCandidates: 300,
        workers,
        fullFront,
      });
      walls[fullFront ? 'full' : 'early'].push(performance.now() - t);
      tuned[String(fullFront)] = JSON.stringify([...r.best.settings]);
    }
  }
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / 1000;
  console.log(
    `300 candidates on NASA, wall time of 2 runs each, alternating: every candidate to the end ${sum(walls.full).toFixed(1)} s, stopped once they cannot qualify ${sum(walls.early).toFixed(1)} s (${(sum(walls.full) / sum(walls.early)).toFixed(2)}x), ${tuned.true === tuned.false ? 'the same tuned policy' : 'TUNED POLICIES DIFFER'}`,
  );
}
