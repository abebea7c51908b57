/**
 * The budget ceiling and the capacity mix plan's floor in decide() (fast-check over random
 * timelines): a scale-out never passes the ceiling unless a floor (the mix plan, a failover group,
 * minCapacity) is higher, the floors win over it, a ceiling never causes a scale-in, and a ceiling
 * that cannot bind changes no decision and no state. Without either input decide() is what it was:
 * the backtest suite (tests/suite/bundled.test.ts) pins every cell on that.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decide } from '#shared/engine/decide.ts';
import type { DecisionResult, EngineState, SignalSnapshot } from '#shared/engine/types.ts';
import { policyOrThrow } from '#shared/policy/load.ts';
import type { TargetPolicy } from '#shared/policy/schema.ts';
import { at, propertyRuns, snapshot } from './harness.ts';

const RUNS = { numRuns: propertyRuns() };

/** A variant with one load signal and random damping and bounds. */
const policyArb: fc.Arbitrary<TargetPolicy> = fc
  .record({
    target: fc.integer({ min: 10, max: 200 }),
    min: fc.integer({ min: 1, max: 4 }),
    span: fc.integer({ min: 0, max: 40 }),
    breaches: fc.integer({ min: 1, max: 3 }),
    stepUp: fc.integer({ min: 1, max: 8 }),
    panic: fc.boolean(),
  })
  .map(
    ({ target, min, span, breaches, stepUp, panic }) =>
      policyOrThrow({
        version: 1,
        targets: [
          {
            id: 'budget',
            kind: 'sagemaker-variant',
            region: 'us-east-1',
            endpointName: 'budget-endpoint',
            scaling: { minCapacity: min, maxCapacity: min + span },
            signals: [{ metric: 'invocationsPerInstance', target }],
            damping: {
              periodSeconds: 60,
              scaleOutBreaches: breaches,
              scaleInBreaches: breaches + 1,
              scaleInStabilizationSeconds: 120,
              stepUp: { instances: stepUp, percent: 100 },
            },
            panic: { enabled: panic, threshold: 2, periods: 1, stableWindowSeconds: 60 },
          },
        ],
      }).targets[0]!,
  );

interface Tick {
  /** Load as a multiple of the target (null: no data). */
  ratio: number | null;
  ceiling: number | undefined;
  mixFloor: number | undefined;
  committedFloor: number | undefined;
  failoverFloor: number | undefined;
  forecastFloor: number | undefined;
}

const tickArb: fc.Arbitrary<Tick> = fc.record({
  ratio: fc.option(fc.double({ min: 0, max: 5, noNaN: true }), { freq: 8 }),
  ceiling: fc.option(fc.integer({ min: 0, max: 50 }), { nil: undefined }),
  mixFloor: fc.option(fc.integer({ min: 0, max: 50 }), { nil: undefined, freq: 2 }),
  committedFloor: fc.option(fc.integer({ min: 0, max: 50 }), { nil: undefined, freq: 2 }),
  failoverFloor: fc.option(fc.integer({ min: 0, max: 50 }), { nil: undefined, freq: 4 }),
  forecastFloor: fc.option(fc.integer({ min: 0, max: 50 }), { nil: undefined, freq: 2 }),
});

const timelineArb = fc.tuple(
  policyArb,
  fc.integer({ min: 0, max: 45 }),
  fc.array(tickArb, { maxLength: 20 }),
);

function snapOf(p: TargetPolicy, tick: Tick, now: number, current: number): SignalSnapshot {
  const target = p.signals[0]!;
  const value = tick.ratio === null || !('target' in target) ? null : tick.ratio * target.target;
  return snapshot({
    now,
    desired: current,
    values: { invocationsPerInstance: value },
    ...(tick.forecastFloor !== undefined ? { forecastFloor: tick.forecastFloor } : {}),
    ...(tick.mixFloor !== undefined ? { mixFloor: { capacity: tick.mixFloor } } : {}),
    ...(tick.committedFloor !== undefined ? { committedFloor: { capacity: tick.committedFloor } } : {}),
    ...(tick.failoverFloor !== undefined
      ? { failoverFloor: { capacity: tick.failoverFloor, groupId: 'g', phase: 'steady' } }
      : {}),
    ...(tick.ceiling !== undefined ? { budgetCeiling: { capacity: tick.ceiling, maxUsdPerHour: 10 } } : {}),
  });
}

interface Step {
  current: number;
  snap: SignalSnapshot;
  result: DecisionResult;
}

/** Runs a timeline, capacity following each decision; `edit` may change each snapshot first. */
function run(
  p: TargetPolicy,
  start: number,
  ticks: readonly Tick[],
  edit: (s: SignalSnapshot) => SignalSnapshot = (s) => s,
): Step[] {
  let current = Math.min(p.scaling.maxCapacity, Math.max(p.scaling.minCapacity, start));
  let state: EngineState | undefined;
  const steps: Step[] = [];
  ticks.forEach((tick, i) => {
    const now = at(i + 1);
    const snap = edit(snapOf(p, tick, now, current));
    const result = decide(state, snap, p, now);
    steps.push({ current, snap, result });
    state = result.state;
    current = result.decision.desiredCapacity;
  });
  return steps;
}

const fail = (what: string, s: Step) => {
  const d = s.result.decision;
  return `${what}: ${d.currentCapacity} -> ${d.desiredCapacity} [${d.reasons.join(', ')}]`;
};

describe('the budget ceiling and the mix plan floor', () => {
  it('never scale out past the ceiling unless a floor is higher: the mix plan, the committed base, a failover group or minCapacity', () => {
    fc.assert(
      fc.property(timelineArb, ([p, start, ticks]) => {
        for (const s of run(p, start, ticks)) {
          const ceiling = s.snap.budgetCeiling?.capacity;
          const d = s.result.decision;
          if (ceiling === undefined || d.desiredCapacity <= s.current) continue;
          const floors = Math.max(
            ceiling,
            s.snap.mixFloor?.capacity ?? 0,
            s.snap.committedFloor?.capacity ?? 0,
            s.snap.failoverFloor?.capacity ?? 0,
            p.scaling.minCapacity,
          );
          if (d.desiredCapacity > floors) throw new Error(fail(`above the ceiling ${ceiling}`, s));
        }
      }),
      RUNS,
    );
  });

  it('let the mix plan floor win over the ceiling: a target at its plan is never taken below it for money', () => {
    fc.assert(
      fc.property(timelineArb, ([p, start, ticks]) => {
        for (const s of run(p, start, ticks)) {
          const plan = s.snap.mixFloor?.capacity;
          const d = s.result.decision;
          if (plan === undefined || s.current < plan || plan > p.scaling.maxCapacity) continue;
          if (d.desiredCapacity < plan) throw new Error(fail(`below the plan's ${plan}`, s));
        }
      }),
      RUNS,
    );
  });

  it('never run fewer than the committed base it is paid for, whatever the signals and the ceiling say', () => {
    fc.assert(
      fc.property(timelineArb, ([p, start, ticks]) => {
        for (const s of run(p, start, ticks)) {
          const paid = s.snap.committedFloor?.capacity;
          const d = s.result.decision;
          if (paid === undefined || s.current < paid || paid > p.scaling.maxCapacity) continue;
          if (d.desiredCapacity < paid) throw new Error(fail(`below the committed ${paid}`, s));
        }
      }),
      RUNS,
    );
  });

  it('never cause a scale-in: a ceiling below the current capacity holds it', () => {
    fc.assert(
      fc.property(timelineArb, ([p, start, ticks]) => {
        const capped = run(p, start, ticks);
        for (const s of capped) {
          const d = s.result.decision;
          if (d.reasons.includes('BudgetCapped') && d.desiredCapacity < s.current)
            throw new Error(fail('a scale-in for money', s));
        }
      }),
      RUNS,
    );
  });

  it('change no decision and no state when the ceiling is at or above maxCapacity', () => {
    fc.assert(
      fc.property(timelineArb, fc.integer({ min: 0, max: 10 }), ([p, start, ticks], above) => {
        const ceilingAt = p.scaling.maxCapacity + above;
        const withCeiling = run(p, start, ticks, (s) => ({
          ...s,
          budgetCeiling: { capacity: ceilingAt, maxUsdPerHour: 10 },
        }));
        const without = run(p, start, ticks, ({ budgetCeiling: _dropped, ...s }) => s);
        const strip = ({ result }: Step) => {
          const { budgetCeiling: _c, message: _m, ...decision } = result.decision;
          return { decision, state: result.state };
        };
        expect(withCeiling.map(strip)).toEqual(without.map(strip));
      }),
      { numRuns: Math.min(200, RUNS.numRuns) },
    );
  });

  it.each([
    {
      case: 'scale-out stopped at the ceiling',
      current: 8,
      ratio: 2,
      ceiling: 11,
      want: [11, 'BudgetCapped'],
    },
    {
      case: 'above the ceiling already: held, not scaled in',
      current: 12,
      ratio: 2,
      ceiling: 11,
      want: [12, 'BudgetCapped'],
    },
    {
      case: 'the mix plan above the ceiling wins',
      current: 8,
      ratio: 2,
      ceiling: 9,
      mixFloor: 10,
      want: [10, 'MixPlanFloor'],
    },
    {
      case: 'a ceiling below minCapacity holds the target at minCapacity',
      current: 2,
      ratio: 2,
      ceiling: 1,
      want: [2, 'BudgetCapped'],
    },
  ])('$case', ({ current, ratio, ceiling, mixFloor, want }) => {
    const p = policyOrThrow({
      version: 1,
      targets: [
        {
          id: 'budget',
          kind: 'sagemaker-variant',
          region: 'us-east-1',
          endpointName: 'e',
          scaling: { minCapacity: 2, maxCapacity: 40 },
          signals: [{ metric: 'invocationsPerInstance', target: 100 }],
          damping: { scaleOutBreaches: 1, stepUp: { instances: 20, percent: 200 } },
        },
      ],
    }).targets[0]!;
    const snap = snapshot({
      now: at(1),
      desired: current,
      values: { invocationsPerInstance: ratio * 100 },
      budgetCeiling: { capacity: ceiling, maxUsdPerHour: 10 },
      ...(mixFloor !== undefined ? { mixFloor: { capacity: mixFloor } } : {}),
    });
    const d = decide(undefined, snap, p, at(1)).decision;
    expect([d.desiredCapacity, d.reasons.at(-1)]).toEqual(want);
  });
});
