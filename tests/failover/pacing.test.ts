/**
 * How fast traffic moves, and onto what: an idle standby as a destination, a source that serves
 * nothing skipping the checks, the prescale re-sized while it waits, and a step taken as soon as
 * the ready capacity serves it (the warm floor). Timelines one minute apart from t0; the standby's
 * need is 12 instances (the primary's demand 11.2, rounded up) unless a case says otherwise.
 */
import { describe, expect, it } from 'vitest';
import { assessRegion } from '#shared/failover/health.ts';
import { EAST, type Look, primaryStandby, region, routingChanges, run, T0, WEST } from './harness.ts';

const reasonsAt = (results: ReturnType<typeof run>['results'], m: number) => results[m]?.decision.reasons;
const westWeights = (results: ReturnType<typeof run>['results']) =>
  routingChanges(results).map((a) => a.weights[WEST]);

describe('an idle standby (no traffic, so no error rate or p95; heartbeat and capacity errors fresh)', () => {
  const health = primaryStandby().health;

  it.each([
    { case: 'with no traffic share, missing traffic signals make it idle', noTraffic: true, status: 'idle' },
    { case: 'with a traffic share, the same readings are unknown', noTraffic: false, status: 'unknown' },
  ])('$case', ({ noTraffic, status }) => {
    const r = assessRegion(WEST, [], region('idle', T0), health, T0, noTraffic);
    expect(r.health.status).toBe(status);
    expect(r.health.reasons[0]).toBe(status === 'idle' ? 'RegionIdle' : 'RegionUnknown');
  });

  it('a missing heartbeat is unknown even with no traffic: idle vouches for nothing it cannot see', () => {
    expect(assessRegion(WEST, [], region('missing', T0), health, T0, true).health.status).toBe('unknown');
  });

  it('idle periods never count toward recovered, and a breach in the window makes it degraded', () => {
    let history: ReturnType<typeof assessRegion>['history'] = [];
    let last: ReturnType<typeof assessRegion>['health'] | undefined;
    for (let m = 0; m < 30; m++) {
      const r = assessRegion(
        WEST,
        history,
        region(m === 0 ? 'breach' : 'idle', T0 + m * 60_000),
        health,
        T0 + m * 60_000,
        true,
      );
      history = r.history;
      if (m === 1) expect(r.health.status).toBe('degraded');
      last = r.health;
    }
    expect(last).toMatchObject({ status: 'idle', recovered: false, okStreak: 0 });
  });

  it('beside a failed primary it is a destination: prescaled, then the first step once its ready capacity serves it', () => {
    const { results } = run(
      primaryStandby(),
      (m) => ({
        looks: { [EAST]: 'breach', [WEST]: m >= 7 ? 'ok' : 'idle' },
        ready: { [WEST]: m >= 6 ? 12 : 0 },
        demand: { [EAST]: 11.2 },
      }),
      16,
    );
    expect(results[0]?.decision.health[WEST]?.status).toBe('idle');
    expect(reasonsAt(results, 0)).toEqual(['Steady']);
    expect(reasonsAt(results, 2)?.[0]).toBe('FailoverStarted');
    expect(reasonsAt(results, 6)).toEqual(['ShiftStep', 'ReceiverIdle']);
    expect(westWeights(results)).toEqual([10, 50, 100]);
  });

  it('beside a primary we cannot see, nothing moves', () => {
    const { results } = run(
      primaryStandby(),
      () => ({ looks: { [EAST]: 'missing', [WEST]: 'idle' }, ready: { [WEST]: 20 }, demand: { [EAST]: 10 } }),
      30,
    );
    expect(results.at(-1)?.decision.reasons).toEqual(['Steady']);
    expect(routingChanges(results)).toEqual([]);
  });

  it('a regression once it has traffic rolls the first step back', () => {
    const west = (m: number): Look => (m < 4 ? 'idle' : m === 5 ? 'breach' : 'ok');
    const { results } = run(
      primaryStandby(),
      (m) => ({
        looks: { [EAST]: 'breach', [WEST]: west(m) },
        ready: { [WEST]: 20 },
        demand: { [EAST]: 10 },
      }),
      7,
    );
    expect(reasonsAt(results, 3)).toEqual(['ShiftStep', 'ReceiverIdle']);
    expect(reasonsAt(results, 5)).toEqual(['ShiftRolledBack']);
    expect(westWeights(results)).toEqual([10, 0]);
  });
});

describe('a source that serves nothing: no check time, straight to the largest step the standby serves', () => {
  it.each([
    { case: 'no ready instance', east: 'breach' as Look, eastReady: 0 },
    { case: 'every request failing (100 % errors)', east: 'down' as Look, eastReady: undefined },
  ])('$case: all of it at once when the standby has the whole need ready', ({ east, eastReady }) => {
    const { results } = run(
      primaryStandby(),
      (m) => ({
        looks: { [EAST]: east, [WEST]: 'ok' },
        ready: { ...(eastReady === undefined ? {} : { [EAST]: eastReady }), [WEST]: m >= 6 ? 12 : 0 },
        demand: { [EAST]: 11.2 },
      }),
      10,
    );
    expect(reasonsAt(results, 6)).toEqual(['FailedOver', 'SourceServesNothing']);
    expect(westWeights(results)).toEqual([100]);
  });

  it('half the need ready: 50 % at once, 100 % the minute the rest is ready, no 3-minute check', () => {
    const { results } = run(
      primaryStandby(),
      (m) => ({
        looks: { [EAST]: 'breach', [WEST]: 'ok' },
        ready: { [EAST]: 0, [WEST]: m >= 8 ? 12 : m >= 6 ? 6 : 0 },
        demand: { [EAST]: 11.2 },
      }),
      10,
    );
    expect(reasonsAt(results, 6)).toEqual(['ShiftStep', 'SourceServesNothing']);
    expect(results[7]?.decision.reasons).toEqual(['ShiftAwaitingCapacity']);
    expect(reasonsAt(results, 8)).toEqual(['FailedOver', 'SourceServesNothing']);
    expect(westWeights(results)).toEqual([50, 100]);
  });

  it('a source still serving some requests keeps the steps and their checks', () => {
    const { results } = run(
      primaryStandby(),
      () => ({
        looks: { [EAST]: 'breach', [WEST]: 'ok' },
        ready: { [EAST]: 3, [WEST]: 12 },
        demand: { [EAST]: 11.2 },
      }),
      12,
    );
    expect(westWeights(results)).toEqual([10, 50, 100]);
    expect(results.findIndex((r) => r.decision.reasons[0] === 'FailedOver')).toBe(9);
  });
});

describe('the prescale re-sized while it waits', () => {
  // The primary's recent peak grows from 10 to 15 instances, then falls back to 12.
  const demand = (m: number) => (m < 4 ? 10 : m < 6 ? 15 : 12);
  const { results } = run(
    primaryStandby(),
    (m) => ({
      looks: { [EAST]: 'breach', [WEST]: 'ok' },
      ready: { [WEST]: m >= 10 ? 20 : 0 },
      demand: { [EAST]: demand(m) },
    }),
    12,
  );
  const prescales = results.flatMap((r) => r.actions.filter((a) => a.kind === 'prescale'));

  it('grows with the primary demand before traffic moves, and never shrinks', () => {
    expect(prescales.map((a) => a.kind === 'prescale' && a.desired)).toEqual([10, 15]);
    expect(reasonsAt(results, 4)).toEqual(['PrescaleWaiting', 'PrescaleResized']);
    expect(results[9]?.floors).toEqual({ 'chat-west': 15 });
  });

  it('sizes the steps on the grown need', () => {
    expect(results[10]?.state.needed).toEqual({ 'chat-west': 15 });
  });
});

describe('a step as soon as the ready capacity serves it (the warm floor pays)', () => {
  it('a floor of 2 serves the 10 % step of a 12-instance need at once; 50 % waits for 6 ready', () => {
    const { results } = run(
      primaryStandby({
        members: [
          { targetId: 'chat-east', role: 'primary' },
          { targetId: 'chat-west', role: 'standby', warmFloor: 2 },
        ],
      }),
      (m) => ({
        looks: { [EAST]: 'breach', [WEST]: 'ok' },
        ready: { [EAST]: 3, [WEST]: m >= 8 ? 12 : 2 },
        demand: { [EAST]: 11.2 },
      }),
      14,
    );
    expect(reasonsAt(results, 3)).toEqual(['ShiftStep']);
    expect(reasonsAt(results, 6)).toEqual(['ShiftAwaitingCapacity']);
    expect(reasonsAt(results, 8)).toEqual(['ShiftStep']);
    expect(reasonsAt(results, 11)).toEqual(['FailedOver']);
    expect(westWeights(results)).toEqual([10, 50, 100]);
  });

  it('capacity that never comes for the next step alarms once, and traffic stays at the step it has', () => {
    const { results } = run(
      primaryStandby(),
      () => ({
        looks: { [EAST]: 'breach', [WEST]: 'ok' },
        ready: { [EAST]: 3, [WEST]: 2 },
        demand: { [EAST]: 11.2 },
      }),
      40,
    );
    const alarms = results.flatMap((r) => r.actions.filter((a) => a.kind === 'alarm'));
    expect(alarms).toHaveLength(1);
    expect(results.at(-1)?.decision).toMatchObject({
      phase: 'halted',
      reasons: ['StandbyCapacityUnavailable'],
    });
    expect(westWeights(results)).toEqual([10]);
  });
});
