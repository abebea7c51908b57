/**
 * The mix function's runner (functions/mix/run.ts and target.ts) over in-memory ports, as
 * timelines of 5-minute ticks: what is planned, applied, stored and recorded, and that a failed or
 * withheld write leaves the PLAN item saying only what the group has. The real adapters run
 * against moto in tests/integration/mix-function-moto.test.ts.
 *
 * The world (./mix-world.ts): chat-asg (ec2-asg; 2 committed g5, spot over 3 pools) and chat-sm
 * (a SageMaker variant with a committed base and a budget, no spot), floors of 10 instances.
 */
import { describe, expect, it } from 'vitest';
import { parseMixConfig } from '#functions/mix/config.ts';
import type { MixRecord } from '#functions/mix/record.ts';
import { createMixRunner, MixRunError } from '#functions/mix/run.ts';
import { planFigures } from '#functions/mix/telemetry.ts';
import { initialSpotState } from '#shared/interruptions/state.ts';
import type { MixState } from '#shared/mix/types.ts';
import { at, floorItem, T0, tick, world } from './mix-world.ts';
import { eventFile } from './support.ts';

const outcome = (r: MixRecord) => [r.outcome, r.reasons[0], r.stored, r.group];
const storedVersion = (w: ReturnType<typeof world>['w'], id: string) => w.plans.get(id)?.version ?? 0;

describe('the mix function, active', () => {
  it('plans, applies and stores the first plan, then holds it without a write while the forecast stays', async () => {
    const { w, runAt, last } = world();
    await runAt(0);
    const first = last('chat-asg');
    expect(outcome(first)).toEqual(['applied', 'MixPlanned', 'written', 'applied']);
    expect([first.plan?.capacity, first.plan?.onDemand, first.plan?.spot]).toEqual([12, 6, 6]);
    expect(first.message).toMatch(/^Planned 12 instances/);
    expect(w.applied.map((a) => [a.group, a.plan.capacity])).toEqual([['chat-asg', 12]]);
    expect(storedVersion(w, 'chat-asg')).toBe(1);

    await runAt(5);
    expect(outcome(last('chat-asg'))).toEqual(['unchanged', 'WithinDeadBand', 'unchanged', 'unchanged']);
    expect(storedVersion(w, 'chat-asg')).toBe(1);
    expect(w.applied).toHaveLength(1);
  });

  it('records one decision per target with a capacityMix, in the table and the log, and none for the others', async () => {
    const { w, runAt, records } = world();
    await runAt(0);
    expect(records.map((r) => r.targetId)).toEqual(['chat-asg', 'chat-sm']);
    expect(w.audit.map((a) => [a.pk, String(a.sk).replace(/#m\d+$/, '')])).toEqual([
      ['MIX#chat-asg', 'DECISION#2025-06-02T12:00:20.000Z'],
      ['MIX#chat-sm', 'DECISION#2025-06-02T12:00:20.000Z'],
    ]);
    expect(w.audit[0]!.expiresAt).toBe(Math.floor(at(0) / 1000) + 30 * 86_400);
  });

  it('plans a SageMaker target (no spot there) and stores it for the evaluator, writing no AWS resource', async () => {
    const { w, runAt, last } = world();
    await runAt(0);
    const sm = last('chat-sm');
    expect(outcome(sm)).toEqual(['planned', 'MixPlanned', 'written', 'none']);
    expect([sm.plan?.capacity, sm.plan?.spot, sm.plan?.mixedInstancesPolicy.overrides]).toEqual([
      10,
      0,
      [{ instanceType: 'ml.g5.2xlarge' }],
    ]);
    expect(w.applied.map((a) => a.group)).toEqual(['chat-asg']);
  });

  it.each([
    {
      case: 'a failed write (throttled past its retries)',
      answer: new Error('autoscaling:UpdateAutoScalingGroup on group chat-asg failed (Throttling)'),
      outcome: 'failed',
      throws: true,
    },
    {
      case: 'a refusal (the group has a warm pool)',
      answer: { status: 'refused' as const, message: 'group chat-asg has a warm pool: DeleteWarmPool' },
      outcome: 'refused',
      throws: false,
    },
    {
      case: 'a group mid-update',
      answer: { status: 'busy' as const, message: 'ScalingActivityInProgress' },
      outcome: 'busy',
      throws: false,
    },
  ])(
    '$case stores nothing: the next run plans the same change again and applies it',
    async ({ answer, outcome: expected, throws }) => {
      const { w, runAt, last } = world();
      w.group.push(answer);
      const first = runAt(0);
      if (throws) await expect(first).rejects.toThrow(MixRunError);
      else await first;
      const r = last('chat-asg');
      expect([r.outcome, r.reasons[0], r.stored, r.plan]).toEqual([
        expected,
        'MixPlanned',
        'not-written',
        null,
      ]);
      expect(r.detail).toMatch(/nothing stored: the next run plans again from the state before$/);
      // The claim was given back: the state before (none), on the claim's own version.
      expect([storedVersion(w, 'chat-asg'), w.plans.get('chat-asg')?.state.plan]).toEqual([2, null]);
      expect(storedVersion(w, 'chat-sm')).toBe(1);

      await runAt(5);
      expect(outcome(last('chat-asg'))).toEqual(['applied', 'MixPlanned', 'written', 'applied']);
      expect(storedVersion(w, 'chat-asg')).toBe(3);
    },
  );

  it('a PLAN item that fails to store is a failure that writes no group, and the next run applies and stores it', async () => {
    const { w, runAt, last } = world();
    w.putFails = Object.assign(new Error('slow down'), { name: 'ProvisionedThroughputExceededException' });
    await expect(runAt(0)).rejects.toThrow('mix failed for 2 of 2 targets');
    expect(last('chat-asg').outcome).toBe('failed');
    expect(last('chat-asg').detail).toMatch(
      /the PLAN item was not written \(ProvisionedThroughputExceededException.*no group written/,
    );
    expect(w.applied).toEqual([]);
    w.putFails = null;
    await runAt(5);
    expect(outcome(last('chat-asg'))).toEqual(['applied', 'MixPlanned', 'written', 'applied']);
  });

  it('a decision record that cannot be written is counted (MixRecordWriteFailures, alarmed) and logged, and the run goes on', async () => {
    const { w, runAt, lines } = world();
    w.recordsFail = Object.assign(new Error('slow down'), { name: 'ProvisionedThroughputExceededException' });
    await runAt(0);
    expect(w.counted).toEqual([
      // Every run: nothing is retiring here.
      ['RetirementsOverdue', 0],
      ['MixRecordWriteFailures', 1],
      ['MixRecordWriteFailures', 1],
    ]);
    expect(lines.filter((l) => l.level === 'error').map((l) => l.message)[0]).toMatch(
      /^MixRecordWriteFailed: the decision record m\d+ of chat-asg was not written/,
    );
  });

  it('another writer that stored first wins: this run writes no group, stores nothing, and says Superseded', async () => {
    const { w, runAt, last } = world();
    w.raceNextPut = 'chat-asg';
    await runAt(0);
    expect(last('chat-asg').outcome).toBe('superseded');
    expect(last('chat-asg').reasons[0]).toBe('Superseded');
    expect(last('chat-asg').message).toMatch(/^Changed nothing: MIX#chat-asg was stored by another writer/);
    expect(w.applied).toEqual([]);
    expect(storedVersion(w, 'chat-asg')).toBe(1);
  });

  it('with the spot breaker open (SPOT item) the plan goes on-demand at once: AvailabilityShift', async () => {
    const { w, runAt, last } = world();
    await runAt(0);
    w.spot.set('chat-asg', { spot: { ...initialSpotState(), breakerOpenUntil: at(60) }, version: 3 });
    await runAt(5);
    const r = last('chat-asg');
    expect([r.outcome, r.reasons[0], r.plan?.spot, r.availability?.breakerOpen]).toEqual([
      'applied',
      'AvailabilityShift',
      0,
      true,
    ]);
    expect(r.reasons).toContain('SpotBreakerOpen');
  });

  it('without a fresh forecast floor the plan in force is kept (ForecastMissing), and the group still gets it', async () => {
    const { w, runAt, last } = world();
    await runAt(0);
    w.states.set('chat-asg', floorItem('chat-asg', 30, T0 - 4 * 3_600_000));
    await runAt(5);
    const r = last('chat-asg');
    expect([r.outcome, r.reasons[0], r.plan?.capacity, r.forecast]).toEqual([
      'unchanged',
      'ForecastMissing',
      12,
      null,
    ]);
  });

  it('with no forecast yet and no PLAN item, plans and applies the floor, growing past it on spot', async () => {
    const { w, runAt, last } = world();
    w.states.set('chat-asg', undefined);
    await runAt(0);
    const r = last('chat-asg');
    expect([r.outcome, r.reasons]).toEqual([
      'applied',
      ['ForecastMissing', 'FloorHeld', 'SpotNotCheaper', 'SpotHedge'],
    ]);
    // The committed base of 2, on demand; above it 37 % on demand, the least that keeps spot within
    // 60 % (spot.maxPercent) up to maxCapacity 40 (shared/mix/hedge.ts).
    expect(r.plan).toMatchObject({ capacity: 2, committed: 2, spot: 0 });
    expect(r.plan?.mixedInstancesPolicy).toMatchObject({
      onDemandBaseCapacity: 2,
      onDemandPercentageAboveBaseCapacity: 37,
    });
    expect(r.message).toMatch(/^Planned .* at the floor: no forecast point within the next \d+ h yet/);
    expect(w.plans.get('chat-asg')?.state.plan?.capacity).toBe(2);
    expect(w.applied).toHaveLength(1);
  });

  it('with no forecast and a plan in force, keeps it and writes nothing', async () => {
    const { w, runAt, last } = world();
    w.states.set('chat-asg', undefined);
    await runAt(0);
    const applied = w.applied.length;
    await runAt(5);
    const r = last('chat-asg');
    expect([r.outcome, r.reasons[0], r.group]).toEqual(['unchanged', 'ForecastMissing', 'unchanged']);
    expect(r.message).toMatch(/^Kept /);
    expect(w.applied).toHaveLength(applied);
  });

  it('gives the plan in force its metrics: USD per hour, spot and on-demand, the cost per 1,000 requests', async () => {
    const { runAt, last } = world();
    await runAt(0);
    const r = last('chat-asg');
    expect(r.requestsLastHour).toBe(60_000);
    expect(planFigures(r)).toEqual({
      PlannedUsdPerHour: r.plan!.usdPerHour,
      PlannedSpotInstances: 6,
      PlannedOnDemandInstances: 6,
      BudgetCapped: 0,
      CostPer1kRequestsUsd: r.plan!.usdPerHour / 60,
    });
  });

  it('says BudgetCapped (1) when the budget lowered the plan, and gives no cost per request without requests', async () => {
    const { w, runAt, last } = world();
    // 14 on-demand ml.g5 would cost 2 x 0.95 + 12 x 1.515 = 20.08 USD/h: over the 20 budget.
    w.states.set('chat-sm', floorItem('chat-sm', 14));
    w.requests = null;
    await runAt(0);
    const r = last('chat-sm');
    expect(r.reasons).toContain('BudgetCapped');
    expect(planFigures(r)).toMatchObject({ BudgetCapped: 1 });
    expect(planFigures(r)).not.toHaveProperty('CostPer1kRequestsUsd');
  });

  it('PLAN items that cannot be read, batched or one by one, fail every target: nothing applied, nothing stored', async () => {
    const { w, ports, runAt, records } = world();
    const throttled = async () => {
      throw Object.assign(new Error('throttled'), { name: 'ThrottlingException' });
    };
    ports.items.getMany = throttled;
    ports.items.get = throttled;
    await expect(runAt(0)).rejects.toThrow(MixRunError);
    expect(records.map((r) => [r.outcome, r.detail])).toEqual([
      ['failed', 'cannot read the PLAN item: ThrottlingException: throttled: not planned, nothing changed'],
      ['failed', 'cannot read the PLAN item: ThrottlingException: throttled: not planned, nothing changed'],
    ]);
    expect([w.applied, w.plans.size]).toEqual([[], 0]);
  });

  it('a malformed PLAN item fails its own target alone: the batch is read again item by item', async () => {
    const { w, ports, runAt, records } = world();
    const { get } = ports.items;
    ports.items.getMany = async () => {
      throw Object.assign(new Error('governor-state item pk MIX#chat-sm sk PLAN: state.version is 2'), {
        name: 'MalformedItemError',
      });
    };
    ports.items.get = async (id) => (id === 'chat-sm' ? ports.items.getMany([id]).then(() => null) : get(id));
    await expect(runAt(0)).rejects.toThrow('mix failed for 1 of 2 targets: chat-sm');
    expect(records.map((r) => [r.targetId, r.outcome])).toEqual([
      ['chat-asg', 'applied'],
      ['chat-sm', 'failed'],
    ]);
    expect(records[1]!.detail).toMatch(/^cannot read the PLAN item: MalformedItemError: .*MIX#chat-sm/);
    expect(w.applied.map((a) => a.group)).toEqual(['chat-asg']);
  });

  it('a target not started for lack of time is deferred, with nothing read for it changed', async () => {
    const { w, runAt, records } = world();
    await expect(runAt(0, () => 10_000)).rejects.toThrow(MixRunError);
    expect(records.map((r) => r.outcome)).toEqual(['deferred', 'deferred']);
    expect(records[0]!.detail).toMatch(/^DeadlineReached: 10 s left/);
    expect([w.applied, w.plans.size]).toEqual([[], 0]);
  });
});

describe('the mix function, withheld', () => {
  it('in shadow mode plans and stores the dry run, and writes no group', async () => {
    const { w, runAt, last } = world({ mode: 'shadow' });
    await runAt(0);
    expect(outcome(last('chat-asg'))).toEqual(['shadow', 'MixPlanned', 'written', 'withheld']);
    expect(w.applied).toEqual([]);
    expect(w.plans.get('chat-asg')?.state.plan?.capacity).toBe(12);
  });

  it('with the kill switch on writes no group and stores no plan: the PLAN item keeps saying what the group has', async () => {
    const { w, runAt, last } = world();
    await runAt(0);
    const before: MixState = structuredClone(w.plans.get('chat-asg')!.state);
    w.parameters.set('/governor/kill-switch', 'on');
    w.states.set('chat-asg', floorItem('chat-asg', 30));
    await runAt(5);
    const r = last('chat-asg');
    expect([r.outcome, r.reasons[0], r.stored, r.plan?.capacity]).toEqual([
      'killed',
      'LossCoverRestored',
      'not-written',
      12,
    ]);
    expect(w.plans.get('chat-asg')?.state).toEqual(before);
    expect(w.applied).toHaveLength(1);
  });

  it.each(['on', 'release'])(
    'logs the switch set to %s as information, not an error: the operator asked for it',
    async (value) => {
      const { w, runAt, lines } = world();
      w.parameters.set('/governor/kill-switch', value);
      await runAt(0);
      const said = lines.filter((l) => l.message.includes('no group is written and no plan stored'));
      expect(said.map((l) => l.level)).toEqual(['info']);
    },
  );
});

describe('ticks the mix function refuses, with no read', () => {
  it.each([
    {
      case: 'a tick from another account',
      raw: { ...tick(0), account: '999999999999' },
      reason: 'ForeignAccount',
    },
    { case: 'a tick 10 minutes old', raw: tick(-10), reason: 'StaleEvent' },
    {
      case: 'an EventBridge rule posing as the scheduler',
      raw: { ...tick(0), source: 'aws.events' },
      reason: 'ForeignSource',
    },
  ])('$case', async ({ raw, reason }) => {
    const { w, ports } = world();
    const run = createMixRunner({
      config: parseMixConfig({
        POLICY_PARAMETER_NAME: '/governor/policy',
        STATE_TABLE_NAME: 't',
        KILL_SWITCH_PARAMETER_NAME: '/governor/kill-switch',
      }),
      ports,
      telemetry: { info() {}, warn() {}, error() {}, record() {} },
    });
    const report = await run(raw, at(0), { account: '123456789012' });
    expect([report.ignored?.reason, report.records, w.reads]).toEqual([reason, [], []]);
  });

  it('an alarm event is not its event: it fails naming the field', async () => {
    const { runAt: _r, ports } = world();
    const run = createMixRunner({
      config: parseMixConfig({
        POLICY_PARAMETER_NAME: '/p',
        STATE_TABLE_NAME: 't',
        KILL_SWITCH_PARAMETER_NAME: '/k',
      }),
      ports,
      telemetry: { info() {}, warn() {}, error() {}, record() {} },
    });
    await expect(run(eventFile('alarm-chat-llm-latency'), at(0))).rejects.toThrow(/detail-type is an alarm/);
  });
});
