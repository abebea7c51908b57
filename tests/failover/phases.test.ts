/**
 * Each phase transition as a timeline: steady -> prescaling -> shifting -> failed-over -> failback,
 * the rollback on a regression mid-shift, the standby that cannot get capacity, failback only after
 * the dwell, and missing data read as unknown. One step a minute from t0.
 */
import { describe, expect, it } from 'vitest';
import { stepFailover } from '#shared/failover/plan.ts';
import {
  activeActive,
  at,
  EAST,
  EU,
  type Look,
  observe,
  primaryStandby,
  routingChanges,
  run,
  WEST,
} from './harness.ts';

const reasonsAt = (results: ReturnType<typeof run>['results'], m: number) => results[m]?.decision.reasons[0];

describe('a primary that fails hard, with a healthy standby', () => {
  const group = primaryStandby();
  // East breaches from minute 0; west gets capacity 4 minutes after it is asked for.
  const { results } = run(
    group,
    (m) => ({
      looks: { [EAST]: 'breach', [WEST]: 'ok' },
      ready: { [WEST]: m >= 6 ? 12 : 0 },
      demand: { [EAST]: 11.2 },
    }),
    20,
  );

  it.each([
    { minute: 0, reason: 'Steady', phase: 'steady' },
    { minute: 2, reason: 'FailoverStarted', phase: 'prescaling' },
    { minute: 3, reason: 'PrescaleWaiting', phase: 'prescaling' },
    { minute: 6, reason: 'ShiftStep', phase: 'shifting' },
    { minute: 7, reason: 'ShiftCheckHolding', phase: 'shifting' },
    { minute: 9, reason: 'ShiftStep', phase: 'shifting' },
    { minute: 12, reason: 'FailedOver', phase: 'failed-over' },
    { minute: 13, reason: 'FailbackAwaitingRecovery', phase: 'failed-over' },
  ])('minute $minute: $reason ($phase)', ({ minute, reason, phase }) => {
    expect(reasonsAt(results, minute)).toBe(reason);
    expect(results[minute]?.decision.phase).toBe(phase);
  });

  it('prescales the standby to the primary demand rounded up, and floors it there while moving', () => {
    expect(results[2]?.actions).toEqual([
      { kind: 'prescale', groupId: 'chat', targetId: 'chat-west', region: WEST, desired: 12 },
    ]);
    expect(results[4]?.floors).toEqual({ 'chat-west': 12 });
  });

  it('keeps the standby floored at the prescale once failed over, so its own lagging metrics cannot shrink it', () => {
    expect(results[12]?.floors).toEqual({ 'chat-west': 12 });
    expect(results[19]?.floors).toEqual({ 'chat-west': 12 });
  });

  it('moves traffic 10, 50, 100 % with Route 53 weights, one change per step', () => {
    expect(routingChanges(results)).toEqual([
      { kind: 'set-weights', groupId: 'chat', weights: { [EAST]: 90, [WEST]: 10 } },
      { kind: 'set-weights', groupId: 'chat', weights: { [EAST]: 50, [WEST]: 50 } },
      { kind: 'set-weights', groupId: 'chat', weights: { [EAST]: 0, [WEST]: 100 } },
    ]);
  });

  it('says what it does in one sentence', () => {
    expect(results[2]?.decision.message).toBe(
      'chat (prescaling): us-east-1 has failed (3 of the last 5 periods breached); prescaling chat-west in us-west-2 to 12 instances before moving traffic.',
    );
  });
});

describe('a regression mid-shift rolls back one step', () => {
  it('the standby breaching at 50 % sends traffic back to 10 %, then waits out its check', () => {
    const west = (m: number): Look => (m === 7 ? 'breach' : 'ok');
    const { results } = run(
      primaryStandby(),
      (m) => ({
        looks: { [EAST]: 'breach', [WEST]: west(m) },
        ready: { [WEST]: 20 },
        demand: { [EAST]: 10 },
      }),
      30,
    );
    expect(reasonsAt(results, 7)).toBe('ShiftRolledBack');
    expect(results[7]?.decision.weights).toEqual({ [EAST]: 90, [WEST]: 10 });
    // The breach stays in west's 5-period window through minute 11: no step forward before 12.
    expect(results.slice(8, 12).map((r) => r.decision.reasons[0])).toEqual(
      Array(4).fill('ShiftCheckHolding'),
    );
    expect(routingChanges(results).map((a) => a.kind === 'set-weights' && a.weights[WEST])).toEqual([
      10, 50, 10, 50, 100,
    ]);
  });
});

describe('a standby that cannot get capacity', () => {
  // No instance at all: not even the 10 % step (1 of 10 instances) can be served.
  const { results } = run(
    primaryStandby(),
    (m) => ({
      looks: { [EAST]: 'breach', [WEST]: 'ok' },
      ready: { [WEST]: m >= 25 ? 10 : 0 },
      demand: { [EAST]: 10 },
    }),
    30,
  );

  it('alarms StandbyCapacityUnavailable once at the prescale timeout and keeps traffic on the primary', () => {
    expect(reasonsAt(results, 12)).toBe('StandbyCapacityUnavailable');
    expect(results[12]?.decision.phase).toBe('halted');
    const alarms = results.flatMap((r) => r.actions.filter((a) => a.kind === 'alarm'));
    expect(alarms).toHaveLength(1);
    expect(alarms[0]).toMatchObject({ code: 'StandbyCapacityUnavailable' });
    expect(results.slice(0, 25).every((r) => r.decision.weights[EAST] === 100)).toBe(true);
  });

  it('resumes the shift when the capacity arrives later', () => {
    expect(results[25]?.decision.reasons).toEqual(['ShiftStep', 'StandbyCapacityRecovered']);
  });
});

describe('failback', () => {
  const group = primaryStandby({ shift: { dwellMinutes: 30 } });
  const east = (m: number): Look => (m < 10 ? 'breach' : 'ok');
  const timeline = run(
    group,
    (m) => ({
      looks: { [EAST]: east(m), [WEST]: 'ok' },
      ready: { [EAST]: 10, [WEST]: 10 },
      demand: { [EAST]: 1, [WEST]: 8 },
    }),
    80,
  ).results;

  it('waits for the dwell after the failover completed, though the primary recovered long before', () => {
    const failedOver = timeline.findIndex((r) => r.decision.reasons[0] === 'FailedOver');
    expect(failedOver).toBe(9);
    expect(reasonsAt(timeline, 30)).toBe('FailbackDwell');
    expect(reasonsAt(timeline, 39)).toBe('FailbackStarted');
    expect(timeline[39]?.actions).toEqual([
      { kind: 'prescale', groupId: 'chat', targetId: 'chat-east', region: EAST, desired: 9 },
    ]);
  });

  it('returns traffic in the same steps, reversed, and ends steady', () => {
    const changes = routingChanges(timeline).map((a) => a.kind === 'set-weights' && a.weights[EAST]);
    expect(changes).toEqual([90, 50, 0, 10, 50, 100]);
    expect(timeline.at(-1)?.decision.phase).toBe('steady');
    expect(timeline.some((r) => r.decision.reasons[0] === 'FailedBack')).toBe(true);
  });
});

describe('missing data is unknown, never failed', () => {
  it.each([
    {
      case: 'a primary with no data at all never fails over',
      east: 'missing' as Look,
      west: 'ok' as Look,
      reason: 'Steady',
    },
    {
      case: 'a failed primary with a standby we cannot see is our blind spot',
      east: 'breach' as Look,
      west: 'missing' as Look,
      reason: 'AllRegionsUnhealthy',
    },
    {
      case: 'both regions failing look like our own blind spot: no failover',
      east: 'breach' as Look,
      west: 'breach' as Look,
      reason: 'AllRegionsUnhealthy',
    },
  ])('$case', ({ east, west, reason }) => {
    const { results } = run(
      primaryStandby(),
      () => ({ looks: { [EAST]: east, [WEST]: west }, ready: { [WEST]: 20 } }),
      30,
    );
    expect(results.at(-1)?.decision.reasons[0]).toBe(reason);
    expect(routingChanges(results)).toEqual([]);
    if (east === 'missing') expect(results.at(-1)?.decision.health[EAST]?.status).toBe('unknown');
  });

  it('a stale reading counts as missing: the region is unknown', () => {
    const group = primaryStandby();
    const obs = observe({ looks: { [EAST]: 'breach', [WEST]: 'ok' } }, at(0));
    const stale = {
      regions: { ...obs.regions, [EAST]: { errorRatePercent: { value: 40, timestamp: at(-10) } } },
    };
    const r = stepFailover(
      run(group, () => ({ looks: { [EAST]: 'ok', [WEST]: 'ok' } }), 0).state,
      stale,
      group,
      at(0),
    );
    expect(r.decision.health[EAST]).toMatchObject({ status: 'unknown', verdict: 'unknown' });
    expect(r.decision.health[EAST]?.message).toMatch(
      /^us-east-1 is unknown: missing data is never read as a failure/,
    );
  });

  it('without a demand figure the standby is prescaled to its maxCapacity', () => {
    const { results } = run(primaryStandby(), () => ({ looks: { [EAST]: 'breach', [WEST]: 'ok' } }), 3);
    expect(results[2]?.decision.reasons).toEqual(['FailoverStarted', 'DemandUnknown']);
    expect(results[2]?.actions[0]).toMatchObject({ kind: 'prescale', desired: 40 });
  });
});

describe('active-active', () => {
  it('moves the failed region weight to the others by their weights, and dials it down', () => {
    const { results } = run(
      activeActive(),
      () => ({
        looks: { [EAST]: 'breach', [WEST]: 'ok', [EU]: 'ok' },
        ready: { [EAST]: 10, [WEST]: 20, [EU]: 20 },
        demand: { [EAST]: 5, [WEST]: 3, [EU]: 2 },
      }),
      12,
    );
    const changes = routingChanges(results);
    expect(changes.map((a) => a.weights)).toEqual([
      { [EAST]: 45, [WEST]: 33, [EU]: 22 },
      { [EAST]: 25, [WEST]: 45, [EU]: 30 },
      { [EAST]: 0, [WEST]: 60, [EU]: 40 },
    ]);
    expect(changes[1]).toMatchObject({ kind: 'set-dials', dials: { [EAST]: 50, [WEST]: 100, [EU]: 100 } });
    expect(
      results[2]?.actions.filter((a) => a.kind === 'prescale').map((a) => a.kind === 'prescale' && a.desired),
    ).toEqual([6, 4]);
  });
});
