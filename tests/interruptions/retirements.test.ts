/**
 * planRetirements (shared/interruptions/retirements.ts): the retirements in flight against their
 * group as read, as a table of the cases an operator meets, then properties over random groups:
 * each entry lands in exactly one bucket, nothing is terminated that would leave its group short
 * of what it serves without the surge, and a plan carried out is cleared by the next one.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  leavingGroup,
  planRetirements,
  RETIREMENT_OVERDUE_MS,
  type RetirementGroup,
} from '#shared/interruptions/retirements.ts';
import type { Retiring } from '#shared/interruptions/state.ts';

const T0 = Date.parse('2026-01-05T12:00:00Z');
const MIN = 60_000;
const i = (n: number) => `i-${n.toString(16).padStart(17, '0')}`;
const G = 'gpu-asg';

/** A group of desired `desired`: `states` by instance number. */
const group = (desired: number, states: Record<number, string>): RetirementGroup => ({
  desired,
  instances: new Map(Object.entries(states).map(([n, s]) => [i(Number(n)), s])),
});
const inService = (from: number, to: number, state = 'InService') =>
  Object.fromEntries(Array.from({ length: to - from + 1 }, (_, k) => [from + k, state]));
const retiring = (ns: number[], at = T0, g = G): Record<string, Retiring> =>
  Object.fromEntries(ns.map((n) => [i(n), { at, group: g }]));

describe('planRetirements', () => {
  it.each([
    {
      case: 'replacements still launching: both kept, waiting',
      group: group(12, { ...inService(1, 10), 11: 'Pending', 12: 'Pending' }),
      now: T0 + 10 * MIN,
      terminate: [],
      waiting: [1, 2],
      reasons: ['RetirementWaiting'],
    },
    {
      case: 'the replacements serve: both terminated (the worked example)',
      group: group(12, inService(1, 12)),
      now: T0 + 10 * MIN,
      terminate: [1, 2],
      waiting: [],
      reasons: ['RetirementTerminated'],
    },
    {
      case: 'one replacement serves of two: neither yet (the group would be one short)',
      group: group(12, { ...inService(1, 11), 12: 'Pending' }),
      now: T0 + 10 * MIN,
      terminate: [],
      waiting: [1, 2],
      reasons: ['RetirementWaiting'],
    },
    {
      case: 'a scale-in took the surge back meanwhile (desired 10): they may go',
      group: group(10, inService(1, 10)),
      now: T0 + 10 * MIN,
      terminate: [1, 2],
      waiting: [],
      reasons: ['RetirementTerminated'],
    },
    {
      case: 'waiting for an hour: overdue, still kept',
      group: group(12, { ...inService(1, 10), 11: 'Pending', 12: 'Pending' }),
      now: T0 + RETIREMENT_OVERDUE_MS,
      terminate: [],
      waiting: [1, 2],
      overdue: [1, 2],
      reasons: ['RetirementWaiting', 'RetirementOverdue'],
    },
  ])('$case', ({ group: g, now, terminate, waiting, reasons, ...rest }) => {
    const p = planRetirements(retiring([1, 2]), new Map([[G, g]]), now);
    expect(p.terminate).toEqual(terminate.map((n) => ({ instanceId: i(n), group: G })));
    expect(p.waiting).toEqual(waiting.map(i));
    expect(p.overdue).toEqual(('overdue' in rest ? (rest.overdue as number[]) : []).map(i));
    expect(p.gone).toEqual([]);
    expect(p.reasons).toEqual(reasons);
  });

  it('clears what is no longer in its group, leaving or gone, and a group that is gone, calling nothing for them', () => {
    const p = planRetirements(
      { ...retiring([1, 2, 3]), ...retiring([9], T0, 'deleted-asg') },
      new Map<string, RetirementGroup | null>([
        [G, group(10, { 1: 'Terminating:Wait', 2: 'Detached', 4: 'InService' })],
        ['deleted-asg', null],
      ]),
      T0 + 5 * MIN,
    );
    expect(p.gone).toEqual([i(1), i(2), i(3), i(9)]);
    expect(p.terminate).toEqual([]);
    expect(p.reasons).toEqual(['RetirementGone']);
    expect(p.message).toBe(
      `Cleared 4 retirements no longer in their group: ${[1, 2, 3, 9].map(i).join(', ')}.`,
    );
  });

  it('a group that could not be read waits, and is not counted overdue for it', () => {
    const p = planRetirements(retiring([1]), new Map(), T0 + 2 * RETIREMENT_OVERDUE_MS);
    expect([p.waiting, p.overdue, p.terminate]).toEqual([[i(1)], [], []]);
  });

  it('says what it does in one sentence', () => {
    const p = planRetirements(retiring([1, 2]), new Map([[G, group(12, inService(1, 12))]]), T0);
    expect(p.message).toBe(
      `Terminating 2 retiring instances, decrementing desired capacity, since their group serves without them: ${i(1)}, ${i(2)}.`,
    );
  });

  it('reads every leaving LifecycleState of the API as leaving, and no other', () => {
    const leaving = [
      'Terminating',
      'Terminating:Wait',
      'Terminating:Proceed',
      'Terminating:Retained',
      'Terminated',
      'Detaching',
      'Detached',
      'Warmed:Terminating',
      'Warmed:Terminated',
    ];
    const staying = [
      'Pending',
      'Pending:Wait',
      'InService',
      'Standby',
      'EnteringStandby',
      'Quarantined',
      'Warmed:Running',
    ];
    expect(leaving.every(leavingGroup)).toBe(true);
    expect(staying.some(leavingGroup)).toBe(false);
  });
});

const STATES = ['InService', 'InService', 'InService', 'Pending', 'Terminating', 'Detached', 'Standby'];
const world = fc
  .record({
    members: fc.array(fc.constantFrom(...STATES), { minLength: 0, maxLength: 30 }),
    retiringPick: fc.array(fc.integer({ min: 0, max: 40 }), { maxLength: 8 }),
    surplus: fc.integer({ min: -3, max: 6 }),
    ageMin: fc.integer({ min: 0, max: 180 }),
  })
  .map(({ members, retiringPick, surplus, ageMin }) => {
    const states = Object.fromEntries(members.map((s, n) => [n, s]));
    const g = group(Math.max(0, members.length + surplus), states);
    return { g, entries: retiring([...new Set(retiringPick)], T0), now: T0 + ageMin * MIN };
  });

describe('planRetirements, properties', () => {
  it('puts every entry in exactly one of terminate, gone and waiting; overdue only among the waiting', () => {
    fc.assert(
      fc.property(world, ({ g, entries, now }) => {
        const p = planRetirements(entries, new Map([[G, g]]), now);
        const all = [...p.terminate.map((x) => x.instanceId), ...p.gone, ...p.waiting].sort();
        expect(all).toEqual(Object.keys(entries).sort());
        expect(p.overdue.every((id) => p.waiting.includes(id))).toBe(true);
      }),
      { seed: 18_1, numRuns: 500 },
    );
  });

  it('terminates only instances in the group, and only when the others in service fill desired less them', () => {
    fc.assert(
      fc.property(world, ({ g, entries, now }) => {
        const p = planRetirements(entries, new Map([[G, g]]), now);
        if (p.terminate.length === 0) return;
        const going = new Set(p.terminate.map((x) => x.instanceId));
        for (const id of going) expect(leavingGroup(g.instances.get(id)!)).toBe(false);
        const others = [...g.instances].filter(([id, s]) => s === 'InService' && !(id in entries)).length;
        expect(others).toBeGreaterThanOrEqual(g.desired - going.size);
      }),
      { seed: 18_2, numRuns: 500 },
    );
  });

  it('converges: a plan carried out (terminated instances Terminating, desired decremented) leaves nothing to terminate again', () => {
    fc.assert(
      fc.property(world, ({ g, entries, now }) => {
        const first = planRetirements(entries, new Map([[G, g]]), now);
        const instances = new Map(g.instances);
        for (const x of first.terminate) instances.set(x.instanceId, 'Terminating');
        const after = { desired: g.desired - first.terminate.length, instances };
        const left = Object.fromEntries(Object.entries(entries).filter(([id]) => !first.gone.includes(id)));
        const second = planRetirements(left, new Map([[G, after]]), now + 5 * MIN);
        expect(second.terminate).toEqual([]);
        expect(second.gone.sort()).toEqual(first.terminate.map((x) => x.instanceId).sort());
      }),
      { seed: 18_3, numRuns: 500 },
    );
  });
});
