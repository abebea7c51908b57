/**
 * Replays of the burst floor in the evaluate function: minute ticks through the real handler code
 * and adapters over aws-sdk-client-mock (./harness.ts), the floor's state kept in the target's
 * state item (`slo.burst`) and the forecast function's measurement read from it (`burstDemand`).
 *
 * The target (events/replay/burst-floor.yaml): the error-budget replays' (2 instances, 84 requests
 * a minute per instance as its target) with 100 requests a minute per instance at the SLO. The
 * item (events/state/burst-floor.json): 240 bad minutes of 241 (the budget spent: a pace of
 * 240 / 720 / 0.005 = 67), the control at minTargetFactor (0.3), 80 requests in each minute of the
 * fast window, and a burst demand of 450 requests a minute measured at 12:00:10.
 *
 * Each tick reads the minute before it at 1,000 ms and 84 a minute per instance (168 in all):
 * the fast window's level is then the median of 59 minutes of 80 and one of 168, 80. The floor is
 * ceil(450 / 100) = 5; the lowered targets would hold ceil(80 / (84 x 0.3)) = 4 at that level, so
 * the floor covers them and the targets stand as written.
 */
import { readFileSync } from 'node:fs';
import { StartExecutionCommand } from '@aws-sdk/client-sfn';
import { describe, expect, it } from 'vitest';
import type { DecisionRecord } from '#shared/apply/records.ts';
import { decodeState } from '#shared/state/item.ts';
import { CONFIG, eventFile, harness } from './harness.ts';

const TEXT = readFileSync('events/replay/burst-floor.yaml', 'utf8');
const WRITTEN = 'burstFloor: { enabled: true, windowMinutes: 1440 }';
/** events/replay/burst-floor.yaml with its burstFloor as written, or as given. */
const POLICY = (burstFloor = WRITTEN) => TEXT.replace(WRITTEN, burstFloor);
const OFF = POLICY('burstFloor: { enabled: false }');

const T0 = Date.parse('2025-06-02T12:00:30Z');
const MIN = 60_000;
const WINDOW = 1440 * MIN;
const US = 1000; // ModelLatency is in microseconds
/** The written target, and the lowered one at minTargetFactor 0.3. */
const WRITTEN_TARGET = 84;
const LOWERED_TARGET = 84 * 0.3;

const stateFile = (name: string) => structuredClone(eventFile(`state/${name}`) as Record<string, unknown>);
/** events/state/burst-floor.json with its stored parts changed. */
const withBurst = (over: { demand?: number; burst?: unknown; base?: string }) => {
  const item = stateFile(over.base ?? 'burst-floor');
  if (over.demand !== undefined) item.burstDemand = { ...(item.burstDemand as object), demand: over.demand };
  if (over.burst !== undefined) (item.slo as Record<string, unknown>).burst = over.burst;
  return item;
};

const tickAt = (now: number, id: string) => ({
  ...(eventFile('scheduler-tick') as object),
  id,
  time: new Date(now).toISOString(),
});
/** The minute before `now` as CloudWatch stamps it (period start), read by the tick at `now`. */
const minuteBefore = (now: number) => new Date(Math.floor(now / MIN) * MIN - MIN).toISOString();

interface Step {
  record: DecisionRecord;
  item: Record<string, unknown> | undefined;
  /** The SDK calls of the tick, in order. */
  calls: string[];
}

/**
 * `ticks` minute ticks from T0 over `item`, each reading a minute at 1,000 ms and 84 a minute per
 * instance; `before(h, i)` may inject a fault into tick i.
 */
async function replay(
  ticks: number,
  policy: string,
  item: Record<string, unknown>,
  before?: (h: ReturnType<typeof harness>, i: number) => void,
) {
  const h = harness({ endpoint: { current: 2, desired: 2 } });
  h.parameters.set(CONFIG.POLICY_PARAMETER_NAME, policy);
  h.table.items.set('TARGET#chat-llm|STATE', item);
  const steps: Step[] = [];
  for (let i = 0; i < ticks; i++) {
    const now = T0 + i * MIN;
    Object.assign(h.metricValues, { ModelLatency: 1000 * US, InvocationsPerInstance: 84 });
    h.setMetricMinute(minuteBefore(now));
    h.takeCalls();
    before?.(h, i);
    const [record] = (await h.evaluate(tickAt(now, `tick-${i}`), now)).records;
    steps.push({ record: record!, item: structuredClone(h.table.state('chat-llm')), calls: h.takeCalls() });
  }
  return { h, steps };
}

const loadTarget = (r: DecisionRecord) =>
  r.decision!.signals.find((s) => s.metric === 'invocationsPerInstance')!.target;

describe('the burst floor across minute ticks', () => {
  it('a spent budget at the most headroom with a measured burst demand: 5 instances stand, the targets as written', async () => {
    const { steps } = await replay(1, POLICY(), stateFile('burst-floor'));
    const { record, item } = steps[0]!;
    expect(record.decision).toMatchObject({
      action: 'scale-out',
      currentCapacity: 2,
      desiredCapacity: Math.ceil(450 / 100),
      reasons: expect.arrayContaining(['BurstFloor', 'BudgetExhausted']),
      burstFloor: { capacity: 5, demand: 450, quantile: 0.996, until: T0 + WINDOW, asWritten: true },
      // The control's own factor, on the record: the floor holds its headroom instead.
      headroom: { factor: 0.3, reason: 'BudgetExhausted' },
    });
    // As written: 84 a minute per instance is within the band of 84, where 25.2 would be a panic.
    expect(loadTarget(record)).toBe(WRITTEN_TARGET);
    expect(record.decision!.signals[0]!.status).toBe('within');
    expect(record.decision!.youngBurst).toBeUndefined();
    expect(record.decision!.message).toContain('5 instances stand until 2025-06-03 12:00 UTC');
    expect(record.decision!.message).toContain(
      'held by the burst floor instead: load targets stand as written',
    );
    expect(record.outcome).toBe('started');
    // Stored with the ledger: a window after this triggering minute.
    expect(decodeState(item).slo?.burst).toEqual({ standUntil: T0 + WINDOW });
    expect(decodeState(item).burstDemand).toEqual(stateFile('burst-floor').burstDemand);
  });

  it('where the level needs more than the floor (250 a minute: 3 instances, the lowered targets hold 4), the factor stays and the floor stands beneath', async () => {
    const low = withBurst({ demand: 250 });
    const { steps } = await replay(1, POLICY(), low);
    const off = (await replay(1, OFF, withBurst({ demand: 250 }))).steps[0]!.record;
    const { record } = steps[0]!;
    expect(record.decision!.burstFloor).toEqual({
      capacity: 3,
      demand: 250,
      quantile: 0.996,
      until: T0 + WINDOW,
      asWritten: false,
    });
    expect(loadTarget(record)).toBeCloseTo(LOWERED_TARGET, 9);
    expect(record.decision!.signals).toEqual(off.decision!.signals);
    expect(record.decision!.desiredCapacity).toBe(Math.max(off.decision!.desiredCapacity, 3));
    expect(record.decision!.message).not.toContain('stand as written');
    expect(decodeState(steps[0]!.item).slo?.burst).toEqual({ standUntil: T0 + WINDOW });
  });

  it('stands a window after the last triggering minute: each minute that still triggers moves standUntil', async () => {
    const { steps } = await replay(3, POLICY(), stateFile('burst-floor'));
    expect(steps.map((s) => decodeState(s.item).slo?.burst?.standUntil)).toEqual([
      T0 + WINDOW,
      T0 + MIN + WINDOW,
      T0 + 2 * MIN + WINDOW,
    ]);
    expect(steps.map((s) => s.record.decision!.burstFloor?.until)).toEqual([
      T0 + WINDOW,
      T0 + MIN + WINDOW,
      T0 + 2 * MIN + WINDOW,
    ]);
  });

  it('without a trigger (ten clean days, events/state/slo-spare.json) a standing floor holds until standUntil, then stands down and leaves the item', async () => {
    const item = withBurst({ base: 'slo-spare', burst: { standUntil: T0 + MIN } });
    item.burstDemand = stateFile('burst-floor').burstDemand;
    const { steps } = await replay(2, POLICY(), item);
    const [standing, down] = steps as [Step, Step];
    expect(standing.record.decision!.burstFloor).toMatchObject({ capacity: 5, until: T0 + MIN });
    expect(standing.record.decision!.reasons).toContain('BurstFloor');
    expect(decodeState(standing.item).slo?.burst).toEqual({ standUntil: T0 + MIN });
    expect(down.record.decision!.burstFloor).toBeUndefined();
    expect(down.record.decision!.reasons).not.toContain('BurstFloor');
    expect((down.item!.slo as Record<string, unknown>).burst).toBeUndefined();
  });
});

describe('faults: each call of a standing floor failed in turn, and the next minute reconciles', () => {
  const fault = (name: string, extra: object = {}) => Object.assign(new Error(name), { name, ...extra });
  /** StartExecution fails once with `error`, then starts as the harness does. */
  const startFailsOnce = (error: Error) => (h: ReturnType<typeof harness>, i: number) => {
    if (i !== 0) return;
    let failed = false;
    h.mocks.sfn.on(StartExecutionCommand).callsFake(async (input) => {
      if (!failed) {
        failed = true;
        throw error;
      }
      return {
        executionArn: `${CONFIG.SCALE_STATE_MACHINE_ARN.replace(':stateMachine:', ':execution:')}:${input.name}`,
        startDate: new Date(),
      };
    });
  };
  /** The state item's claim (its UpdateItem) refused once, throttled. */
  const claimRefused = (h: ReturnType<typeof harness>, i: number) => {
    if (i !== 0) return;
    const set = h.table.items.set.bind(h.table.items);
    h.table.items.set = (k, v) => {
      if (!k.endsWith('|STATE')) return set(k, v);
      h.table.items.set = set;
      throw fault('ThrottlingException');
    };
  };
  /** The decision record's write refused (5xx) after the execution started. */
  const recordRefused = (h: ReturnType<typeof harness>, i: number) => {
    if (i !== 0) return;
    const set = h.table.items.set.bind(h.table.items);
    h.table.items.set = (k, v) => {
      if (k.endsWith('|STATE')) return set(k, v);
      h.table.items.set = set;
      throw fault('InternalServerError', { $fault: 'server', $metadata: { httpStatusCode: 500 } });
    };
  };
  const starts = (steps: { calls: string[] }[]) =>
    steps.map((s) => s.calls.filter((c) => c === 'StepFunctions.StartExecution').length);

  it('a claim refused (throttled): nothing stored, nothing started; the next minute stands the floor and starts the one scale-out', async () => {
    const { steps } = await replay(2, POLICY(), stateFile('burst-floor'), claimRefused);
    expect(steps.map((s) => s.record.outcome)).toEqual(['failed', 'started']);
    expect(steps[0]!.item).toEqual(stateFile('burst-floor'));
    expect(starts(steps)).toEqual([0, 1]);
    expect(steps[1]!.record.decision).toMatchObject({ desiredCapacity: 5, burstFloor: { capacity: 5 } });
    expect(decodeState(steps[1]!.item).slo?.burst).toEqual({ standUntil: T0 + MIN + WINDOW });
  });

  it.each([
    ['throttled', fault('ThrottlingException')],
    ['a 5xx', fault('ServiceUnavailable', { $fault: 'server', $metadata: { httpStatusCode: 503 } })],
    ['timed out', fault('TimeoutError')],
  ])(
    'the scale-out refused (%s) after the claim: the floor stays stored, and the next minute starts it again',
    async (_how, error) => {
      const { steps } = await replay(2, POLICY(), stateFile('burst-floor'), startFailsOnce(error));
      expect(steps.map((s) => s.record.outcome)).toEqual(['failed', 'started']);
      // The claim kept the floor's state; the failed start left no intent behind it.
      expect(decodeState(steps[0]!.item).slo?.burst).toEqual({ standUntil: T0 + WINDOW });
      expect(starts(steps)).toEqual([1, 1]);
      expect(steps.map((s) => s.record.decision!.desiredCapacity)).toEqual([5, 5]);
      expect(steps[1]!.record.decision!.reasons).toContain('BurstFloor');
      expect(decodeState(steps[1]!.item).slo?.burst).toEqual({ standUntil: T0 + MIN + WINDOW });
    },
  );

  it('the decision record refused (5xx) after the scale-out started: the next minute holds at the floor and starts nothing again', async () => {
    const { steps } = await replay(2, POLICY(), stateFile('burst-floor'), recordRefused);
    expect(starts(steps)).toEqual([1, 0]);
    expect(steps.map((s) => s.record.decision!.desiredCapacity)).toEqual([5, 5]);
    expect(steps[1]!.record.outcome).toBe('held');
    expect(decodeState(steps[1]!.item).slo?.burst).toEqual({ standUntil: T0 + MIN + WINDOW });
  });
});

describe('items and policies without it', () => {
  /** A record without the ids and times that differ between two replays of the same minute. */
  const same = (r: DecisionRecord) => ({ outcome: r.outcome, decision: r.decision, inputs: r.inputs });

  it('an item from before the feature (events/state/noise.json: no slo, no burstDemand) evaluates exactly as with the floor off', async () => {
    const on = await replay(2, POLICY(), stateFile('noise'));
    const off = await replay(2, OFF, stateFile('noise'));
    expect(on.steps.map((s) => same(s.record))).toEqual(off.steps.map((s) => same(s.record)));
    expect(on.steps.map((s) => s.item)).toEqual(off.steps.map((s) => s.item));
    expect((on.steps[1]!.item!.slo as Record<string, unknown>).burst).toBeUndefined();
  });

  it('a spent budget with no burst demand measured yet (events/state/slo-exhausted.json) decides as with the floor off, and remembers the trigger', async () => {
    const on = await replay(1, POLICY(), stateFile('slo-exhausted'));
    const off = await replay(1, OFF, stateFile('slo-exhausted'));
    const [a, b] = [on.steps[0]!, off.steps[0]!];
    expect(same(a.record)).toEqual(same(b.record));
    expect(a.record.decision!.burstFloor).toBeUndefined();
    // The ledger and headroom as before; the trigger kept, so the first measurement applies at once.
    const { burst, ...rest } = a.item!.slo as Record<string, unknown>;
    expect(rest).toEqual(b.item!.slo);
    expect(burst).toEqual({ standUntil: T0 + WINDOW });
  });

  it('burstFloor.enabled false never stands: the same spent budget and measurement keep the lowered targets, and nothing is stored', async () => {
    const { steps } = await replay(3, OFF, stateFile('burst-floor'));
    for (const { record, item } of steps) {
      expect(record.decision!.reasons).not.toContain('BurstFloor');
      expect(record.decision!.burstFloor).toBeUndefined();
      expect(record.decision!.headroom).toMatchObject({ factor: 0.3, reason: 'BudgetExhausted' });
      expect(loadTarget(record)).toBeCloseTo(LOWERED_TARGET, 9);
      expect((item!.slo as Record<string, unknown>).burst).toBeUndefined();
    }
  });

  it('a malformed burstDemand (events/state/malformed-burst-demand.json) is set aside with a warning: no floor until the next measurement', async () => {
    const { h, steps } = await replay(1, POLICY(), stateFile('malformed-burst-demand'));
    const off = (await replay(1, OFF, stateFile('malformed-burst-demand'))).steps[0]!.record;
    expect(same(steps[0]!.record)).toEqual(same(off));
    const warnings = h.telemetry.lines.filter((l) => l.level === 'warn').map((l) => l.message);
    expect(warnings).toEqual([
      expect.stringMatching(
        /^state of chat-llm: burstDemand set aside \(no burst floor until the next forecast run measures it\): demand .*quantile .*measuredAt/,
      ),
    ]);
  });
});
