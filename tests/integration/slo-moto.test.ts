/**
 * The error budget against moto over HTTP: the evaluate Lambda handler itself (handler.ts, with
 * its environment pointed at moto) through the real AWS SDK, one tick a minute for eight minutes,
 * the clock moved between them (only Date is faked; the SDK's timers are real).
 *
 * moto computes no percentiles (a p95 query fails its whole GetMetricData call), so the latency
 * signal reads a server-published p95 (`Demo/LLM P95LatencyMs`, Maximum per minute) through the
 * signal's `cloudwatch` override, as a fleet whose server publishes its own p95 would. Shadow mode:
 * Governor decides and records, starts nothing (moto runs no scale-target state machine here).
 *
 * Timeline: four minutes at 900 ms, then four at 2,600 ms against an SLO of 2,000 ms (99.5 % of
 * minutes over 30 days). Read back from moto's DynamoDB: the state item's ledger holds the eight
 * minutes and the headroom the pure control reaches over the same minutes; the audit items carry
 * it on each decision; the EMF lines carry the attainment and the burn rates.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parsePolicyText } from '#shared/policy/load.ts';
import type { HeadroomState } from '#shared/slo/control.ts';
import { SliLedger } from '#shared/slo/ledger.ts';
import { sloOf } from '#shared/slo/objective.ts';
import { sliSample, stepSlo } from '#shared/slo/step.ts';
import { type MotoServer, motoGate, startMoto, TEST_REGION } from '../support/moto.ts';
import {
  decisionRecords,
  evaluateStackOnMoto,
  serverP95Signal,
  storedStateOf,
  tickAfterMinute,
  withFakeDateAndEmf,
} from '../support/moto-evaluate-handler.ts';

const gate = motoGate();
const ENDPOINT = 'chat-llm-prod';
const MIN = 60_000;
/** A minute start well in the past of any real clock, so nothing here is read as the future. */
const T0 = Date.parse('2025-06-02T12:00:00Z');
const LATENCY = [900, 900, 900, 900, 2600, 2600, 2600, 2600];

const POLICY = `version: 1
targets:
  - id: chat-llm
    kind: sagemaker-variant
    region: ${TEST_REGION}
    endpointName: ${ENDPOINT}
    scaling: { minCapacity: 1, maxCapacity: 10 }
    signals:
      - { metric: invocationsPerInstance, target: 84, tolerance: 0.25 }
${serverP95Signal(ENDPOINT)}
    slo: { objective: { minutes: 0.995 }, windowDays: 30 }
`;

/** The pure control over the same minutes (as the backtest steps it): the headroom after each. */
function pureHeadroom() {
  const parsed = parsePolicyText(POLICY);
  if (!parsed.ok) throw new Error('the test policy is invalid');
  const slo = sloOf(parsed.policy.targets[0]!);
  const control = slo.control!;
  const ledger = new SliLedger(control.fastWindowMinutes, slo.windowMinutes);
  let state: HeadroomState | undefined;
  return LATENCY.map((ms, i) => {
    const now = T0 + (i + 1) * MIN + 5_000;
    const step = stepSlo(
      ledger,
      state,
      [sliSample(T0 / MIN + i + 1, ms, 2000, 160)!],
      { ...slo, control },
      now,
    );
    state = step.headroom.state;
    return step.headroom;
  });
}

describe.skipIf(!gate.available)('the error budget on moto, through the evaluate handler', () => {
  let moto: MotoServer;
  let doc: DynamoDBDocumentClient;
  const emf: Record<string, unknown>[] = [];

  beforeAll(async () => {
    moto = await startMoto();
    const stack = await evaluateStackOnMoto(moto, POLICY, ENDPOINT);
    doc = stack.doc;
    await withFakeDateAndEmf(emf, async () => {
      for (const [i, ms] of LATENCY.entries()) {
        const minute = T0 + i * MIN;
        // The tick 5 s into the next minute reads this one, as the scheduler's would.
        await tickAfterMinute(stack, ENDPOINT, minute, { perInstance: 80, p95Ms: ms }, `slo-${i}`);
      }
    });
  }, 60_000);
  afterAll(async () => {
    vi.unstubAllEnvs();
    await moto?.stop();
  });

  const audits = () => decisionRecords(doc, 'chat-llm');

  it('keeps the eight minutes and the pure control’s headroom in the state item', async () => {
    const state = await storedStateOf(doc, 'chat-llm');
    expect(state.problems).toEqual([]);
    const minutes = Array.from({ length: 8 }, (_, i) => T0 / MIN + i + 1);
    expect(state.slo!.ledger.minutes).toEqual(minutes.map((m, i) => [m, LATENCY[i]! <= 2000 ? 1 : 0, 160]));
    expect(state.slo!.ledger.hours).toEqual([[Math.floor(T0 / MIN / 60), 8, 4, 1280, 640]]);
    const pure = pureHeadroom();
    expect(state.slo!.headroom).toEqual(pure.at(-1)!.state);
    expect(pure.at(-1)!.factor).toBeLessThan(1);
  });

  it('records each decision with the headroom it was made under, the burn visible on the record', async () => {
    const records = await audits();
    const pure = pureHeadroom();
    expect(records.map((r) => r.outcome)).toEqual(new Array(8).fill('shadow'));
    expect(records.map((r) => r.decision!.headroom!.factor)).toEqual(pure.map((h) => h.factor));
    expect(records.map((r) => r.decision!.headroom!.reason)).toEqual(pure.map((h) => h.reason));
    expect(records.at(-1)!.inputs.slo).toMatchObject({ observedMinutes: 8, badMinutes: 4, attainment: 0.5 });
    expect(records.map((r) => r.decision!.reasons)).toContainEqual(expect.arrayContaining(['BudgetBurning']));
  });

  it('publishes the attainment, the budget left, the factor and both burn rates as EMF', () => {
    const mine = emf.filter((e) => e.TargetId === 'chat-llm');
    const budget = mine.filter((e) => 'SloAttainment' in e).at(-1);
    expect(budget).toMatchObject({ SloAttainment: 50, HeadroomFactor: pureHeadroom().at(-1)!.factor });
    const burns = mine.filter((e) => 'BurnRate' in e).slice(-2);
    expect(burns.map((e) => e.Window)).toEqual(['fast', 'slow']);
    // 4 bad minutes of 8 over the 0.5 % allowed: 100x in both windows.
    for (const e of burns) expect(e.BurnRate).toBeCloseTo(100, 6);
  });
});
