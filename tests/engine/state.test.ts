/**
 * The engine state goes out to DynamoDB and comes back between periods: every state decide()
 * returns must survive JSON and EngineStateSchema unchanged, and a run that reloads its state
 * every period must decide exactly as one that keeps it in memory.
 */
import { describe, expect, it } from 'vitest';
import { decide } from '#shared/engine/decide.ts';
import { type EngineState, EngineStateSchema, initialState } from '#shared/engine/types.ts';
import { at, runTimeline, snapshot, type Tick, targetPolicy } from './harness.ts';

/** A busy hour: a ramp, a panic burst, a gap in the data, then a long quiet fall. */
const load = (t: number): number | null =>
  t === 20 || t === 21 ? null : t < 10 ? 60 + 8 * t : t < 15 ? 320 : t < 30 ? 120 : 40;

const policy = targetPolicy({
  scaling: { minCapacity: 1, maxCapacity: 40 },
  signals: [
    { metric: 'invocationsPerInstance', target: 100 },
    { metric: 'p95LatencyMs', sloMs: 2000 },
  ],
});

/** Per-instance invocations each minute, and a p95 that climbs with them. */
function ticks(): Tick[] {
  return Array.from({ length: 60 }, (_, t) => {
    const total = load(t);
    return { t, values: total === null ? {} : { invocationsPerInstance: total, p95LatencyMs: 10 * total } };
  });
}

const reload = (s: EngineState): EngineState => EngineStateSchema.parse(JSON.parse(JSON.stringify(s)));

describe('engine state round trip', () => {
  const run = runTimeline(policy, 2, ticks());

  it('the timeline exercises scale-out, scale-in, panic and missing data', () => {
    const seen = new Set(run.decisions.flatMap((d) => [d.action, ...d.reasons]));
    for (const x of ['scale-out', 'scale-in', 'PanicScaleOut', 'NoData', 'ScaleInBreach'])
      expect(seen).toContain(x);
  });

  it('every state the engine returns parses through EngineStateSchema unchanged', () => {
    for (const state of run.states) expect(reload(state)).toEqual(state);
  });

  it('reloading the state every period gives the same decisions as keeping it in memory', () => {
    let state: EngineState | undefined;
    let current = 2;
    const reloaded = ticks().map((tick) => {
      const snap = snapshot({ now: at(tick.t), desired: current, values: tick.values });
      const result = decide(state, snap, policy, at(tick.t));
      state = reload(result.state);
      current = result.decision.desiredCapacity;
      return result.decision;
    });
    expect(reloaded).toEqual(run.decisions);
  });

  it('no previous state decides as the initial state does', () => {
    const snap = snapshot({ now: at(0), desired: 4, values: { invocationsPerInstance: 150 } });
    expect(decide(undefined, snap, policy, at(0))).toEqual(decide(initialState(), snap, policy, at(0)));
  });

  it('decide never changes the state it is given', () => {
    const before = run.states[30]!;
    const copy = structuredClone(before);
    decide(
      before,
      snapshot({ now: at(31), desired: 5, values: { invocationsPerInstance: 300 } }),
      policy,
      at(31),
    );
    expect(before).toEqual(copy);
  });
});

describe('EngineStateSchema rejects what the engine never writes', () => {
  it.each([
    { case: 'an unknown field', patch: { extra: 1 } },
    { case: 'another version', patch: { version: 2 } },
    { case: 'a negative streak', patch: { outStreak: -1 } },
    { case: 'a fractional streak', patch: { inStreak: 1.5 } },
    { case: 'a recommendation that is not a pair', patch: { recommendations: [[1]] } },
    { case: 'a negative recommended capacity', patch: { recommendations: [[1, -2]] } },
    { case: 'a missing field', patch: { panicUntil: undefined } },
  ])('$case', ({ patch }) => {
    expect(EngineStateSchema.safeParse({ ...initialState(), ...patch }).success).toBe(false);
  });
});
