/**
 * One evaluate tick at scale: 50, 500 and 1,000 SageMaker variant targets in one region, through
 * the real evaluator and adapters over aws-sdk-client-mock (tests/scale/world.ts). Prints, never
 * fails on a slow machine:
 * - the SDK calls of a tick (shared/invocation/tick-calls.ts is their formula);
 * - CPU: the tick with every call answered at once, per target, as a ratio to 50 targets;
 * - modeled: the tick with each call answered after a typical in-region round trip (LATENCY_MS),
 *   calm (every target held) and storm (every target starts a scale-out), per target, and the
 *   targets one invocation gets through in the 43 s its 60 s timeout leaves (docs/scale.md).
 * Figures are ratios to the 50-target run of the same process where they can be.
 */
import { withLatency } from '../tests/scale/latency.ts';
import { countCalls, world } from '../tests/scale/world.ts';

/**
 * Round trips from a Lambda function to regional endpoints, in ms: typical figures, not
 * measured here (a Describe call of the scaling services 50-100 ms, DynamoDB single-digit ms,
 * GetMetricData with 500 queries a few hundred ms).
 */
const LATENCY_MS: Record<string, number> = {
  'SSM.GetParameter': 15,
  'CloudWatch.GetMetricData': 400,
  'SageMaker.DescribeEndpoint': 70,
  'ApplicationAutoScaling.DescribeScalableTargets': 80,
  'ApplicationAutoScaling.DescribeScalingPolicies': 80,
  'DynamoDB.BatchGet': 15,
  'DynamoDB.Get': 6,
  'DynamoDB.Update': 8,
  'DynamoDB.Put': 8,
  'StepFunctions.StartExecution': 40,
};
/** 60 s timeout, less the handler's 2 s reserve and the 15 s a target needs to be started. */
const USABLE_MS = 43_000;
const SIZES = [50, 500, 1000];
const STORM = { InvocationsPerInstance: 250, GPUUtilization: 95, ModelLatency: 1_500_000 };
const fmt = (x: number, digits = 0) => x.toLocaleString('en-US', { maximumFractionDigits: digits });

async function tick(n: number, o: { latency: boolean; storm: boolean }) {
  const w = world(
    { variants: n, conflictEvery: 25 },
    o.latency ? { clients: (c) => withLatency(c, (call) => LATENCY_MS[call] ?? 50) } : {},
  );
  if (o.storm) Object.assign(w.h.metricValues, STORM);
  const t0 = performance.now();
  const report = await w.h.evaluate(
    w.tick(`bench-${n}`, '2025-06-02T12:00:00Z'),
    Date.parse('2025-06-02T12:00:30Z'),
  );
  const ms = performance.now() - t0;
  return {
    ms,
    calls: countCalls(w.h.takeCalls()),
    outcomes: countCalls(report.records.map((r) => r.outcome)),
  };
}

/** The fastest of `runs` (the least disturbed by the machine). */
async function best(n: number, o: { latency: boolean; storm: boolean }, runs: number) {
  let out = await tick(n, o);
  for (let i = 1; i < runs; i++) {
    const next = await tick(n, o);
    if (next.ms < out.ms) out = next;
  }
  return out;
}

export async function run(): Promise<void> {
  await tick(50, { latency: false, storm: false }); // warm-up: module loading, JIT
  console.log('calls per tick (first tick, every target scales out):');
  for (const n of SIZES) {
    const { calls } = await tick(n, { latency: false, storm: true });
    const total = Object.values(calls).reduce((a, b) => a + b, 0);
    console.log(`  ${n} targets: ${fmt(total)} calls  ${JSON.stringify(calls)}`);
  }
  const cpu = new Map<number, number>();
  for (const n of SIZES) cpu.set(n, (await best(n, { latency: false, storm: false }, 3)).ms);
  const base = cpu.get(50)! / 50;
  console.log('CPU (every call answered at once):');
  for (const n of SIZES) {
    const per = cpu.get(n)! / n;
    console.log(
      `  ${n} targets: ${fmt(cpu.get(n)!)} ms, ${fmt(per, 2)} ms a target (${fmt(per / base, 2)}x the 50-target cost)`,
    );
  }
  for (const storm of [false, true]) {
    console.log(
      `modeled latency, ${storm ? 'storm (every target starts a scale-out)' : 'calm (every target held)'}:`,
    );
    let base50 = 0;
    for (const n of SIZES) {
      const r = await best(n, { latency: true, storm }, 1);
      const per = r.ms / n;
      if (n === 50) base50 = per;
      console.log(
        `  ${n} targets: ${fmt(r.ms)} ms, ${fmt(per, 1)} ms a target (${fmt(per / base50, 2)}x the 50-target cost); at this cost ${fmt(Math.floor(USABLE_MS / per))} targets fit in ${USABLE_MS / 1000} s`,
      );
    }
  }
}
