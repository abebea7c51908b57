/**
 * Scheduled actions from the floor schedule: Governor's names, the staircase of MinCapacity
 * (up at a ramp's start, down after a sustained drop, back to the baseline), the bound on their
 * number, and reconciling with what exists without touching anyone else's actions.
 */
import { describe, expect, it } from 'vitest';
import {
  actionName,
  atExpression,
  type ExistingAction,
  isGovernorAction,
  MAX_ACTIONS,
  type PlanInput,
  type PlannedAction,
  planActions,
  rampThreshold,
  reconcile,
} from '#shared/floors/scheduled-actions.ts';

const T0 = Date.parse('2025-06-02T12:00:00Z');
const MIN = 60_000;
const STEP = 5 * MIN;

describe('names and schedules', () => {
  it('names an action governor-<targetId>-<yyyymmddThhmm> in UTC and schedules it with at()', () => {
    expect(actionName('chat-llm', Date.parse('2025-06-02T13:05:00Z'))).toBe(
      'governor-chat-llm-20250602T1305',
    );
    expect(atExpression(Date.parse('2025-06-02T13:05:00Z'))).toBe('at(2025-06-02T13:05:00)');
  });

  it.each([
    { name: 'governor-chat-llm-20250602T1305', ours: true },
    { name: 'governor-chat-llm-p95-20250602T1305', ours: false },
    { name: 'governor-chat-20250602T1305', ours: false },
    { name: 'governor-chat-llm-20250602T1305-manual', ours: false },
    { name: 'governor-chat-llm-nightly', ours: false },
    { name: 'scale-up-for-launch', ours: false },
    { name: 'Governor-chat-llm-20250602T1305', ours: false },
  ])('$name is Governor’s for chat-llm: $ours', ({ name, ours }) => {
    expect(isGovernorAction(name, 'chat-llm')).toBe(ours);
  });

  it.each([
    { max: 10, n: 1 },
    { max: 20, n: 1 },
    { max: 21, n: 2 },
    { max: 80, n: 4 },
    { max: 1000, n: 50 },
  ])('only ramps of $n or more instances get an action with maxCapacity $max', ({ max, n }) => {
    expect(rampThreshold(max)).toBe(n);
  });
});

/** A floor from step levels, starting at T0 (now is 30 s into step 0 unless said). */
const input = (capacities: number[], over: Partial<PlanInput> = {}): PlanInput => ({
  targetId: 'chat-llm',
  floor: { quantile: 'p90', computedAt: T0, startsAt: T0, stepMinutes: 5, leadTimeMinutes: 10, capacities },
  baseline: 1,
  maxCapacity: 20,
  liveMinCapacity: 1,
  now: T0 + 30_000,
  ...over,
});
const steps = (actions: PlannedAction[]) =>
  actions.map((a) => [Math.round((a.at - T0) / STEP), a.minCapacity]);
const repeat = (value: number, n: number) => new Array<number>(n).fill(value);

describe('planActions', () => {
  it.each([
    {
      case: 'the module example: up to 4, to 6, down to 2 after the drop holds 30 minutes, then to 1',
      floor: [1, 1, 4, 6, 6, 6, ...repeat(2, 6), ...repeat(1, 6)],
      expected: [
        [2, 4],
        [3, 6],
        [6, 2],
        [12, 1],
      ],
    },
    {
      case: 'a flat floor at the baseline needs no action',
      floor: repeat(1, 300),
      expected: [],
    },
    {
      case: 'a dip shorter than 30 minutes keeps MinCapacity up',
      floor: [1, 6, 6, 2, 2, 6, 6, ...repeat(6, 6), ...repeat(1, 6)],
      expected: [
        [1, 6],
        [13, 1],
      ],
    },
    {
      case: 'a drop to within N of the baseline goes back to the baseline',
      floor: [1, 8, ...repeat(2, 6)],
      over: { maxCapacity: 40 },
      expected: [
        [1, 8],
        [2, 1],
      ],
    },
    {
      case: 'a rise smaller than N is left to the evaluator',
      floor: [1, 4, 4, 8, 8, ...repeat(1, 6)],
      over: { maxCapacity: 80 },
      expected: [
        [3, 8],
        [5, 1],
      ],
    },
    {
      case: 'a floor below the baseline or above the max is clamped to them',
      floor: [0, 0, 30, 30],
      expected: [[2, 20]],
    },
    {
      case: 'a drop at the end of the schedule without 30 minutes to confirm it stays up',
      floor: [1, 5, 5, 1, 1],
      expected: [[1, 5]],
    },
  ])('$case', ({ floor, over, expected }) => {
    expect(steps(planActions(input(floor, over)).actions)).toEqual(expected);
  });

  it('names each action after its time', () => {
    const { actions } = planActions(input([1, 1, 4]));
    expect(actions).toEqual([{ name: 'governor-chat-llm-20250602T1210', at: T0 + 10 * MIN, minCapacity: 4 }]);
  });

  it.each([
    { case: 'the registered MinCapacity equals the level now: nothing to assert', live: 6, expected: [] },
    {
      case: 'the registered MinCapacity is lower: raised at the next whole minute + 1',
      live: 1,
      expected: [{ name: 'governor-chat-llm-20250602T1202', at: T0 + 2 * MIN, minCapacity: 6 }],
    },
    {
      case: 'the registered MinCapacity is unknown: asserted',
      live: null,
      expected: [{ name: 'governor-chat-llm-20250602T1202', at: T0 + 2 * MIN, minCapacity: 6 }],
    },
  ])('already in a ramp: $case', ({ live, expected }) => {
    const { actions } = planActions(input(repeat(6, 20), { liveMinCapacity: live }));
    expect(actions).toEqual(expected);
  });

  it('lowers a MinCapacity left up by an earlier plan when the floor now is the baseline', () => {
    const { actions } = planActions(input(repeat(1, 20), { liveMinCapacity: 6 }));
    expect(actions).toEqual([{ name: 'governor-chat-llm-20250602T1202', at: T0 + 2 * MIN, minCapacity: 1 }]);
  });

  it('folds a change that falls before the next whole minute + 1 into the action asserting now', () => {
    const { actions } = planActions(input([1, 6, 6, 6], { now: T0 + 4 * MIN + 30_000 }));
    expect(actions).toEqual([{ name: 'governor-chat-llm-20250602T1206', at: T0 + 6 * MIN, minCapacity: 6 }]);
  });

  it('plans only the next 24 hours, from the step that holds now', () => {
    const floor = [...repeat(1, 12), ...repeat(5, 12), ...repeat(1, 12 * 24), 9, 9];
    const { actions } = planActions(input(floor, { now: T0 + 60 * MIN }));
    expect(steps(actions)).toEqual([
      [12, 5],
      [24, 1],
    ]);
    const later = planActions(input(floor, { now: T0 + 70 * MIN })).actions;
    expect(steps(later).at(-1)).toEqual([24, 1]);
  });

  it(`keeps a saw-tooth floor under ${MAX_ACTIONS} actions by doubling N`, () => {
    // A ramp from 1 to 10 instances every 80 minutes: with N 1 that is 10 actions a ramp, 180 a day.
    const tooth = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, ...repeat(1, 6)];
    const floor = Array.from({ length: 576 }, (_, i) => tooth[i % tooth.length]!);
    const { actions, threshold } = planActions(input(floor));
    expect(actions.length).toBeLessThanOrEqual(MAX_ACTIONS);
    expect(threshold).toBeGreaterThan(1);
  });

  it('plans at most MAX_ACTIONS whatever the floor (a random walk of 576 steps)', () => {
    let x = 10;
    let seed = 7;
    const floor = Array.from({ length: 576 }, () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      x = Math.max(1, Math.min(20, x + (seed % 7) - 3));
      return x;
    });
    expect(planActions(input(floor)).actions.length).toBeLessThanOrEqual(MAX_ACTIONS);
  });
});

describe('reconcile', () => {
  const planned: PlannedAction[] = [
    { name: 'governor-chat-llm-20250602T1300', at: T0 + 60 * MIN, minCapacity: 6 },
    { name: 'governor-chat-llm-20250602T1400', at: T0 + 120 * MIN, minCapacity: 1 },
  ];
  const existing = (name: string, minCapacity: number | undefined, schedule?: string): ExistingAction => ({
    name,
    minCapacity,
    schedule: schedule ?? `at(2025-06-02T${name.slice(-4, -2)}:${name.slice(-2)}:00)`,
  });

  it.each([
    {
      case: 'nothing yet: every planned action is put',
      existing: [],
      put: ['governor-chat-llm-20250602T1300', 'governor-chat-llm-20250602T1400'],
      remove: [],
    },
    {
      case: 'an identical action is not put again',
      existing: [
        existing('governor-chat-llm-20250602T1300', 6),
        existing('governor-chat-llm-20250602T1400', 1),
      ],
      put: [],
      remove: [],
    },
    {
      case: 'a changed level is put again under its name',
      existing: [
        existing('governor-chat-llm-20250602T1300', 4),
        existing('governor-chat-llm-20250602T1400', 1),
      ],
      put: ['governor-chat-llm-20250602T1300'],
      remove: [],
    },
    {
      case: 'Governor’s actions the plan no longer has are removed, past or future',
      existing: [
        existing('governor-chat-llm-20250602T1100', 6),
        existing('governor-chat-llm-20250602T1300', 6),
        existing('governor-chat-llm-20250602T1400', 1),
        existing('governor-chat-llm-20250603T0900', 9),
      ],
      put: [],
      remove: ['governor-chat-llm-20250602T1100', 'governor-chat-llm-20250603T0900'],
    },
    {
      case: 'actions of operators and of other targets are never removed',
      existing: [
        existing('nightly-floor', 2, 'cron(0 22 * * ? *)'),
        existing('governor-chat-llm-manual', 3),
        existing('governor-chat-20250602T1100', 6),
        existing('governor-chat-llm-p95-20250602T1100', 6),
      ],
      put: ['governor-chat-llm-20250602T1300', 'governor-chat-llm-20250602T1400'],
      remove: [],
    },
  ])('$case', ({ existing, put, remove }) => {
    const r = reconcile('chat-llm', planned, existing);
    expect(r.put.map((p) => p.name)).toEqual(put);
    expect(r.remove).toEqual(remove);
  });
});
