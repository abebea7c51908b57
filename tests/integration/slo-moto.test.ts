import { describe, expect, it } from 'vitest';
import { parsePolicyText } from '#shared/policy/load.ts';
import type { HeadroomState } from '#shared/slo/control.ts';
import { SliLedger } from '#shared/slo/ledger.ts';
import { sloOf } from '#shared/slo/objective.ts';
import { sliSample, stepSlo } from '#shared/slo/step.ts';
import { motoGate, TEST_REGION } from '../support/moto.ts';
import {
  decisionRecords,
  evaluateRunOnMoto,
  serverP95Signal,
  storedStateOf,
  tickAfterMinute,
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
  const run = evaluateRunOnMoto(POLICY, ENDPOINT, async (stack) => {
    for (const [i, ms] of LATENCY.entries()) {
      const minute = T0 + i * MIN;
      // The tick 5 s into the next minute reads this one, as the scheduler's would.
      await tickAfterMinute(stack, ENDPOINT, minute, { perInstance: 80, p95Ms: ms }, `slo-${i}`);
    }
  });

  const audits = () => decisionRecords(run.doc, 'chat-llm');

  it('keeps the eight minutes and the pure control’s headroom in the state item', async () => {
    const state = await storedStateOf(run.doc, 'chat-llm');
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
    const mine = run.emf.filter((e) => e.TargetId === 'chat-llm');
    const budget = mine.filter((e) => 'SloAttainment' in e).at(-1);
    expect(budget).toMatchObject({ SloAttainment: 50, HeadroomFactor: pureHeadroom().at(-1)!.factor });
    const burns = mine.filter((e) => 'BurnRate' in e).slice(-2);
    expect(burns.map((e) => e.Window)).toEqual(['fast', 'slow']);
    // 4 bad minutes of 8 over the 0.5 % allowed: 100x in both windows.
    for (const e of burns) expect(e.BurnRate).toBeCloseTo(100, 6);
  });
});
