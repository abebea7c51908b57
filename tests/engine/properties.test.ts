/**
 * Invariants of decide() over random policies and random timelines (fast-check): bounds, step
 * limits, no scale-in on missing data, convergence under constant load, monotonicity in load,
 * stabilization and cooldowns. 10,000 runs each on CI, 500 locally (propertyRuns).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decide } from '#shared/engine/decide.ts';
import { describeDecision } from '#shared/engine/message.ts';
import type { Decision, EngineState, SignalSnapshot } from '#shared/engine/types.ts';
import { policyOrThrow } from '#shared/policy/load.ts';
import type { MetricName, TargetPolicy } from '#shared/policy/schema.ts';
import { at, propertyRuns, snapshot } from './harness.ts';

const RUNS = { numRuns: propertyRuns() };
const LOAD_METRICS = ['invocationsPerInstance', 'gpuUtilization', 'queueDepthPerInstance'] as const;

const loadSignalArb = (metric: MetricName) =>
  fc.record({
    metric: fc.constant(metric),
    target: fc.integer({ min: 1, max: 200 }),
    tolerance: fc.constantFrom(0, 0.05, 0.1, 0.2),
  });

const latencyArb = fc.record({
  metric: fc.constant('p95LatencyMs'),
  sloMs: fc.integer({ min: 100, max: 3000 }),
  scaleInBlockFraction: fc.constantFrom(0.5, 0.8, 1),
  maxScaleOutFactor: fc.constantFrom(1.5, 2, 4),
});

const dampingArb = fc
  .record({
    scaleOutBreaches: fc.integer({ min: 1, max: 3 }),
    extraIn: fc.integer({ min: 0, max: 3 }),
    stabilizationPeriods: fc.integer({ min: 1, max: 8 }),
    scaleOutCooldownSeconds: fc.constantFrom(0, 60, 120, 300, 600),
    scaleInCooldownSeconds: fc.constantFrom(0, 60, 300),
    stepUp: fc.record({
      instances: fc.integer({ min: 1, max: 6 }),
      percent: fc.constantFrom(0, 50, 100, 200),
    }),
    stepDown: fc.record({
      instances: fc.integer({ min: 1, max: 3 }),
      percent: fc.constantFrom(0, 10, 20, 50),
    }),
  })
  .map(({ extraIn, stabilizationPeriods, ...d }) => ({
    ...d,
    periodSeconds: 60,
    scaleInBreaches: d.scaleOutBreaches + extraIn,
    scaleInStabilizationSeconds: 60 * stabilizationPeriods,
  }));

const panicArb = fc.record({
  enabled: fc.boolean(),
  threshold: fc.constantFrom(1.5, 2, 3),
  periods: fc.integer({ min: 1, max: 2 }),
  stableWindowSeconds: fc.constantFrom(60, 300, 600),
});

/** Scaling bounds; with `zero`, an inference component that may scale to zero. */
const scalingArb = (zero: boolean) =>
  fc
    .record({ min: fc.integer({ min: zero ? 0 : 1, max: 4 }), span: fc.integer({ min: 0, max: 30 }) })
    .map(({ min, span }) => ({
      minCapacity: zero ? 0 : min,
      maxCapacity: Math.max(1, min + span),
      ...(zero ? { scaleToZero: true, activation: { metric: 'invocations', threshold: min } } : {}),
    }));

interface PolicyOptions {
  latency?: boolean;
  zero?: boolean;
}

const policyArb = ({ latency = true, zero = true }: PolicyOptions = {}): fc.Arbitrary<TargetPolicy> =>
  fc
    .record({
      load: fc
        .subarray([...LOAD_METRICS], { minLength: 1 })
        .chain((metrics) => fc.tuple(...metrics.map(loadSignalArb))),
      latency: latency ? fc.option(latencyArb, { freq: 3 }) : fc.constant(null),
      damping: dampingArb,
      panic: panicArb,
      scaling: fc.boolean().chain((z) => scalingArb(zero && z)),
    })
    .map(({ load, latency: l, damping, panic, scaling }) => {
      const component = scaling.minCapacity === 0;
      const target = {
        id: 'prop',
        region: 'us-east-1',
        endpointName: 'prop-endpoint',
        ...(component
          ? { kind: 'sagemaker-inference-component', inferenceComponentName: 'prop-ic' }
          : { kind: 'sagemaker-variant' }),
        scaling,
        signals: l ? [...load, l] : load,
        damping,
        panic,
      };
      return policyOrThrow({ version: 1, targets: [target] }).targets[0]!;
    });

/** One evaluation: when, what each signal reads (as a multiple of its target, or null), how old. */
interface TickSpec {
  dt: number;
  ratios: (number | null)[];
  ageSeconds: number;
  readyShare: number;
  activation: number | null;
}

const tickArb: fc.Arbitrary<TickSpec> = fc.record({
  dt: fc.constantFrom(1, 1, 1, 1, 1, 2, 3, 0.5),
  ratios: fc.array(fc.option(fc.double({ min: 0, max: 4, noNaN: true }), { freq: 8 }), {
    minLength: 4,
    maxLength: 4,
  }),
  ageSeconds: fc.constantFrom(30, 60, 60, 60, 120, 200),
  readyShare: fc.constantFrom(1, 1, 1, 0.5),
  activation: fc.option(fc.integer({ min: 0, max: 8 }), { freq: 6 }),
});

/** The snapshot a tick describes for a fleet of `current`. */
function snapshotOf(policy: TargetPolicy, tick: TickSpec, now: number, current: number): SignalSnapshot {
  const values: Partial<Record<MetricName, number | null>> = {};
  policy.signals.forEach((s, i) => {
    const r = tick.ratios[i] ?? null;
    values[s.metric] = r === null ? null : r * ('sloMs' in s ? s.sloMs : s.target);
  });
  const ready = Math.floor(current * tick.readyShare);
  return snapshot({
    now,
    desired: current,
    ready,
    values,
    ageSeconds: tick.ageSeconds,
    activation: tick.activation === null ? undefined : { invocations: tick.activation },
  });
}

interface Step {
  policy: TargetPolicy;
  before: EngineState | undefined;
  snap: SignalSnapshot;
  decision: Decision;
  after: EngineState;
  now: number;
  tick: TickSpec;
}

/** Runs the ticks from `start` (clamped into the bounds), capacity following each decision. */
function run(
  policy: TargetPolicy,
  start: number,
  ticks: readonly TickSpec[],
  check: (s: Step) => void,
): void {
  const { minCapacity, maxCapacity } = policy.scaling;
  let current = Math.min(maxCapacity, Math.max(minCapacity, start));
  let state: EngineState | undefined;
  let now = at(0);
  for (const tick of ticks) {
    now += tick.dt * 60_000;
    const snap = snapshotOf(policy, tick, now, current);
    const { decision, state: after } = decide(state, snap, policy, now);
    check({ policy, before: state, snap, decision, after, now, tick });
    state = after;
    current = decision.desiredCapacity;
  }
}

const timelineArb = (options?: PolicyOptions) =>
  fc.tuple(
    policyArb(options),
    fc.integer({ min: 0, max: 34 }),
    fc.array(tickArb, { minLength: 1, maxLength: 24 }),
  );

/**
 * Throws when an invariant fails; fast-check then shrinks and prints the counterexample. Plain
 * throws instead of expect() in the per-tick checks keep 10,000 runs of each property fast.
 */
function check(holds: boolean, what: () => string): void {
  if (!holds) throw new Error(what());
}

const show = (d: Decision) => `${d.currentCapacity} -> ${d.desiredCapacity} [${d.reasons.join(', ')}]`;

/** Whether the test (not the engine) sees a configured signal as missing in this snapshot. */
function anyMissing(policy: TargetPolicy, snap: SignalSnapshot, now: number): boolean {
  return policy.signals.some((s) => {
    const r = snap.readings[s.metric];
    return r === undefined || now - r.timestamp > s.staleAfterSeconds * 1000;
  });
}

describe('decide() invariants', () => {
  it('desired capacity always lies within minCapacity and maxCapacity', () => {
    fc.assert(
      fc.property(timelineArb(), ([policy, start, ticks]) =>
        run(policy, start, ticks, ({ decision }) => {
          const { minCapacity, maxCapacity } = policy.scaling;
          const d = decision.desiredCapacity;
          check(
            d >= minCapacity && d <= maxCapacity,
            () => `${show(decision)} outside ${minCapacity}-${maxCapacity}`,
          );
        }),
      ),
      RUNS,
    );
  });

  it('one period never changes capacity by more than the step limits', () => {
    fc.assert(
      fc.property(timelineArb(), ([policy, start, ticks]) =>
        run(policy, start, ticks, ({ decision }) => {
          const { currentCapacity: c, desiredCapacity: d } = decision;
          const { stepUp, stepDown } = policy.damping;
          const up = Math.max(stepUp.instances, Math.ceil((c * stepUp.percent) / 100));
          const down = Math.max(stepDown.instances, Math.floor((c * stepDown.percent) / 100));
          check(d - c <= up && c - d <= down, () => `${show(decision)} beyond +${up} / -${down}`);
        }),
      ),
      RUNS,
    );
  });

  it('never scales in while a configured signal is missing or stale, nor to zero without activation data', () => {
    fc.assert(
      fc.property(timelineArb(), ([policy, start, ticks]) =>
        run(policy, start, ticks, ({ decision, snap, now }) => {
          const missing = anyMissing(policy, snap, now);
          check(!missing || decision.action !== 'scale-in', () => `${show(decision)} with a signal missing`);
          if (decision.desiredCapacity === 0 && decision.currentCapacity > 0) {
            const a = snap.activation?.invocations;
            const idle = a !== undefined && a.value <= policy.scaling.activation!.threshold;
            check(idle, () => `${show(decision)} with activation ${a?.value ?? 'missing'}`);
          }
        }),
      ),
      RUNS,
    );
  });

  it('scale-in never goes below the highest recommendation of the stabilization window', () => {
    fc.assert(
      fc.property(timelineArb(), ([policy, start, ticks]) =>
        run(policy, start, ticks, ({ decision, before, now }) => {
          if (decision.action !== 'scale-in' || !before) return;
          const from = now - policy.damping.scaleInStabilizationSeconds * 1000;
          const inWindow = before.recommendations.filter(([t]) => t > from && t < now).map(([, c]) => c);
          const highest = Math.max(0, ...inWindow);
          check(decision.desiredCapacity >= highest, () => `${show(decision)} below the window's ${highest}`);
        }),
      ),
      RUNS,
    );
  });

  it('cooldowns hold, except for panic and a scale-out step at least as large as the last', () => {
    fc.assert(
      fc.property(timelineArb(), ([policy, start, ticks]) =>
        run(policy, start, ticks, ({ decision, before, now }) => {
          if (!before) return;
          const { scaleOutCooldownSeconds, scaleInCooldownSeconds } = policy.damping;
          const step = decision.desiredCapacity - decision.currentCapacity;
          const outCooling =
            before.lastScaleOutAt !== null &&
            before.lastScaleInAt === null &&
            now < before.lastScaleOutAt + scaleOutCooldownSeconds * 1000;
          if (outCooling && step > 0 && !decision.reasons.includes('PanicScaleOut')) {
            const last = before.lastScaleOutStep!;
            check(step >= last, () => `${show(decision)} in the scale-out cooldown of a +${last}`);
          }
          const inCooling =
            before.lastScaleInAt !== null && now < before.lastScaleInAt + scaleInCooldownSeconds * 1000;
          check(!inCooling || step >= 0, () => `${show(decision)} in the scale-in cooldown`);
        }),
      ),
      RUNS,
    );
  });

  it('more load never gives less capacity than less load from the same state', () => {
    const arb = fc.tuple(timelineArb(), tickArb, fc.double({ min: 1, max: 3, noNaN: true }));
    fc.assert(
      fc.property(arb, ([[policy, start, ticks], probe, factor]) => {
        let last: { state: EngineState | undefined; current: number; now: number } = {
          state: undefined,
          current: Math.min(policy.scaling.maxCapacity, Math.max(policy.scaling.minCapacity, start)),
          now: at(0),
        };
        run(policy, start, ticks, ({ after, decision, now }) => {
          last = { state: after, current: decision.desiredCapacity, now };
        });
        const now = last.now + probe.dt * 60_000;
        const more: TickSpec = {
          ...probe,
          ratios: probe.ratios.map((r) => (r === null ? null : r * factor)),
          activation: probe.activation === null ? null : Math.ceil(probe.activation * factor),
        };
        const [low, high] = [probe, more].map(
          (t) => decide(last.state, snapshotOf(policy, t, now, last.current), policy, now).decision,
        );
        check(
          high!.desiredCapacity >= low!.desiredCapacity,
          () => `more load ${show(high!)}, less ${show(low!)}`,
        );
      }),
      RUNS,
    );
  });
});

describe('convergence under constant load', () => {
  /**
   * The plant: every request is served at once by ready instances, so each proportional
   * signal reads load_i / capacity and new instances are ready in the same period. A policy
   * that tracks such a plant must settle, then stay put: no limit cycles.
   */
  const arb = fc.tuple(
    policyArb({ latency: false, zero: false }),
    fc.integer({ min: 1, max: 34 }),
    fc.array(fc.double({ min: 0, max: 60, noNaN: true }), { minLength: 3, maxLength: 3 }),
  );
  it('capacity settles and then never changes', () => {
    fc.assert(
      fc.property(arb, ([policy, start, units]) => {
        const { damping, panic } = policy;
        // Periods after which no window, cooldown or count can still be running.
        const quiet =
          Math.max(
            damping.scaleInStabilizationSeconds,
            damping.scaleOutCooldownSeconds,
            damping.scaleInCooldownSeconds,
            panic.stableWindowSeconds,
          ) /
            60 +
          damping.scaleInBreaches +
          2;
        const load = policy.signals.map((s, i) => units[i]! * ('target' in s ? s.target : 1));
        let state: EngineState | undefined;
        let current = Math.min(policy.scaling.maxCapacity, Math.max(policy.scaling.minCapacity, start));
        // Each change waits at most `quiet` periods for the next; capacity moves one way at a time.
        const horizon = quiet * (2 * (policy.scaling.maxCapacity - policy.scaling.minCapacity) + 3);
        let lastChange = 0;
        let t = 1;
        let decision: Decision | undefined;
        for (; t <= horizon && t - lastChange <= 2 * quiet; t++) {
          const values = Object.fromEntries(policy.signals.map((s, i) => [s.metric, load[i]! / current]));
          const result = decide(state, snapshot({ now: at(t), desired: current, values }), policy, at(t));
          state = result.state;
          decision = result.decision;
          if (decision.desiredCapacity !== current) lastChange = t;
          current = decision.desiredCapacity;
        }
        // Settled: nothing moved for twice the longest window, count or cooldown.
        expect(t - lastChange).toBeGreaterThan(2 * quiet);
        // And the place it settled is a fixed point of the tracking rule.
        const { minCapacity, maxCapacity } = policy.scaling;
        const statuses = decision!.signals.map((s) => s.status);
        if (current < maxCapacity) expect(statuses).not.toContain('high');
        const proposals = decision!.signals.map((s) => s.proposal ?? 0);
        if (current > minCapacity && statuses.every((s) => s === 'low')) {
          expect(Math.max(1, ...proposals)).toBeGreaterThanOrEqual(current);
        }
      }),
      RUNS,
    );
  });

  // The backtest decides without the sentence and builds it for its scaling actions only: the
  // decision must be the same, and the sentence built afterwards the one decide() would write.
  it('deciding without the sentence changes nothing but the sentence, which describeDecision gives after', () => {
    fc.assert(
      fc.property(timelineArb(), ([policy, start, ticks]) => {
        run(policy, start, ticks, ({ before, snap, decision, after, now }) => {
          const quiet = decide(before, snap, policy, now, { sentence: false });
          check(
            quiet.decision.message === '',
            () => `message without the sentence: ${quiet.decision.message}`,
          );
          const later = describeDecision(quiet.decision, policy);
          check(later === decision.message, () => `${later} != ${decision.message}`);
          expect({ ...quiet.decision, message: decision.message }).toEqual(decision);
          expect(quiet.state).toEqual(after);
        });
      }),
      { numRuns: Math.min(2_000, propertyRuns()) },
    );
  });
});
