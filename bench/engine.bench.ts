/**
 * Engine speed: decisions per second of decide() for one target with four signals
 * (gpuUtilization, invocationsPerInstance, queueDepthPerInstance, p95LatencyMs) over 14 days of
 * a varying load (diurnal wave, noise, a 3-minute burst every 97 minutes) against a simple
 * plant, beside a trivial proportional loop (ceil(capacity x value / target) over the same
 * signals) timed in the same process; and the time of one tick over 10,000 targets. The aim:
 * >= 200,000 decisions/s on one core. Prints figures; never fails.
 */
import { decide } from '#shared/engine/decide.ts';
import { describeDecision } from '#shared/engine/message.ts';
import type { Decision, EngineState, SignalSnapshot } from '#shared/engine/types.ts';
import { policyOrThrow } from '#shared/policy/load.ts';
import type { TargetPolicy } from '#shared/policy/schema.ts';

const AIM = 200_000;
const MINUTE = 60_000;
const T0 = Date.parse('2025-06-02T00:00:00Z');
const DAYS = 14;
/** Requests per minute one instance serves at the SLO; saturation at 1 / 0.8 of it. */
const MU = 100;
const SATURATION = MU / 0.8;
const fmt = (x: number, digits = 0) => x.toLocaleString('en-US', { maximumFractionDigits: digits });

const POLICY: TargetPolicy = policyOrThrow({
  version: 1,
  targets: [
    {
      id: 'bench',
      kind: 'sagemaker-variant',
      region: 'us-east-1',
      endpointName: 'bench',
      scaling: { minCapacity: 1, maxCapacity: 200 },
      signals: [
        { metric: 'gpuUtilization', target: 70 },
        { metric: 'invocationsPerInstance', target: 70 },
        { metric: 'queueDepthPerInstance', target: 5 },
        { metric: 'p95LatencyMs', sloMs: 2000 },
      ],
      damping: { scaleOutBreaches: 2, scaleInBreaches: 8 },
    },
  ],
}).targets[0]!;

/** Requests per minute over `DAYS` days: a diurnal wave from 300 to 3,000, +-10 % noise, bursts. */
function load(seed: number): Float64Array {
  const n = DAYS * 1440;
  const out = new Float64Array(n);
  let x = seed >>> 0 || 1;
  for (let m = 0; m < n; m++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    const noise = ((x >>> 0) / 2 ** 32 - 0.5) * 0.2;
    const wave = 1650 - 1350 * Math.cos((2 * Math.PI * m) / 1440);
    const burst = m % 97 < 3 ? 2.2 : 1;
    out[m] = wave * (1 + noise) * burst;
  }
  return out;
}

/** What CloudWatch would show for `requests` over `capacity` ready instances (ready at once). */
function observe(requests: number, capacity: number, now: number): SignalSnapshot {
  const u = Math.min(0.99, requests / (capacity * SATURATION));
  const ts = now - MINUTE;
  return {
    capacity: { desired: capacity, ready: capacity },
    readings: {
      gpuUtilization: { value: 100 * u, timestamp: ts },
      invocationsPerInstance: { value: requests / capacity, timestamp: ts },
      queueDepthPerInstance: {
        value: Math.max(0, requests - capacity * SATURATION) / capacity,
        timestamp: ts,
      },
      // An M/M/1-like curve: 400 ms when idle, 2,000 ms (the SLO) at 80 % utilization.
      p95LatencyMs: { value: 400 / (1 - u), timestamp: ts },
    },
  };
}

type Step = (
  state: EngineState | undefined,
  snap: SignalSnapshot,
  now: number,
) => [EngineState | undefined, number];

const engineStep: Step = (state, snap, now) => {
  const r = decide(state, snap, POLICY, now);
  return [r.state, r.decision.desiredCapacity];
};

/** The baseline: the largest ceil(capacity x value / target) of the three load signals, clamped. */
const trivialStep: Step = (state, snap) => {
  const c = snap.capacity.ready;
  const r = snap.readings;
  const want = Math.max(
    Math.ceil((c * r.gpuUtilization!.value) / 70),
    Math.ceil((c * r.invocationsPerInstance!.value) / 70),
    Math.ceil((c * r.queueDepthPerInstance!.value) / 5),
  );
  return [state, Math.min(200, Math.max(1, want))];
};

/** Runs `step` closed-loop over the load for `decisions` periods; returns decisions/s and the path. */
function closedLoop(
  step: Step,
  requests: Float64Array,
  decisions: number,
): { perSecond: number; sum: number } {
  let state: EngineState | undefined;
  let capacity = 20;
  let sum = 0;
  const t0 = performance.now();
  for (let i = 0; i < decisions; i++) {
    const now = T0 + i * MINUTE;
    const [next, desired] = step(state, observe(requests[i % requests.length]!, capacity, now), now);
    state = next;
    capacity = desired;
    sum += desired;
  }
  return { perSecond: decisions / ((performance.now() - t0) / 1000), sum };
}

function oneTarget(): void {
  const requests = load(42);
  const decisions = 400_000;
  // Warm up both loops (JIT), then keep the better of three timed runs of each.
  closedLoop(engineStep, requests, 20_000);
  closedLoop(trivialStep, requests, 20_000);
  let engine = 0;
  let trivial = 0;
  for (let i = 0; i < 3; i++) {
    engine = Math.max(engine, closedLoop(engineStep, requests, decisions).perSecond);
    trivial = Math.max(trivial, closedLoop(trivialStep, requests, decisions).perSecond);
  }
  console.log(
    `one target, 4 signals, ${fmt(decisions)} periods closed-loop: ${fmt(engine)} decisions/s ` +
      `(aim ${fmt(AIM)}: ${engine >= AIM ? 'met' : 'NOT met'}, ${fmt(engine / AIM, 2)}x)`,
  );
  console.log(
    `baseline, trivial ceil(capacity x value / target) loop: ${fmt(trivial)} decisions/s; ` +
      `engine / baseline ${fmt(engine / trivial, 3)} (${fmt(trivial / engine, 1)}x slower for hysteresis, limits, reasons and a sentence)`,
  );
}

function manyTargets(targets: number): void {
  const shared = load(7);
  const n = shared.length;
  const states: (EngineState | undefined)[] = new Array(targets).fill(undefined);
  const capacities = new Float64Array(targets).fill(20);
  const tickMs: number[] = [];
  for (let minute = 0; minute < 90; minute++) {
    const now = T0 + minute * MINUTE;
    const t0 = performance.now();
    for (let t = 0; t < targets; t++) {
      // Each target sees the same shape shifted by its own offset, so their phases differ.
      const requests = shared[(minute + t * 37) % n]!;
      const r = decide(states[t], observe(requests, capacities[t]!, now), POLICY, now);
      states[t] = r.state;
      capacities[t] = r.decision.desiredCapacity;
    }
    tickMs.push(performance.now() - t0);
  }
  // The first 30 ticks warm the JIT and fill the stabilization windows; report the last 60.
  const steady = tickMs.slice(30).sort((a, b) => a - b);
  const median = steady[Math.floor(steady.length / 2)]!;
  console.log(
    `one tick over ${fmt(targets)} targets: median ${fmt(median, 1)} ms, worst ${fmt(steady.at(-1)!, 1)} ms ` +
      `(${fmt((targets / median) * 1000)} decisions/s) over 60 ticks after 30 to warm up`,
  );
}

/**
 * Where decide()'s time goes on holds: the decisions of one closed-loop day split by action,
 * and the cost of building their sentences again (describeDecision) beside a whole decide().
 */
function messages(): void {
  const requests = load(42);
  const decisions: Decision[] = [];
  let state: EngineState | undefined;
  let capacity = 20;
  for (let i = 0; i < 1440; i++) {
    const now = T0 + i * MINUTE;
    const r = decide(state, observe(requests[i]!, capacity, now), POLICY, now);
    state = r.state;
    capacity = r.decision.desiredCapacity;
    decisions.push(r.decision);
  }
  const holds = decisions.filter((d) => d.action === 'hold');
  /** Nanoseconds per sentence: the best of three rounds of about 200,000 each. */
  const time = (list: Decision[]): number => {
    const rounds = Math.ceil(200_000 / list.length);
    let best = Number.POSITIVE_INFINITY;
    let chars = 0;
    for (let run = 0; run < 3; run++) {
      const t0 = performance.now();
      for (let k = 0; k < rounds; k++) for (const d of list) chars += describeDecision(d, POLICY).length;
      best = Math.min(best, ((performance.now() - t0) * 1e6) / (rounds * list.length));
    }
    return chars > 0 ? best : 0;
  };
  const decideNs = 1e9 / closedLoop(engineStep, requests, 200_000).perSecond;
  console.log(
    `one day closed-loop: ${holds.length} of ${decisions.length} decisions hold; the sentence costs ` +
      `${fmt(time(holds))} ns on a hold, ${fmt(time(decisions))} ns on average, ` +
      `beside ${fmt(decideNs)} ns for a whole decide()`,
  );
}

export function run(): void {
  oneTarget();
  messages();
  manyTargets(10_000);
}
