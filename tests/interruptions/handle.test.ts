/** handleSpotBatch as timelines: replacements once, rebalances recorded, pools left out, the breaker. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SpotEvent } from '#shared/interruptions/events.ts';
import { handleSpotBatch } from '#shared/interruptions/handle.ts';
import { availabilityAt, type SpotState } from '#shared/interruptions/state.ts';
import {
  at,
  instance,
  mixPolicy,
  planFor,
  propertyRuns,
  rebalance,
  retirement,
  shortage,
  warning,
} from './harness.ts';

const policy = mixPolicy({
  interruptions: {
    poolUnavailableMinutes: 30,
    breaker: { reclaimedPercent: 20, windowMinutes: 10, openMinutes: 60 },
  },
});
const plan = planFor(20, policy);
const step = (state: SpotState | null, events: SpotEvent[], now: number) =>
  handleSpotBatch({ state, events, policy, plan, now });
const replaced = (r: ReturnType<typeof step>) =>
  r.actions.flatMap((a) => (a.kind === 'replace' ? a.instanceIds : []));

describe('handleSpotBatch', () => {
  it('the plan of the harness runs spot in the three pools (what the breaker counts against)', () => {
    expect(plan.spot).toBeGreaterThanOrEqual(5);
  });

  it('asks for the replacement of each warned instance once, in one action; a retirement is decided apart', () => {
    const r = step(null, [warning(1), warning(2), retirement(3), warning(1, 0.5, 'again')], at(1));
    expect(r.actions.filter((a) => a.kind === 'replace')).toHaveLength(1);
    expect(replaced(r).sort()).toEqual([instance(1), instance(2)]);
    expect(r.duplicates).toEqual(['again']);
    expect(r.decisions.map((d) => d.reasons[0])).toEqual([
      'InstanceReplaced',
      'RetirementStarted',
      'DuplicateIgnored',
    ]);
    expect(r.decisions[0]!.message).toMatch(/replace 2 instances .*2 interruption warnings/);
    // No group given (shadow mode): said, nothing raised, nothing recorded as retiring.
    expect(r.decisions[1]!.message).toMatch(/^Would raise the group's desired capacity by 1 /);
    expect(r.actions.some((a) => a.kind === 'retire')).toBe(false);
    expect(r.state.retiring).toEqual({});
  });

  it('a retirement on the group as read back: raised by one up to MaxSize and recorded retiring, the rest terminated at once', () => {
    const group = { name: 'gpu-asg', health: { desired: 9, inService: 9, maxSize: 10 } };
    const r = handleSpotBatch({
      state: null,
      events: [retirement(4), retirement(3)],
      policy,
      plan,
      now: at(2),
      group,
    });
    expect(r.actions).toEqual([
      {
        kind: 'retire',
        groupName: 'gpu-asg',
        surged: [instance(3)],
        terminateNow: [instance(4)],
        desired: 10,
      },
    ]);
    expect(r.state.retiring).toEqual({ [instance(3)]: { at: at(2), group: 'gpu-asg' } });
    expect(r.decisions[0]!.reasons).toEqual(['RetirementStarted', 'RetiredAtMaxSize']);
    expect(r.decisions[0]!.message).toMatch(
      /^Raised the group's desired capacity from 9 to 10 for 1 scheduled retirements: .*; terminated 1 retiring instances at once, without decrementing, since the group is at its MaxSize/,
    );
    // Delivered again while it waits for its replacement (still in its group): a duplicate, nothing raised.
    const again = handleSpotBatch({
      state: r.state,
      events: [retirement(3)],
      policy,
      plan,
      now: at(3),
      group,
    });
    expect(again.actions).toEqual([]);
    expect(again.duplicates).toHaveLength(1);
  });

  it('an instance warned and then retired in a later batch is not replaced again', () => {
    const first = step(null, [warning(1)], at(0));
    const later = step(first.state, [retirement(1, 5)], at(5));
    expect(replaced(later)).toEqual([]);
    expect(later.decisions[0]!.reasons).toEqual(['DuplicateIgnored']);
  });

  it('a rebalance recommendation is recorded and replaces nothing, and says so', () => {
    const r = step(null, [rebalance(7)], at(0));
    expect(r.actions).toEqual([]);
    expect(r.decisions[0]!.reasons).toEqual(['RebalanceRecorded']);
    expect(r.decisions[0]!.message).toMatch(/no replacement asked for/);
  });

  it('a spot shortage in g6.2xlarge leaves it out for 30 min and shifts its spot elsewhere', () => {
    const r = step(null, [shortage('g6.2xlarge', 0)], at(1));
    expect(r.state.poolsUnavailableUntil).toEqual({ 'g6.2xlarge': at(30) });
    expect(availabilityAt(r.state, at(29)).unavailablePools).toEqual(['g6.2xlarge']);
    expect(availabilityAt(r.state, at(30)).unavailablePools).toEqual([]);
    const shift = r.actions.find((a) => a.kind === 'shift');
    expect(shift && shift.kind === 'shift' && (shift.plan.spotByPool['g6.2xlarge'] ?? 0)).toBe(0);
    expect(r.decisions.map((d) => d.reasons[0])).toEqual(['PoolUnavailable', 'MixShifted']);
  });

  it('a shortage of spot as a whole leaves every pool out, and the same event again does nothing', () => {
    const r = step(null, [shortage(null, 0, 'e1')], at(0));
    expect(r.state.spotUnavailableUntil).toBe(at(30));
    expect(availabilityAt(r.state, at(1)).unavailablePools).toEqual([
      'g5.2xlarge',
      'g6.2xlarge',
      'g6e.xlarge',
    ]);
    const shift = r.actions.find((a) => a.kind === 'shift');
    expect(shift?.kind === 'shift' && shift.plan.spot).toBe(0);
    const again = step(r.state, [shortage(null, 0, 'e1')], at(2));
    expect(again.actions).toEqual([]);
    expect(again.duplicates).toEqual(['e1']);
  });

  it('a failed launch that is not a spot shortage is recorded and shifts nothing', () => {
    const other: SpotEvent = {
      ...shortage('g5.2xlarge'),
      shortage: null,
      message: 'launch template not found',
    } as SpotEvent;
    const r = step(null, [other], at(0));
    expect(r.actions).toEqual([]);
    expect(r.decisions[0]!.reasons).toEqual(['LaunchFailedOther']);
  });

  it('opens the breaker when more than 20 % of the plan spot is warned within 10 min, once, for 60 min', () => {
    const limit = Math.floor((plan.spot * 20) / 100);
    const atLimit = step(
      null,
      Array.from({ length: limit }, (_, i) => warning(i, 0)),
      at(1),
    );
    expect(atLimit.actions.some((a) => a.kind === 'breaker-opened')).toBe(false);
    const over = step(atLimit.state, [warning(100, 2)], at(2));
    expect(over.actions.filter((a) => a.kind === 'breaker-opened')).toEqual([
      { kind: 'breaker-opened', until: at(62) },
    ]);
    const shift = over.actions.find((a) => a.kind === 'shift');
    expect(shift?.kind === 'shift' && shift.plan.spot).toBe(0);
    expect(over.decisions.find((d) => d.kind === 'breaker')!.message).toMatch(
      /Opened the spot breaker until 01:02 UTC/,
    );
    const more = step(over.state, [warning(200, 3), warning(201, 3)], at(3));
    expect(more.actions.map((a) => a.kind)).toEqual(['replace']);
    expect(availabilityAt(more.state, at(61.9)).breakerOpen).toBe(true);
    expect(availabilityAt(more.state, at(62)).breakerOpen).toBe(false);
  });

  it('warnings spread beyond the window do not open the breaker', () => {
    let state: SpotState | null = null;
    for (let m = 0; m < 200; m += 11) {
      const r = step(state, [warning(m, m)], at(m));
      expect(r.actions.some((a) => a.kind === 'breaker-opened')).toBe(false);
      state = r.state;
    }
  });

  it('without a plan in force it replaces, marks the pool and says there is nothing to shift', () => {
    const r = handleSpotBatch({
      state: null,
      events: [warning(1), shortage('g5.2xlarge')],
      policy,
      plan: null,
      now: at(0),
    });
    expect(r.actions.map((a) => a.kind)).toEqual(['replace']);
    expect(r.decisions.at(-1)!.reasons).toEqual(['NoPlanInForce']);
  });

  it('if the shift fails, the state to keep has the replacements but not the pool, so a redelivery shifts again', () => {
    const r = step(null, [warning(1), shortage('g6.2xlarge', 0, 'e2')], at(0));
    expect(r.stateIfShiftFails.handled).toEqual({ [instance(1)]: at(0) });
    expect(r.stateIfShiftFails.poolsUnavailableUntil).toEqual({});
    const redelivered = step(r.stateIfShiftFails, [warning(1), shortage('g6.2xlarge', 0, 'e2')], at(1));
    expect(redelivered.actions.map((a) => a.kind)).toEqual(['shift']);
  });
});

/** Batches of events over two hours, duplicates included (instances drawn from a small set). */
const eventArb = fc.oneof(
  fc
    .record({ n: fc.integer({ min: 0, max: 30 }), m: fc.integer({ min: 0, max: 120 }) })
    .map(({ n, m }) => warning(n, m)),
  fc
    .record({ n: fc.integer({ min: 0, max: 30 }), m: fc.integer({ min: 0, max: 120 }) })
    .map(({ n, m }) => retirement(n, m)),
  fc
    .record({ n: fc.integer({ min: 0, max: 30 }), m: fc.integer({ min: 0, max: 120 }) })
    .map(({ n, m }) => rebalance(n, m)),
  fc
    .record({
      t: fc.constantFrom('g5.2xlarge', 'g6.2xlarge', 'g6e.xlarge', null),
      m: fc.integer({ min: 0, max: 120 }),
    })
    .map(({ t, m }) => shortage(t, m)),
);
const timeline = fc.array(fc.array(eventArb, { maxLength: 12 }), { minLength: 1, maxLength: 15 });

/** Runs batches in time order: each batch is handled at the latest of its events' times. */
function replay(batches: SpotEvent[][]) {
  let state: SpotState | null = null;
  let now = at(0);
  return batches.map((events) => {
    now = Math.max(now, ...events.map((e) => e.at));
    const r = step(state, events, now);
    state = r.state;
    return { r, now };
  });
}

describe('handleSpotBatch properties', () => {
  it('never replaces an instance twice', () => {
    fc.assert(
      fc.property(timeline, (batches) => {
        const all = replay(batches).flatMap(({ r }) => replaced(r));
        expect(new Set(all).size).toBe(all.length);
      }),
      { numRuns: propertyRuns() },
    );
  });

  it('the breaker never lets spot back before openMinutes', () => {
    fc.assert(
      fc.property(timeline, fc.integer({ min: 0, max: 59 }), (batches, probe) => {
        for (const { r, now } of replay(batches))
          for (const a of r.actions)
            if (a.kind === 'breaker-opened') {
              expect(a.until - now).toBe(60 * 60_000);
              expect(availabilityAt(r.state, now + probe * 60_000).breakerOpen).toBe(true);
            }
      }),
      { numRuns: propertyRuns() },
    );
  });

  it('a batch handled again (every event a duplicate) gives no action', () => {
    fc.assert(
      fc.property(timeline, (batches) => {
        const runs = replay(batches);
        const last = runs.at(-1)!;
        const again = step(last.r.state, batches.at(-1)!, last.now);
        // The breaker is judged on the stored warnings, not on the batch: a duplicate adds none.
        expect(again.actions).toEqual([]);
      }),
      { numRuns: propertyRuns() },
    );
  });

  it('a pool marked unavailable gets no spot in the shifted plan', () => {
    fc.assert(
      fc.property(timeline, (batches) => {
        for (const { r, now } of replay(batches))
          for (const a of r.actions)
            if (a.kind === 'shift')
              for (const type of availabilityAt(r.state, now).unavailablePools)
                expect(a.plan.spotByPool[type] ?? 0).toBe(0);
      }),
      { numRuns: propertyRuns() },
    );
  });
});
