/**
 * The capacity mix in the evaluator (functions/evaluate/mix-plan.ts): the loss cover of the
 * forecast under the plan in force is a floor (MixPlanFloor) and the budget a ceiling on
 * scale-out (BudgetCapped). Replays through the evaluate harness (every SDK client mocked): the
 * group chat-asg runs 12 instances; its MIX#chat-asg PLAN item holds the plan the real planner
 * (stepMix) makes for a flat p90 of 10 instances (12: 6 on-demand, 2 spot in each of 3 pools);
 * its state item holds the forecast function's floor schedule; the PLAN item rides in the tick's
 * BatchGetItem of state items.
 */
import { SetDesiredCapacityCommand } from '@aws-sdk/client-auto-scaling';
import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { initialMixState, stepMix } from '#shared/mix/plan.ts';
import { affordableCapacity } from '#shared/mix/shift.ts';
import { type MixState, resolveMixPolicy } from '#shared/mix/types.ts';
import { policyOrThrow } from '#shared/policy/load.ts';
import { decodeState } from '#shared/state/item.ts';
import { POOLS } from '../mix/harness.ts';
import { CONFIG, fakeGroup, harness } from './harness.ts';
import { eventFile } from './support.ts';

const TICK = { ...(eventFile('scheduler-tick') as object), id: 'mix-tick' };
const NOW = Date.parse('2025-06-02T12:00:30Z');

const mixTarget = (maxUsdPerHour?: number, overProvision?: number) => ({
  id: 'chat-asg',
  kind: 'ec2-asg',
  region: 'us-east-1',
  autoScalingGroupName: 'chat-asg',
  scaling: { minCapacity: 2, maxCapacity: 40 },
  signals: [{ metric: 'gpuUtilization', target: 70 }],
  forecast: { quantile: 'p90', requestsPerInstance: 100, leadTimeMinutes: 10 },
  // Undamped: one period scales in or out, a step may go all the way.
  damping: {
    scaleOutBreaches: 1,
    scaleInBreaches: 1,
    scaleInStabilizationSeconds: 60,
    scaleInCooldownSeconds: 0,
    stepUp: { instances: 40, percent: 400 },
    stepDown: { instances: 40, percent: 100 },
  },
  capacityMix: {
    pools: POOLS,
    committed: { instances: 2, instanceType: 'g5.2xlarge', usdPerHour: 0.76 },
    spot: { maxPercent: 60, ...(overProvision !== undefined ? { overProvision } : {}) },
    ...(maxUsdPerHour !== undefined ? { maxUsdPerHour } : {}),
  },
});

const policyFor = (maxUsdPerHour?: number, overProvision?: number) => ({
  version: 1,
  targets: [mixTarget(maxUsdPerHour, overProvision)],
});

/** The planner's state for a flat p90 of 10 instances over the next hours, as the mix function stores it. */
function plannedState(maxUsdPerHour?: number): MixState {
  const policy = resolveMixPolicy(policyOrThrow(policyFor(maxUsdPerHour)).targets[0]!)!;
  const points = Array.from({ length: 24 }, (_, i) => ({ at: NOW + i * 15 * 60_000, p50: 8, p90: 10 }));
  return stepMix(initialMixState(), { forecast: { points } }, policy, NOW).state;
}

/** The forecast function's floor schedule from 10 minutes ago: `need` instances at every step, planned over a 10-minute lead (the replacement lead the mix floor covers). */
const forecastFloor = (need: number) => ({
  quantile: 'p90',
  computedAt: NOW - 10 * 60_000,
  startsAt: Date.parse('2025-06-02T11:50:00Z'),
  stepMinutes: 5,
  leadTimeMinutes: 10,
  capacities: Array.from({ length: 48 }, () => need),
});

function setup(opts: {
  gpu: number;
  maxUsdPerHour?: number;
  item?: Record<string, unknown> | 'none';
  need?: number | null;
  overProvision?: number;
}) {
  const h = harness();
  const need = opts.need === undefined ? 10 : opts.need;
  if (need !== null)
    h.table.items.set('TARGET#chat-asg|STATE', {
      pk: 'TARGET#chat-asg',
      sk: 'STATE',
      forecastFloor: forecastFloor(need),
    });
  h.parameters.set(
    CONFIG.POLICY_PARAMETER_NAME,
    JSON.stringify(policyFor(opts.maxUsdPerHour, opts.overProvision)),
  );
  h.metricValues.nvidia_smi_utilization_gpu = opts.gpu;
  fakeGroup(h.mocks.asg, 'chat-asg', { desired: 12, ready: 12, policies: [] });
  const item =
    opts.item ??
    ({ pk: 'MIX#chat-asg', sk: 'PLAN', version: 3, state: plannedState(opts.maxUsdPerHour) } as const);
  if (item !== 'none') h.table.items.set('MIX#chat-asg|PLAN', item);
  return h;
}

const planUsd = () => `${plannedState().plan?.usdPerHour.toFixed(2)} USD/h`;
const recordOf = async (h: ReturnType<typeof setup>) => (await h.evaluate(TICK, NOW)).records[0]!;
const mixInput = (r: { inputs: unknown }) => (r.inputs as { mixPlan?: unknown }).mixPlan;

describe('the capacity mix plan in the evaluator', () => {
  it.each([
    {
      case: "the forecast's 10 holds the group at 12 though its signals ask for 5: losing a pool of 2 spot leaves 10",
      need: 10,
      desired: 12,
      reasons: ['ScaleInBreach', 'ForecastFloor', 'MixPlanFloor'],
      detail: `plan in force: 12 instances, 6 spot (${planUsd()}); held at 12 or more: losing its largest spot pool leaves the 10 the forecast needs over the next 10 min; 2 committed, paid whether they run or not, held running; no budget`,
    },
    {
      case: "a quieter forecast now than the plan's peak holds less than the plan's 12",
      need: 6,
      desired: 7,
      reasons: ['ScaleInBreach', 'ForecastFloor', 'MixPlanFloor'],
      detail: `plan in force: 12 instances, 6 spot (${planUsd()}); held at 7 or more: losing its largest spot pool leaves the 6 the forecast needs over the next 10 min; 2 committed, paid whether they run or not, held running; no budget`,
    },
    {
      case: 'no fresh forecast floor: no loss cover to hold, the signals decide',
      need: null,
      desired: 5,
      reasons: ['ScaleInBreach'],
      detail: `plan in force: 12 instances, 6 spot (${planUsd()}); no fresh forecast floor to size the loss cover on; 2 committed, paid whether they run or not, held running; no budget`,
    },
    {
      case: 'signals asking for fewer than the 2 committed: the committed base stays running (paid either way)',
      gpu: 4,
      need: null,
      desired: 2,
      reasons: ['ScaleInBreach', 'CommittedFloor'],
      detail: `plan in force: 12 instances, 6 spot (${planUsd()}); no fresh forecast floor to size the loss cover on; 2 committed, paid whether they run or not, held running; no budget`,
    },
  ])('$case', async ({ gpu, need, desired, reasons, detail }) => {
    expect(plannedState().plan?.capacity).toBe(12);
    const record = await recordOf(setup({ gpu: gpu ?? 25, need }));
    expect([record.decision?.desiredCapacity, record.decision?.reasons]).toEqual([desired, reasons]);
    expect(mixInput(record)).toMatchObject({
      capacity: reasons.includes('MixPlanFloor') ? desired : null,
      committed: 2,
      detail,
    });
  });

  it('holds spot.overProvision spot instances beyond what the load asks while the plan runs spot, and stores what it held', async () => {
    const h = setup({ gpu: 25, need: null, overProvision: 2 });
    const record = await recordOf(h);
    expect([record.decision?.desiredCapacity, record.decision?.reasons, record.outcome]).toEqual([
      7,
      ['ScaleInBreach', 'SpotHeadroom'],
      'applied',
    ]);
    expect(mixInput(record)).toMatchObject({
      spotHeadroom: 2,
      detail: `plan in force: 12 instances, 6 spot (${planUsd()}); no fresh forecast floor to size the loss cover on; 2 committed, paid whether they run or not, held running; 2 spot held beyond what the load asks (overProvision); no budget`,
    });
    // Stored as the engine's state, and read back by the next tick as it is (not set aside).
    const stored = decodeState(h.table.items.get('TARGET#chat-asg|STATE') as Record<string, unknown>);
    expect([stored.engine?.spotHeadroom?.held, stored.problems]).toEqual([2, []]);
  });

  it('a refused write of the headroom is asked again at the next tick, from the group as it stands', async () => {
    // 12 instances at the target: the load asks for 12, the headroom makes 14.
    const h = setup({ gpu: 70, need: null, overProvision: 2 });
    h.mocks.asg.on(SetDesiredCapacityCommand).rejects(new Error('ScalingActivityInProgress'));
    const first = await recordOf(h);
    expect([first.decision?.desiredCapacity, first.decision?.reasons, first.outcome]).toEqual([
      14,
      ['WithinBand', 'SpotHeadroom'],
      'failed',
    ]);
    // The group still runs 12: none of them is taken for headroom, so the same 14 is asked again.
    h.mocks.asg.on(SetDesiredCapacityCommand).resolves({});
    const next = (await h.evaluate({ ...TICK, id: 'mix-tick-2' }, NOW + 60_000)).records[0]!;
    expect([
      next.decision?.currentCapacity,
      next.decision?.desiredCapacity,
      next.decision?.reasons,
      next.outcome,
    ]).toEqual([12, 14, ['WithinBand', 'SpotHeadroom'], 'applied']);
  });

  it('holds no spot headroom when the PLAN item cannot be read: the plan in force is unknown, so the signals decide', async () => {
    const h = setup({ gpu: 25, need: null, overProvision: 2 });
    h.mocks.ddb.on(BatchGetCommand).rejects(new Error('ProvisionedThroughputExceededException'));
    const record = await recordOf(h);
    expect([record.outcome, record.decision?.desiredCapacity, record.decision?.reasons]).toEqual([
      'applied',
      5,
      ['ScaleInBreach'],
    ]);
    expect(mixInput(record)).toMatchObject({
      capacity: null,
      detail:
        'the read of MIX#chat-asg failed (Error: ProvisionedThroughputExceededException): no mix floor or ceiling',
    });
    expect(mixInput(record)).not.toHaveProperty('spotHeadroom');
  });

  it('holds no spot headroom without the setting: the record has none', async () => {
    const record = await recordOf(setup({ gpu: 25, need: null }));
    expect(mixInput(record)).not.toHaveProperty('spotHeadroom');
    expect(record.decision?.reasons).not.toContain('SpotHeadroom');
  });

  it('says why in one sentence, with the floor it held', async () => {
    const record = await recordOf(setup({ gpu: 25 }));
    expect([record.decision?.message, record.outcome]).toEqual([
      'Hold at 12 instances: every signal has been below its band for 1 period; the forecast for the provisioning lead time needs at least this much; the capacity mix needs 12 instances so that losing its largest spot pool still serves the forecast.',
      'held',
    ]);
  });

  it('the budget stops a scale-out at what it pays for, says so, and the group is set there', async () => {
    const budget = 14;
    const state = plannedState(budget);
    const policy = resolveMixPolicy(policyOrThrow(policyFor(budget)).targets[0]!)!;
    const ceiling = affordableCapacity(policy, state.plan!)!;
    expect(ceiling).toBeGreaterThan(12);
    expect(ceiling).toBeLessThan(24);
    const h = setup({ gpu: 120, maxUsdPerHour: budget });
    const record = await recordOf(h);
    expect([record.decision?.desiredCapacity, record.decision?.reasons, record.outcome]).toEqual([
      ceiling,
      ['ScaleOutBreach', 'BudgetCapped'],
      'applied',
    ]);
    expect(record.decision?.message).toMatch(
      new RegExp(
        `the budget of 14\\.00 USD/h pays for ${ceiling} instances, so scale-out stops there: the SLO is at risk for money\\.$`,
      ),
    );
    expect(h.mocks.asg.calls().map((c) => (c.args[0] as object).constructor.name)).toContain(
      'SetDesiredCapacityCommand',
    );
  });

  it('reads the PLAN item in the same BatchGetItem as the state item, with no GetItem', async () => {
    const h = setup({ gpu: 70 });
    await h.evaluate(TICK, NOW);
    const batches = h.mocks.ddb.commandCalls(BatchGetCommand);
    expect(batches.map((c) => c.args[0].input.RequestItems?.['governor-state']?.Keys)).toEqual([
      [
        { pk: 'TARGET#chat-asg', sk: 'STATE' },
        { pk: 'MIX#chat-asg', sk: 'PLAN' },
      ],
    ]);
    expect(h.takeCalls().filter((c) => c === 'DynamoDB.Get')).toEqual([]);
  });

  it.each([
    {
      case: 'no PLAN item yet',
      item: 'none' as const,
      detail: 'no MIX#chat-asg item yet (the mix function plans every 5 minutes): no mix floor or ceiling',
    },
    {
      case: 'a malformed PLAN item',
      item: { pk: 'MIX#chat-asg', sk: 'PLAN', version: 1, state: { version: 1, plan: 'twelve' } },
      detail: 'MIX#chat-asg holds a malformed state: no mix floor or ceiling',
    },
    {
      case: 'a state without a plan (no forecast seen yet)',
      item: {
        pk: 'MIX#chat-asg',
        sk: 'PLAN',
        version: 1,
        state: { version: 1, plan: null, lastChangeAt: null, pendingSince: null },
      },
      detail: 'MIX#chat-asg holds no plan yet (no forecast seen): no mix floor or ceiling',
    },
  ])('$case: the signals decide alone, and the record says why', async ({ item, detail }) => {
    const record = await recordOf(setup({ gpu: 25, item }));
    expect([record.decision?.desiredCapacity, record.decision?.reasons]).toEqual([
      10,
      ['ScaleInBreach', 'ForecastFloor'],
    ]);
    expect(mixInput(record)).toMatchObject({ capacity: null, ceiling: null, detail });
  });

  it('a PLAN key left unprocessed gives no floor this tick, and the state is still read', async () => {
    const h = setup({ gpu: 25, need: null });
    h.mocks.ddb.on(BatchGetCommand).callsFake(async () => ({
      Responses: { 'governor-state': [] },
      UnprocessedKeys: { 'governor-state': { Keys: [{ pk: 'MIX#chat-asg', sk: 'PLAN' }] } },
    }));
    const record = await recordOf(h);
    expect(record.decision?.desiredCapacity).toBe(5);
    expect(mixInput(record)).toMatchObject({
      capacity: null,
      detail: 'MIX#chat-asg was left unprocessed by BatchGetItem: no mix floor or ceiling',
    });
  });

  it('a failed batched read leaves no floor, names the failure, and each target reads its own state', async () => {
    const h = setup({ gpu: 25, need: null });
    h.mocks.ddb
      .on(BatchGetCommand)
      .rejects(Object.assign(new Error('slow down'), { name: 'ThrottlingException' }));
    const record = await recordOf(h);
    expect(record.decision?.desiredCapacity).toBe(5);
    expect(mixInput(record)).toMatchObject({
      capacity: null,
      detail: 'the read of MIX#chat-asg failed (ThrottlingException: slow down): no mix floor or ceiling',
    });
  });
});
