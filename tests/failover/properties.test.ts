/**
 * Invariants of stepFailover() over health combinations and phases: traffic always has somewhere
 * to go (weights are whole percents summing to 100; a routing-controls action always turns one
 * on), a failover never starts while no region is healthy or idle, never within the dwell of the
 * last, traffic moves onto a region only when it is healthy or idle, and only a region with no
 * traffic share is ever idle (missing data never counts as failed, nor as idle with a share).
 * fast-check over random timelines (10,000 runs on CI, 500 locally), and exhaustive enumeration
 * of every 3-minute continuation from a state in each phase.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ResolvedGroup } from '#shared/failover/group.ts';
import { stepFailover } from '#shared/failover/plan.ts';
import type { FailoverState, FailoverStepResult, Phase, Weights } from '#shared/failover/types.ts';
import {
  activeActive,
  at,
  EAST,
  EU,
  type Look,
  observe,
  primaryStandby,
  propertyRuns,
  run,
  WEST,
} from './harness.ts';

const arc = () =>
  primaryStandby({
    routing: {
      kind: 'arc-routing-controls',
      routingControls: {
        [EAST]: 'arn:aws:route53-recovery-control::123456789012:controlpanel/abc/routingcontrol/east',
        [WEST]: 'arn:aws:route53-recovery-control::123456789012:controlpanel/abc/routingcontrol/west',
      },
      clusterEndpoints: [
        { region: EAST, endpoint: 'https://host-aaaa.route53-recovery-cluster.us-east-1.amazonaws.com/v1' },
      ],
    },
  });

const GROUPS: { name: string; group: ResolvedGroup; regions: string[] }[] = [
  {
    name: 'primary-standby, Route 53',
    group: primaryStandby({ shift: { dwellMinutes: 20 } }),
    regions: [EAST, WEST],
  },
  { name: 'primary-standby, ARC', group: arc(), regions: [EAST, WEST] },
  {
    name: 'active-active, Global Accelerator',
    group: activeActive({ shift: { dwellMinutes: 20 } }),
    regions: [EAST, WEST, EU],
  },
];

/**
 * A failed invariant, with what was seen. Plain checks, not expect(): this file checks millions
 * of steps on CI, and at about 13 us an expect() was two thirds of its minute.
 */
function check(holds: boolean, what: () => string): void {
  if (!holds) throw new Error(`invariant broken: ${what()}`);
}

const sum = (w: Record<string, number>) => Object.values(w).reduce((s, x) => s + x, 0);

/** Checks every invariant on one step; `starts` collects failover start times across the timeline. */
function checkStep(group: ResolvedGroup, r: FailoverStepResult, starts: number[], prev: Weights): void {
  const seen = () =>
    `${r.decision.reasons.join(', ')} at ${r.decision.at}: ${JSON.stringify(r.state.weights)}`;
  const weights = Object.values(r.state.weights);
  check(sum(r.state.weights) === 100, () => `weights sum to ${sum(r.state.weights)}, not 100 (${seen()})`);
  check(
    weights.every((w) => Number.isInteger(w) && w >= 0),
    () => `weights not whole percents (${seen()})`,
  );
  for (const a of r.actions) {
    if (a.kind === 'set-routing-controls')
      check(a.on.length > 0, () => `a routing-controls action turns none on (${seen()})`);
    if (a.kind === 'set-dials')
      check(
        Object.values(a.dials).some((d) => d > 0),
        () => `every dial at 0 (${seen()})`,
      );
    if (a.kind !== 'prescale' && a.kind !== 'alarm')
      check(
        sum(a.weights) === 100,
        () => `a ${a.kind} action's weights sum to ${sum(a.weights)} (${seen()})`,
      );
  }
  const health = Object.values(r.decision.health);
  const eligible = (s: string | undefined) => s === 'healthy' || s === 'idle';
  for (const h of health)
    if (h.status === 'idle')
      check(
        (prev[h.region] ?? 0) === 0,
        () => `${h.region} idle with ${prev[h.region]} % of traffic (${seen()})`,
      );
  if (r.decision.reasons[0] === 'FailoverStarted') {
    check(
      health.some((h) => eligible(h.status)),
      () => `a failover started with no healthy or idle region (${seen()})`,
    );
    const last = starts.at(-1);
    if (last !== undefined)
      check(
        r.decision.at - last >= group.shift.dwellMinutes * 60_000,
        () =>
          `a failover started ${(r.decision.at - last) / 60_000} min after the last, inside the dwell (${seen()})`,
      );
    starts.push(r.decision.at);
  }
  // Traffic moves further off a region only toward a healthy or idle one, and only in a step.
  for (const [region, w] of Object.entries(r.state.weights)) {
    if (w <= (prev[region] ?? 0)) continue;
    const reason = r.decision.reasons[0]!;
    check(
      ['ShiftStep', 'FailedOver', 'FailedBack', 'ShiftRolledBack'].includes(reason),
      () => `traffic onto ${region} outside a shift (${seen()})`,
    );
    if (reason !== 'ShiftRolledBack')
      check(
        eligible(r.decision.health[region]?.status),
        () => `traffic onto ${region}, which is ${r.decision.health[region]?.status} (${seen()})`,
      );
  }
}

const lookArb = fc.constantFrom<Look>('ok', 'ok', 'breach', 'down', 'idle', 'missing');

describe('the invariant checks themselves', () => {
  const group = primaryStandby({ shift: { dwellMinutes: 20 } });
  const { results } = run(
    group,
    () => ({ looks: { [EAST]: 'ok', [WEST]: 'ok' }, ready: { [EAST]: 3, [WEST]: 3 }, demand: { [EAST]: 2 } }),
    3,
  );
  const good = results[2]!;
  const prev = results[1]!.state.weights;

  it('pass a real step', () => {
    expect(() => checkStep(group, good, [], prev)).not.toThrow();
  });

  it.each([
    {
      case: 'weights that sum to 99',
      weights: { [EAST]: 99, [WEST]: 0 },
      error: /weights sum to 99, not 100/,
    },
    { case: 'a fractional weight', weights: { [EAST]: 99.5, [WEST]: 0.5 }, error: /not whole percents/ },
    {
      case: 'traffic onto a region outside a shift',
      weights: { [EAST]: 0, [WEST]: 100 },
      error: /outside a shift/,
    },
  ])('fail on $case', ({ weights, error }) => {
    const broken = { ...good, state: { ...good.state, weights } };
    expect(() => checkStep(group, broken, [], prev)).toThrow(error);
  });
});

describe('random timelines (fast-check)', () => {
  it.each(GROUPS)(
    '$name: every invariant holds at every step',
    ({ group, regions }) => {
      const minuteArb = fc.record({
        looks: fc.tuple(...regions.map(() => lookArb)),
        ready: fc.constantFrom(0, 3, 50),
      });
      fc.assert(
        fc.property(
          fc.array(fc.tuple(minuteArb, fc.integer({ min: 1, max: 8 })), { minLength: 1, maxLength: 25 }),
          (spans) => {
            const minutes = spans.flatMap(([m, n]) => Array(n).fill(m) as (typeof m)[]);
            const starts: number[] = [];
            let state: FailoverState | undefined;
            const { results } = run(
              group,
              (i) => {
                const m = minutes[i]!;
                return {
                  looks: Object.fromEntries(regions.map((r, k) => [r, m.looks[k]!])),
                  ready: Object.fromEntries(regions.map((r) => [r, m.ready])),
                  demand: Object.fromEntries(regions.map((r) => [r, 2])),
                };
              },
              minutes.length,
            );
            let prev: Weights = Object.fromEntries(group.members.map((m) => [m.region, m.baseWeight]));
            for (const r of results) {
              checkStep(group, r, starts, prev);
              prev = r.state.weights;
              state = r.state;
            }
            check(state !== undefined, () => 'no step was taken');
          },
        ),
        { numRuns: propertyRuns() },
      );
    },
    180_000,
  ); // fast-check runs over every step: about 15 s on an idle machine on CI's 10,000 runs
});

describe('every 3-minute continuation from each phase (exhaustive)', () => {
  const group = primaryStandby({ shift: { dwellMinutes: 30 } });
  // One scripted timeline passes through every phase; its states are the starting points.
  const script = (m: number): { east: Look; readyWest: number } =>
    m < 20 ? { east: 'breach', readyWest: m < 15 ? 0 : 20 } : { east: 'ok', readyWest: 20 };
  const { results } = run(
    group,
    (m) => ({
      looks: { [EAST]: script(m).east, [WEST]: 'ok' },
      ready: { [EAST]: 20, [WEST]: script(m).readyWest },
      demand: { [EAST]: 4, [WEST]: 4 },
    }),
    90,
  );
  const starts = results.map((r, i) => ({ minute: i, state: r.state }));
  const phases = new Set<Phase>(starts.map((s) => s.state.phase));
  const LOOKS: Look[] = ['ok', 'breach', 'missing'];
  const combos = LOOKS.flatMap((e) => LOOKS.map((w) => [e, w] as const));

  it('the scripted timeline reaches every phase, both directions', () => {
    expect([...phases].sort()).toEqual(['failed-over', 'halted', 'prescaling', 'shifting', 'steady']);
    expect(new Set(starts.map((s) => s.state.direction))).toEqual(new Set([null, 'failover', 'failback']));
  });

  it('from every state of it, every health combination for 3 minutes keeps every invariant', () => {
    let steps = 0;
    for (const { minute, state: from } of starts) {
      for (const a of combos)
        for (const b of combos)
          for (const c of combos)
            for (const ready of [0, 20]) {
              let state = from;
              const begun = from.lastFailoverAt === null ? [] : [from.lastFailoverAt];
              [a, b, c].forEach(([east, west], k) => {
                const now = at(minute + 1 + k);
                const obs = observe(
                  {
                    looks: { [EAST]: east, [WEST]: west },
                    ready: { [EAST]: ready, [WEST]: ready },
                    demand: { [EAST]: 4 },
                  },
                  now,
                );
                const r = stepFailover(state, obs, group, now);
                checkStep(group, r, begun, state.weights);
                // 'missing' has no heartbeat either, so it is never idle: no failover without an 'ok'.
                if (east !== 'ok' && west !== 'ok' && r.decision.reasons[0] === 'FailoverStarted')
                  throw new Error('failover with no healthy or idle region');
                state = r.state;
                steps++;
              });
            }
    }
    expect(steps).toBe(starts.length * 729 * 2 * 3);
    // Exhaustive and CPU-bound (393,660 steps): a few seconds, sized for a loaded machine.
  }, 180_000);
});
