/**
 * Scripted races and faults of issue 18 (done means): the failover health evaluation with its
 * reconciliation, and each execution it starts run through the real state machine
 * (./failover-world.ts). Each ends with the routing equal to the planner's intent within 3
 * evaluations of the fault, or with an alarm (RoutingDrift at 3 minutes).
 *
 * Before issue 18 (found by the audit): a StartExecution 5xx on the last step left 50/50 under a
 * planner holding 0/100 for 30+ minutes; throttling past the retries failed the execution and
 * nothing redid it; a kill switch between decision and execution left 50/50 after the switch
 * was off; an older execution's rollback landed after the final step (90/10); a failover during a
 * failback retry ended at 10/90; every region failing mid-shift re-rolled 100/0 to 90/10.
 */
import { describe, expect, it } from 'vitest';
import { failOverTo, World, west } from './failover-world.ts';

const SLOW = 180_000; // many evaluations and executions per case: sized for a loaded 2-core machine

/** Evaluations until the routing equals the intent, at most 3: how many it took (Infinity: never). */
async function convergesWithin3(w: World): Promise<number> {
  for (let i = 1; i <= 3; i++) {
    await w.next();
    if (w.converged()) return i;
  }
  return Number.POSITIVE_INFINITY;
}

const gate = () => {
  let open: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { closed, open };
};

describe('StartExecution failing with a 5xx', () => {
  it.each([
    { case: 'on the prescale, no execution created', step: 0, at: 0, fault: 'lost' as const },
    { case: 'on the 10 % step, no execution created', step: 10, at: 1, fault: 'lost' as const },
    { case: 'on the 50 % step, no execution created', step: 50, at: 2, fault: 'lost' as const },
    { case: 'on the last step, no execution created', step: 100, at: 3, fault: 'lost' as const },
    { case: 'on the last step, the execution created anyway', step: 100, at: 3, fault: 'ambiguous' as const },
  ])(
    '$case: the next evaluation redoes it, the routing meets the intent and the failover completes',
    async ({ step, at, fault }) => {
      const w = new World();
      w.startFaults = [...Array<null>(at).fill(null), fault];
      await failOverTo(w, step);
      expect(w.records.at(-1)?.outcome).toBe('failed'); // the evaluation threw: its start failed
      expect(await convergesWithin3(w)).toBeLessThanOrEqual(3);
      expect(await w.until(() => w.phase() === 'failed-over' && w.converged())).toBe(true);
      expect(w.routing()).toEqual({ 'us-east-1': 0, 'us-west-2': 100 });
      expect(w.driftAlarm()).toBe(false);
      if (fault === 'lost') expect(w.records.map((r) => r.outcome)).toContain('redone');
    },
    SLOW,
  );
});

describe('StartExecution failing with a 5xx during the failback', () => {
  it(
    'on its first step: redone at the next evaluation, and the failback completes to 100/0',
    async () => {
      const w = new World();
      await failOverTo(w, 100);
      w.health['us-east-1'] = 'ok';
      expect(await w.until(() => w.phase() === 'prescaling')).toBe(true); // failback started
      w.startFaults = ['lost'];
      expect(await w.until(() => west(w) === 90)).toBe(true);
      expect(w.records.at(-1)?.outcome).toBe('failed');
      expect(w.routing()['us-west-2']).toBe(100);
      expect(await convergesWithin3(w)).toBeLessThanOrEqual(3);
      expect(await w.until(() => w.phase() === 'steady' && w.converged())).toBe(true);
      expect(w.routing()).toEqual({ 'us-east-1': 100, 'us-west-2': 0 });
      expect(w.driftAlarm()).toBe(false);
    },
    SLOW,
  );
});

describe('Route 53 throttled past the retries', () => {
  it(
    'once: the execution fails (the failover-failures alarm), the next evaluation redoes the step, the routing meets the intent',
    async () => {
      const w = new World();
      await failOverTo(w, 10);
      w.routeFaults = 4; // the first attempt and its 3 retries
      await w.next(); // the 50 % step fails
      expect(w.failures()).toBe(1);
      expect(w.routing()['us-west-2']).toBe(10);
      expect(west(w)).toBe(50);
      expect(await convergesWithin3(w)).toBe(1);
      expect(w.records.at(-1)).toMatchObject({ outcome: 'redone', reasons: ['ExecutionRedo'] });
      expect(await w.until(() => w.phase() === 'failed-over' && w.converged())).toBe(true);
    },
    SLOW,
  );

  it(
    'for good: 3 redos, then no more, the planner never steps on routing it has not seen land, and RoutingDrift alarms',
    async () => {
      const w = new World();
      await failOverTo(w, 10);
      w.routeFaults = 1_000;
      for (let i = 0; i < 6; i++) await w.next();
      expect(w.routing()['us-west-2']).toBe(10);
      expect(west(w)).toBe(50); // held at the step that did not land: never 100
      expect(w.records.filter((r) => r.outcome === 'redone')).toHaveLength(3);
      expect(w.records.at(-1)).toMatchObject({ outcome: 'held', reasons: ['RedoExhausted'] });
      expect(w.driftAlarm()).toBe(true);
      // The step's own evaluation, then 0, 1, 2 minutes with a redo each, 3 (alarm), 4.
      expect(w.drift.slice(-5)).toEqual([0, 1, 2, 3, 4]);
    },
    SLOW,
  );
});

describe('the kill switch turned on between the decision and the execution', () => {
  it.each([
    { case: 'and left on for a while', onFor: 2 },
    { case: 'and turned off again before the next evaluation', onFor: 0 },
  ])(
    '$case: nothing moves, the planner goes back to where the routing is, and completes once it is off',
    async ({ onFor }) => {
      const w = new World();
      await failOverTo(w, 50);
      w.holding = true;
      await w.next(); // decides the last step (0/100) with the switch off
      expect(west(w)).toBe(100);
      w.kill = 'on';
      await w.settle();
      w.holding = false;
      expect(w.lastStarted().result?.outcome).toBe('killed');
      expect(w.routing()['us-west-2']).toBe(50);
      for (let i = 0; i < onFor; i++) {
        await w.next();
        expect(w.converged()).toBe(true); // the planner is where the routing is, not at 0/100
      }
      if (onFor > 0)
        expect(w.records.map((r) => r.outcome)).toEqual(expect.arrayContaining(['rebased', 'killed']));
      w.kill = 'off';
      expect(await w.until(() => w.phase() === 'failed-over' && w.converged(), 3)).toBe(true);
      expect(w.records.map((r) => r.outcome)).toContain('rebased');
      expect(w.driftAlarm()).toBe(false);
    },
    SLOW,
  );
});

describe('overlapping executions for one group', () => {
  it(
    "an older step's rollback, landing after a newer decision's step, changes nothing (the generation check)",
    async () => {
      const w = new World();
      await failOverTo(w, 10);
      w.holding = true;
      await w.next(); // decides the 50 % step: execution A
      const a = w.lastStarted();
      const g = gate();
      w.beforeCheck = async () => {
        await g.closed;
        return true; // A's check regresses after the wait: A would roll back to 10 %
      };
      const runningA = w.run(a); // A routes 50/50, then waits at its check
      await new Promise((r) => setTimeout(r, 20));
      expect(w.routing()['us-west-2']).toBe(50);
      w.holding = false;
      const checkB = w.beforeCheck;
      w.beforeCheck = null;
      await w.next(); // A still runs, the routing is as intended: the planner takes the last step (B)
      expect(w.routing()).toEqual({ 'us-east-1': 0, 'us-west-2': 100 });
      w.beforeCheck = checkB;
      g.open();
      expect((await runningA).outcome).toBe('superseded');
      expect(w.routing()).toEqual({ 'us-east-1': 0, 'us-west-2': 100 });
      w.beforeCheck = null;
      expect(await convergesWithin3(w)).toBe(1);
      expect(w.phase()).toBe('failed-over');
    },
    SLOW,
  );
});

describe('a failover during a failback step that retries', () => {
  /** Failed over, east recovered: the failback's first step landed (east 10 %), the second (F2) is decided, not run. */
  async function failingBack(w: World) {
    await failOverTo(w, 100);
    w.health['us-east-1'] = 'ok';
    expect(await w.until(() => west(w) === 90)).toBe(true);
    expect(w.lastStarted().result?.outcome).toBe('finished');
    w.holding = true;
    await w.next(); // the next failback step (east 50 %): F2
    expect(west(w)).toBe(50);
    w.holding = false;
    return w.lastStarted();
  }

  it(
    "the planner's rollback goes ahead; the failback step's retry then changes nothing (the generation check before every attempt)",
    async () => {
      const w = new World();
      const f2 = await failingBack(w);
      const g = gate();
      let checks = 0;
      w.beforeGeneration = async (id) => {
        if (id === f2.input.decisionId && ++checks === 2) await g.closed; // waiting to retry
      };
      w.routeFaults = 1; // F2's first routing attempt is throttled past the SDK's retries
      const runningF2 = w.run(f2);
      await new Promise((r) => setTimeout(r, 20));
      expect(w.routing()['us-west-2']).toBe(90);
      w.health['us-east-1'] = 'failing';
      await w.next(); // east breaches: the planner rolls back to 90/10 (R), ahead of F2
      expect(w.records.at(-1)?.reasons).toContain('ShiftRolledBack');
      expect(west(w)).toBe(90);
      g.open();
      expect((await runningF2).outcome).toBe('superseded');
      expect(w.routing()['us-west-2']).toBe(90); // the retry did not land: not 50/50, not 10/90
      for (let i = 0; i < 3; i++) {
        await w.next();
        expect(w.converged()).toBe(true);
      }
      expect(w.driftAlarm()).toBe(false);
    },
    SLOW,
  );

  it(
    'a routing write already in flight when the rollback is decided lands late; the next evaluation sees it and the routing meets the intent again',
    async () => {
      const w = new World();
      const f2 = await failingBack(w);
      const g = gate();
      let first = true;
      w.beforeRoute = async () => {
        if (first) {
          first = false;
          await g.closed; // F2's write is on the wire
        }
      };
      const runningF2 = w.run(f2);
      await new Promise((r) => setTimeout(r, 20));
      w.health['us-east-1'] = 'failing';
      await w.next(); // the planner rolls back to 90/10 (R)
      g.open();
      await runningF2;
      expect(w.routing()['us-west-2']).toBe(50); // the late write
      expect(await convergesWithin3(w)).toBeLessThanOrEqual(3);
      expect(w.driftAlarm()).toBe(false);
    },
    SLOW,
  );
});

describe('every region failing mid-shift', () => {
  it(
    'the rollback is judged by the region traffic returns to and is not itself rolled back: 100/0 stays',
    async () => {
      // Two breaches of three fail a region: the standby breaching once is degraded, so the planner rolls back.
      const w = new World({ failPeriods: 2, failWindowPeriods: 3, recoverPeriods: 4 });
      await failOverTo(w, 10);
      w.health['us-west-2'] = 'failing';
      await w.next();
      expect(w.records.at(-1)?.reasons).toContain('ShiftRolledBack');
      const rollback = w.lastStarted();
      expect(rollback.result?.outcome).toBe('returned-unhealthy');
      expect(w.routing()).toEqual({ 'us-east-1': 100, 'us-west-2': 0 });
      for (let i = 0; i < 3; i++) {
        await w.next();
        expect(w.converged()).toBe(true);
        expect(w.routing()['us-west-2']).toBe(0);
      }
    },
    SLOW,
  );
});
