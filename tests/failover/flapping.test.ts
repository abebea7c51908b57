/**
 * Flapping: health that flips every 2 minutes for 2 hours. N of M (3 of 5) lets a region that is
 * bad half the time fail once; the recover window (15 healthy periods in a row) never passes, so
 * there is no failback, and the dwell allows no second failover.
 */
import { describe, expect, it } from 'vitest';
import { EAST, failoversStarted, type Look, primaryStandby, routingChanges, run, WEST } from './harness.ts';

const flips = (m: number): Look => (Math.floor(m / 2) % 2 === 1 ? 'breach' : 'ok');
const antiFlips = (m: number): Look => (Math.floor(m / 2) % 2 === 0 ? 'breach' : 'ok');
const TWO_HOURS = 120;

describe('health that flips every 2 minutes for 2 hours', () => {
  it.each([
    {
      case: 'both regions flipping together cause no failover and no routing change',
      east: flips,
      west: flips,
    },
    {
      case: 'regions flipping in turn cause no failover: the standby is never healthy when the primary fails',
      east: flips,
      west: antiFlips,
    },
    {
      case: 'a flipping standby behind a healthy primary changes nothing',
      east: () => 'ok' as Look,
      west: flips,
    },
  ])('$case', ({ east, west }) => {
    const { results } = run(
      primaryStandby(),
      (m) => ({ looks: { [EAST]: east(m), [WEST]: west(m) }, ready: { [WEST]: 20 }, demand: { [EAST]: 10 } }),
      TWO_HOURS,
    );
    expect(failoversStarted(results).length).toBeLessThanOrEqual(1);
    expect(routingChanges(results).length).toBeLessThanOrEqual(2);
  });

  it('a flipping primary fails over once, in one stepped shift, and never flips back', () => {
    const group = primaryStandby();
    const { results, state } = run(
      group,
      (m) => ({ looks: { [EAST]: flips(m), [WEST]: 'ok' }, ready: { [WEST]: 20 }, demand: { [EAST]: 10 } }),
      TWO_HOURS,
    );
    expect(failoversStarted(results)).toHaveLength(1);
    // One change per step of the one shift (10, 50, 100 %), none back: the primary never recovers.
    expect(routingChanges(results).map((a) => a.kind === 'set-weights' && a.weights[WEST])).toEqual([
      10, 50, 100,
    ]);
    expect(state.phase).toBe('failed-over');
    expect(results.at(-1)?.decision.reasons).toEqual(['FailbackAwaitingRecovery']);
  });

  it('a primary down, back for 20 minutes, and down again fails over at most once per dwell', () => {
    const down = (m: number): Look => (m < 30 || (m >= 50 && m < 70) ? 'breach' : 'ok');
    const { results } = run(
      primaryStandby({ shift: { dwellMinutes: 60, prescaleTimeoutMinutes: 10, checkMinutes: 3 } }),
      (m) => ({ looks: { [EAST]: down(m), [WEST]: 'ok' }, ready: { [WEST]: 20 }, demand: { [EAST]: 10 } }),
      TWO_HOURS,
    );
    const starts = failoversStarted(results).map((r) => r.decision.at);
    for (let i = 1; i < starts.length; i++)
      expect(starts[i]! - starts[i - 1]!).toBeGreaterThanOrEqual(60 * 60_000);
  });
});
