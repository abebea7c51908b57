/**
 * Replays of the error-budget control in the evaluate function: minute ticks through the real
 * handler code and adapters over aws-sdk-client-mock (./harness.ts), the SLI ledger and headroom
 * kept in the target's state item (`slo`) from one tick to the next.
 *
 * The target (events/replay/slo.yaml): 2 instances, 84 requests a minute per instance as its
 * target with a 25 % band, and a p95 latency SLO of 2,000 ms whose guard only breaches at 1.5 x the
 * SLO, so a minute at 2,600 ms is bad for the SLI without being a scale-out on its own: what moves
 * the capacity after it is the control's factor. Objective: 99.5 % of minutes over 30 days.
 *
 * Timeline (t0 = 12:00:30, each tick reads the minute before it):
 *   t0 .. t0+4   1,000 ms, 84 a minute: the ledger grows a minute a tick;
 *   t0+5 .. t0+8 2,600 ms, 70 a minute: a four-minute incident (4 bad minutes of 9: a fast burn of
 *                89x, more than the whole window's budget paced over 12 hours): the factor falls
 *                (BudgetBurning), the record carries it, and 70 a minute still holds under it;
 *   t0+9         1,000 ms, a load inside the policy's band (below 1.25 x 84) but outside the
 *                factor's (above 1.25 x 84 x factor): a scale-out the plain policy does not make;
 *   t0+10        200 a minute, the kill switch on: a scale-out decided and not made, so the engine
 *                state stays as it was, but the ledger still takes the minute.
 * Every factor and reason is the pure control's (shared/slo/step.ts) stepped over the same minutes,
 * as the backtest steps it; the numbers are read from it, so retuning the controller's constants
 * moves them without breaking what these replays pin: the AWS path runs the same control.
 */
import { readFileSync } from 'node:fs';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { StartExecutionCommand } from '@aws-sdk/client-sfn';
import { describe, expect, it, vi } from 'vitest';
import { powertoolsTelemetry } from '#functions/evaluate/telemetry.ts';
import { parsePolicyText } from '#shared/policy/load.ts';
import type { HeadroomState } from '#shared/slo/control.ts';
import { SliLedger } from '#shared/slo/ledger.ts';
import { sloOf } from '#shared/slo/objective.ts';
import { sliSample, stepSlo } from '#shared/slo/step.ts';
import { decodeState } from '#shared/state/item.ts';
import { CONFIG, eventFile, harness } from './harness.ts';

const SLO_POLICY = readFileSync('events/replay/slo.yaml', 'utf8');

const T0 = Date.parse('2025-06-02T12:00:30Z');
const MIN = 60_000;
const US = 1000; // ModelLatency is in microseconds

/** events/replay/slo.yaml, with its control on (as written) or off. */
const POLICY = (control = true) =>
  control ? SLO_POLICY : SLO_POLICY.replace('control: { enabled: true }', 'control: { enabled: false }');

/** The replay's one target as the functions resolve it (defaults filled). */
function target(policy = POLICY()) {
  const parsed = parsePolicyText(policy);
  if (!parsed.ok) throw new Error(parsed.problems.map((p) => `${p.path} ${p.message}`).join('; '));
  return parsed.policy.targets[0]!;
}

const tickAt = (now: number, id: string) => ({
  ...(eventFile('scheduler-tick') as object),
  id,
  time: new Date(now).toISOString(),
});

/** The minute before `now` as CloudWatch stamps it (period start), read by the tick at `now`. */
const minuteBefore = (now: number) => new Date(Math.floor(now / MIN) * MIN - MIN).toISOString();

interface Minute {
  latencyMs: number;
  perInstance: number;
  killSwitch?: 'on';
}

const GOOD = (perInstance = 84): Minute => ({ latencyMs: 1000, perInstance });
const BAD: Minute = { latencyMs: 2600, perInstance: 70 };
const CALM = Array.from({ length: 5 }, () => GOOD());
const INCIDENT = [...CALM, BAD, BAD, BAD, BAD];

async function replay(
  timeline: readonly Minute[],
  policy = POLICY(),
  item?: Record<string, unknown>,
  failClaimAt?: number,
) {
  const h = harness({ endpoint: { current: 2, desired: 2 } });
  h.parameters.set(CONFIG.POLICY_PARAMETER_NAME, policy);
  if (item) h.table.items.set('TARGET#chat-llm|STATE', item);
  const steps = [];
  for (const [i, m] of timeline.entries()) {
    const now = T0 + i * MIN;
    h.parameters.set(CONFIG.KILL_SWITCH_PARAMETER_NAME, m.killSwitch ?? 'off');
    Object.assign(h.metricValues, { ModelLatency: m.latencyMs * US, InvocationsPerInstance: m.perInstance });
    h.setMetricMinute(minuteBefore(now));
    h.takeCalls();
    // The state item's write refused once (throttled), as DynamoDB would refuse the claim's UpdateItem.
    const set = h.table.items.set.bind(h.table.items);
    if (i === failClaimAt)
      h.table.items.set = (k, v) => {
        h.table.items.set = set;
        if (!k.endsWith('|STATE')) return set(k, v);
        throw Object.assign(new Error('Rate of requests exceeds the allowed throughput'), {
          name: 'ThrottlingException',
        });
      };
    const [record] = (await h.evaluate(tickAt(now, `tick-${i}`), now)).records;
    steps.push({ record: record!, calls: h.takeCalls(), item: structuredClone(h.table.state('chat-llm')) });
  }
  return { h, steps };
}

/** The pure control over the same minutes, as the backtest runs it: the headroom after each. */
function pureHeadroom(timeline: readonly Minute[]) {
  const slo = sloOf(target());
  const control = slo.control!;
  const ledger = new SliLedger(control.fastWindowMinutes, slo.windowMinutes);
  let state: HeadroomState | undefined;
  return timeline.map((m, i) => {
    const now = T0 + i * MIN;
    // The reading's timestamp is the end of its minute: the tick's own minute start.
    const sample = sliSample(Math.floor(now / MIN), m.latencyMs, 2000, m.perInstance * 2)!;
    const step = stepSlo(ledger, state, [sample], { ...slo, control }, now);
    state = step.headroom.state;
    return { factor: step.headroom.factor, reason: step.headroom.reason };
  });
}

/** After the incident: a load the policy's band holds and the lowered factor's does not. */
function afterIncident(): Minute[] {
  const f = pureHeadroom(INCIDENT).at(-1)!.factor;
  // Halfway between the two bands' edges: 1.25 x 84 x f < load < 1.25 x 84.
  const load = Math.round((1.25 * 84 * (1 + f)) / 2);
  return [...INCIDENT, GOOD(load), { latencyMs: 1000, perInstance: 200, killSwitch: 'on' }];
}

describe('the error budget across minute ticks', () => {
  it('grows the ledger in the state item by one minute a tick, with the attainment on the record', async () => {
    const { steps } = await replay(CALM);
    const pure = pureHeadroom(CALM);
    steps.forEach(({ record, item }, i) => {
      expect(decodeState(item).slo?.ledger.minutes).toHaveLength(i + 1);
      expect(record.inputs.slo).toMatchObject({
        objective: '99.5 % of minutes within the SLO over 30 days',
        metric: 'p95LatencyMs',
        sloMs: 2000,
        sample: { minute: Math.floor((T0 + i * MIN) / MIN), good: true, requests: 168 },
        recorded: 1,
        observedMinutes: i + 1,
        badMinutes: 0,
        attainment: 1,
        atRisk: false,
      });
      expect(record.decision!.headroom).toMatchObject({ ...pure[i], remaining: 1 });
      expect(record.decision!.reasons[0]).toBe('WithinBand');
    });
  });

  it('an incident burns the budget: the factor falls, and the record carries it with the burn rates', async () => {
    const { steps } = await replay(INCIDENT);
    const pure = pureHeadroom(INCIDENT);
    steps.forEach(({ record }, i) => {
      expect(record.decision!.headroom).toMatchObject(pure[i]!);
    });
    const burnt = steps.findIndex((s) => s.record.decision!.headroom!.reason === 'BudgetBurning');
    expect(burnt).toBeGreaterThanOrEqual(5);
    const { record, item } = steps[burnt]!;
    const bad = burnt - 4;
    expect(record.decision).toMatchObject({
      action: 'hold',
      reasons: ['WithinBand', 'BudgetBurning'],
      headroom: {
        reason: 'BudgetBurning',
        factor: pure[burnt]!.factor,
        // `bad` minutes of `burnt + 1` over the 0.5 % allowed.
        fastBurn: expect.closeTo(bad / (burnt + 1) / 0.005, 6),
        remaining: expect.closeTo(1 - bad / 216, 9),
      },
    });
    expect(pure[burnt]!.factor).toBeLessThan(pure[burnt - 1]!.factor);
    expect(record.decision!.message).toMatch(/error budget burns \d+\.\dx/);
    expect(record.inputs.slo).toMatchObject({ sample: { good: false }, badMinutes: bad });
    expect(decodeState(item).slo?.headroom.factor).toBe(record.decision!.headroom!.factor);
  });

  it('a claim refused by DynamoDB (throttled) writes nothing; the next tick steps from what is stored, counting no minute twice', async () => {
    const { steps } = await replay(INCIDENT, POLICY(), undefined, 6);
    const ledger = (i: number) => decodeState(steps[i]!.item).slo!.ledger;
    const observed = (i: number) => ledger(i).hours.reduce((n, h) => n + h[1], 0);
    // Tick 6's write failed: its record says so, and the item is tick 5's, byte for byte.
    expect(steps.map((s) => s.record.outcome)).toEqual([...Array(6).fill('held'), 'failed', 'held', 'held']);
    expect(steps[6]!.item).toEqual(steps[5]!.item);
    // Tick 7 reads tick 5's ledger and adds its own minute: tick 6's minute is unobserved, not lost
    // twice or counted twice.
    expect(observed(7)).toBe(observed(5) + 1);
    expect(ledger(7).minutes.map(([m]) => m)).toEqual([
      ...ledger(5).minutes.map(([m]) => m),
      ledger(7).newest,
    ]);
    expect(steps[8]!.record.decision!.headroom!.factor).toBeLessThanOrEqual(
      decodeState(steps[5]!.item).slo!.headroom.factor,
    );
  });

  it('the lowered factor scales out on load the policy as written holds', async () => {
    const timeline = afterIncident().slice(0, -1);
    const { steps } = await replay(timeline);
    const after = steps.at(-1)!.record;
    const { factor } = pureHeadroom(timeline).at(-1)!;
    const load = timeline.at(-1)!.perInstance;
    expect(after.decision).toMatchObject({
      action: 'scale-out',
      desiredCapacity: Math.ceil((2 * load) / (84 * factor)),
      headroom: { factor },
    });
    expect(after.outcome).toBe('started');
    const plain = await replay(timeline, POLICY(false));
    const held = plain.steps.at(-1)!;
    expect(held.record.decision).toMatchObject({ action: 'hold', reasons: ['WithinBand'] });
    expect(held.record.decision!.headroom).toBeUndefined();
    expect(held.record.inputs.slo).toBeUndefined();
    expect(held.item!.slo).toBeUndefined();
  });

  it('a panic under the lowered factor is sized at the written target: the evaluator passes the factor to decide()', async () => {
    // 200 a minute on 2 instances: a panic at the lowered target (2 x 84 x factor), 5 instances
    // at the written 84, 6 at the lowered one.
    const timeline = [...INCIDENT, { latencyMs: 1000, perInstance: 200 }];
    const { steps } = await replay(timeline);
    const { factor } = pureHeadroom(timeline).at(-1)!;
    expect(factor).toBeLessThan(1);
    expect(Math.ceil((2 * 200) / (84 * factor))).toBeGreaterThan(Math.ceil((2 * 200) / 84));
    const { record } = steps.at(-1)!;
    expect(record.decision).toMatchObject({
      action: 'scale-out',
      desiredCapacity: Math.ceil((2 * 200) / 84),
      youngBurst: { factor, minutes: 1 },
      headroom: { factor },
    });
    expect(record.decision!.reasons.slice(0, 2)).toEqual(['PanicScaleOut', 'PanicAtWrittenTargets']);
    expect(record.decision!.message).toContain("met at the written targets, not the error budget's");
  });

  it('keeps the minute while the kill switch is on: the ledger is written back, the engine state is not moved', async () => {
    const timeline = afterIncident();
    const { h, steps } = await replay(timeline);
    const [before, killed] = steps.slice(-2) as [(typeof steps)[0], (typeof steps)[0]];
    expect(killed.record).toMatchObject({ outcome: 'killed', decision: { action: 'scale-out' } });
    expect(killed.calls).toContain('DynamoDB.Update');
    expect(killed.calls).not.toContain('StepFunctions.StartExecution');
    expect(killed.item!.engine).toEqual(before.item!.engine);
    expect(decodeState(killed.item).slo?.ledger.minutes).toHaveLength(timeline.length);
    expect(h.mocks.sfn.commandCalls(StartExecutionCommand)).toHaveLength(1);
  });
});

describe('the stored error budget', () => {
  const stateFile = (name: string) => structuredClone(eventFile(`state/${name}`) as Record<string, unknown>);
  const ONE = [GOOD()];

  it('a spent budget (events/state/slo-exhausted.json: 240 bad minutes, 216 allowed) holds the most headroom and says so', async () => {
    const { steps } = await replay(ONE, POLICY(), stateFile('slo-exhausted'));
    const { record } = steps[0]!;
    const minFactor = sloOf(target()).control!.minTargetFactor;
    expect(record.decision).toMatchObject({
      reasons: expect.arrayContaining(['BudgetExhausted']),
      headroom: { reason: 'BudgetExhausted', factor: minFactor, remaining: expect.closeTo(1 - 240 / 216, 9) },
    });
    expect(record.decision!.message).toMatch(/the error budget is spent/);
    expect(record.inputs.slo).toMatchObject({ observedMinutes: 241, badMinutes: 240, atRisk: true });
  });

  it('ten clean days (events/state/slo-spare.json, the factor at 1.3 in the spare room) lean further, and one bad minute brings the written targets back', async () => {
    const { steps } = await replay([GOOD(), BAD], POLICY(), stateFile('slo-spare'));
    const [clean, bad] = steps.map((s) => s.record);
    // Ten days of good minutes: a pace of 0, so the room is whole (spareRoom.maxFactor 1.5); the
    // control loosens one step, as any spare budget does.
    expect(clean!.decision).toMatchObject({
      reasons: expect.arrayContaining(['BudgetSpare']),
      headroom: { reason: 'BudgetSpare', factor: expect.closeTo(1.3 * 1.01, 9), remaining: 1 },
    });
    expect(clean!.decision!.message).toContain("so load targets stand at 1.31x of the policy's");
    expect(clean!.inputs.slo).toMatchObject({ observedMinutes: 10 * 1440 + 1, badMinutes: 0 });
    // A bad minute is a fast burn of 1 in 60 over 0.005 (3.3): the room shuts that minute.
    expect(bad!.decision).toMatchObject({
      reasons: expect.arrayContaining(['SpareRoomClosed']),
      headroom: { reason: 'SpareRoomClosed', factor: 1 },
    });
    expect(bad!.decision!.message).toContain("the error budget's spare room narrowed");
    expect(decodeState(steps[1]!.item).slo?.headroom.factor).toBe(1);
  });

  it('in the spare room, a state write refused (throttled) leaves the stored factor; the next tick leans from it, counting no minute twice', async () => {
    const { steps } = await replay([GOOD(), GOOD()], POLICY(), stateFile('slo-spare'), 0);
    expect(steps.map((s) => s.record.outcome)).toEqual(['failed', 'held']);
    // Nothing of the refused tick was stored: the factor and the ledger are the item's own.
    expect(decodeState(steps[0]!.item).slo?.headroom.factor).toBe(1.3);
    expect(decodeState(steps[0]!.item).slo?.ledger.newest).toBe(29147759);
    // The next tick steps from 1.3, as if the refused one had not run, and records its own minute.
    const next = steps[1]!.record.decision!.headroom!;
    expect([next.reason, next.factor]).toEqual(['BudgetSpare', expect.closeTo(1.3 * 1.01, 9)]);
    expect(decodeState(steps[1]!.item).slo?.headroom.factor).toBeCloseTo(1.3 * 1.01, 9);
    expect(steps[1]!.record.inputs.slo).toMatchObject({ observedMinutes: 10 * 1440 + 1 });
  });

  it('an item written before the control (events/state/noise.json) loads, and its claim adds the ledger and keeps the rest', async () => {
    const item = stateFile('noise');
    const { h, steps } = await replay(ONE, POLICY(), item);
    expect(steps[0]!.record.outcome).toBe('held');
    expect(decodeState(steps[0]!.item).slo?.ledger.minutes).toHaveLength(1);
    expect(steps[0]!.item).toMatchObject({
      version: 13,
      noise: item.noise,
      forecastFloor: item.forecastFloor,
    });
    expect(h.telemetry.lines.filter((l) => l.level === 'warn')).toEqual([]);
  });

  it('a malformed one (events/state/malformed-slo.json) is set aside with a warning, and the ledger starts again', async () => {
    const { h, steps } = await replay(ONE, POLICY(), stateFile('malformed-slo'));
    expect(steps[0]!.record.decision!.headroom).toMatchObject({ factor: expect.any(Number) });
    expect(decodeState(steps[0]!.item).slo?.ledger.minutes).toHaveLength(1);
    const warnings = h.telemetry.lines.filter((l) => l.level === 'warn').map((l) => l.message);
    expect(warnings).toEqual([
      expect.stringMatching(
        /^state of chat-llm: slo set aside \(the SLI ledger starts empty.*headroom\.factor/,
      ),
    ]);
  });
});

describe('the error budget as metrics', () => {
  it('publishes SloAttainment and ErrorBudgetRemaining in percent, HeadroomFactor, ErrorBudgetAtRisk, and BurnRate by Window', async () => {
    const { steps } = await replay(INCIDENT);
    const record = steps.at(-1)!.record;
    const lines: string[] = [];
    const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      lines.push(
        ...String(chunk)
          .split('\n')
          .filter((l) => l.includes('"_aws"')),
      );
      return true;
    });
    try {
      const telemetry = powertoolsTelemetry(
        new Logger({ serviceName: 'governor' }),
        new Metrics({ namespace: 'Governor', serviceName: 'governor' }),
      );
      telemetry.decision(record, 12);
    } finally {
      out.mockRestore();
    }
    type Emf = { Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] };
    type Blob = Record<string, unknown> & { _aws: { CloudWatchMetrics: Emf[] } };
    const blobs = lines.map((l) => JSON.parse(l) as Blob);
    const sets = blobs.map((b) => {
      const m = b._aws.CloudWatchMetrics[0]!;
      return { dims: m.Dimensions[0]!.join('+'), metrics: m.Metrics.map((x) => `${x.Name}:${x.Unit}`) };
    });
    expect(sets.slice(0, 3)).toEqual([
      {
        dims: 'TargetId',
        metrics: expect.arrayContaining([
          'SloAttainment:Percent',
          'ErrorBudgetRemaining:Percent',
          'HeadroomFactor:None',
          'ErrorBudgetAtRisk:Count',
        ]),
      },
      { dims: 'TargetId+Window', metrics: ['BurnRate:None'] },
      { dims: 'TargetId+Window', metrics: ['BurnRate:None'] },
    ]);
    const h = record.decision!.headroom!;
    expect(blobs[0]).toMatchObject({
      TargetId: 'chat-llm',
      SloAttainment: expect.closeTo((5 / 9) * 100, 9),
      ErrorBudgetRemaining: expect.closeTo(h.remaining * 100, 9),
      HeadroomFactor: h.factor,
      ErrorBudgetAtRisk: 0,
    });
    expect(blobs.slice(1, 3)).toEqual([
      expect.objectContaining({ Window: 'fast', BurnRate: h.fastBurn }),
      expect.objectContaining({ Window: 'slow', BurnRate: h.slowBurn }),
    ]);
  });
});
