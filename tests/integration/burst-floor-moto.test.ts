/**
 * The burst floor on moto, through the evaluate handler itself and the real SDK: the state item
 * the forecast function and earlier evaluations would have left (events/state/burst-floor.json:
 * the budget spent, the control at minTargetFactor 0.3, a burst demand of 450 requests a minute)
 * put in the table, three minutes ticked in shadow mode, and the decisions and the item read back.
 * The fixture's ledger ends at 11:59, so the ticks' minutes (12:00-12:02) follow it.
 */
import { readFileSync } from 'node:fs';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { motoGate, TEST_REGION } from '../support/moto.ts';
import {
  decisionRecords,
  EVALUATE_NAMES,
  evaluateRunOnMoto,
  serverP95Signal,
  storedStateOf,
  tickAfterMinute,
} from '../support/moto-evaluate-handler.ts';

const gate = motoGate();
const ENDPOINT = 'chat-llm-prod';
const MIN = 60_000;
const T0 = Date.parse('2025-06-02T12:00:00Z');
const WINDOW = 1440 * MIN;
const TICKS = 3;

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
    instanceCapacity: { requestsPerMinuteAtSlo: 100 }
    slo: { objective: { minutes: 0.995 }, windowDays: 30 }
`;

/** The fixture as read (not through tests/functions/harness.ts: it mocks the SDK's clients). */
const ITEM = JSON.parse(readFileSync('events/state/burst-floor.json', 'utf8')) as Record<string, unknown>;

/** When the tick after minute i runs (5 s into the next minute). */
const tickTime = (i: number) => T0 + (i + 1) * MIN + 5_000;

describe.skipIf(!gate.available)('the burst floor on moto, through the evaluate handler', () => {
  const run = evaluateRunOnMoto(POLICY, ENDPOINT, async (stack) => {
    await stack.doc.send(new PutCommand({ TableName: EVALUATE_NAMES.table, Item: ITEM }));
    for (let i = 0; i < TICKS; i++)
      // 80 a minute per instance on 2: 160 requests, well inside the level the floor covers.
      await tickAfterMinute(stack, ENDPOINT, T0 + i * MIN, { perInstance: 80, p95Ms: 900 }, `burst-${i}`);
  });

  it('decides every minute with the floor of ceil(450 / 100) = 5 and the targets as written', async () => {
    const records = await decisionRecords(run.doc, 'chat-llm');
    expect(records.map((r) => r.outcome)).toEqual(new Array(TICKS).fill('shadow'));
    records.forEach((r, i) => {
      expect(r.decision).toMatchObject({
        action: 'scale-out',
        desiredCapacity: 5,
        reasons: expect.arrayContaining(['BurstFloor', 'BudgetExhausted']),
        burstFloor: { capacity: 5, demand: 450, until: tickTime(i) + WINDOW, asWritten: true },
        headroom: { factor: 0.3, reason: 'BudgetExhausted' },
      });
      expect(r.decision!.signals.find((s) => s.metric === 'invocationsPerInstance')!.target).toBe(84);
    });
  });

  it('keeps the floor’s state with the ledger, a window after the last tick, and the measurement as it was', async () => {
    const state = await storedStateOf(run.doc, 'chat-llm');
    expect(state.problems).toEqual([]);
    expect(state.slo!.burst).toEqual({ standUntil: tickTime(TICKS - 1) + WINDOW });
    expect(state.slo!.ledger.newest).toBe(T0 / MIN + TICKS);
    expect(state.burstDemand).toEqual(ITEM.burstDemand);
    // Each shadow tick is a claim: the fixture's version 20, then one a tick.
    expect(state.version).toBe(20 + TICKS);
  });
});
