/**
 * The forecast room against moto over HTTP: a floor schedule with its band (shared/floors/
 * forecast.ts floorSchedule) written by the forecast function's own store adapter into moto's
 * DynamoDB, then the evaluate Lambda handler itself, through the real AWS SDK, reading it back
 * one tick a minute (only Date is faked). Shadow mode: Governor decides and records, starts
 * nothing.
 *
 * The target: 84 requests a minute per instance as its target (25 % band: scale out above 105),
 * 150 at the SLO (a written room of 1.79x), the latency SLO read from a server-published p95 as in
 * ./slo-moto.test.ts (moto computes no percentiles). Each minute reads 120 a minute per instance
 * on 2 instances at 900 ms.
 *   tick 1: the floor's band is 5 % (p90 over p50): the room opens at its cap, 1.3x (a target of
 *           109.2, band to 136.5), and the decision holds at 2 with ForecastConfident;
 *   tick 2: the forecast function has written a floor whose band is 30 %: the room is closed and
 *           120 a minute is a scale-out to 3, as the policy is written.
 * Read back: the audit items carry the room, the state item keeps the band as written (a step with
 * no median stays null through DynamoDB's NULL), the EMF line's HeadroomFactor is the room's.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { dynamoFloorStore } from '#shared/aws/forecast-store.ts';
import { floorSchedule } from '#shared/floors/forecast.ts';
import { forecastOf } from '../support/forecasts.ts';
import { type MotoServer, motoGate, startMoto, TEST_REGION } from '../support/moto.ts';
import {
  decisionRecords,
  EVALUATE_NAMES,
  evaluateStackOnMoto,
  serverP95Signal,
  storedStateOf,
  tickAfterMinute,
  withFakeDateAndEmf,
} from '../support/moto-evaluate-handler.ts';

const gate = motoGate();
const ENDPOINT = 'chat-llm-prod';
const MIN = 60_000;
const T0 = Date.parse('2025-06-02T12:00:00Z');

const POLICY = `version: 1
targets:
  - id: chat-llm
    kind: sagemaker-variant
    region: ${TEST_REGION}
    endpointName: ${ENDPOINT}
    instanceCapacity: { requestsPerMinuteAtSlo: 150 }
    scaling: { minCapacity: 1, maxCapacity: 10 }
    signals:
      - { metric: invocationsPerInstance, target: 84, tolerance: 0.25 }
${serverP95Signal(ENDPOINT)}
    damping: { scaleOutBreaches: 1 }
    forecast: { quantile: p50, requestsPerInstance: 84, refreshMinutes: 60 }
    slo: { objective: { minutes: 0.995 }, windowDays: 30 }
`;

/** A forecast of 100 requests a minute (2 instances at 84), p90 `band` above it; step 2 has no median. */
function bandForecast(band: number) {
  const p50 = Array.from({ length: 24 }, (_, i) => (i === 2 ? 0 : 100));
  return forecastOf(
    p50,
    p50.map((v) => (v === 0 ? 10 : v * band)),
    T0,
  );
}

const floorOf = (band: number, computedAt: number) =>
  floorSchedule({
    forecast: bandForecast(band),
    quantile: 'p50',
    leadTimeMinutes: 10,
    requestsPerInstance: 84,
    scaling: { minCapacity: 1, maxCapacity: 10, scaleToZero: false },
    computedAt,
  });

describe.skipIf(!gate.available)('the forecast room on moto, from the stored band to the decision', () => {
  let moto: MotoServer;
  let doc: DynamoDBDocumentClient;
  const emf: Record<string, unknown>[] = [];

  beforeAll(async () => {
    moto = await startMoto();
    const stack = await evaluateStackOnMoto(moto, POLICY, ENDPOINT);
    doc = stack.doc;
    const floors = dynamoFloorStore(doc, EVALUATE_NAMES.table);
    await withFakeDateAndEmf(emf, async () => {
      for (const [i, band] of [1.05, 1.3].entries()) {
        const minute = T0 + i * MIN;
        await floors.write('chat-llm', { forecastFloor: floorOf(band, minute) });
        await tickAfterMinute(stack, ENDPOINT, minute, { perInstance: 120, p95Ms: 900 }, `room-${i}`);
      }
    });
  }, 60_000);
  afterAll(async () => {
    vi.unstubAllEnvs();
    await moto?.stop();
  });

  const records = () => decisionRecords(doc, 'chat-llm');

  it('opens on the narrow band and closes on the wide one, each decision saying which', async () => {
    const [open, closed] = await records();
    expect(open!.outcome).toBe('shadow');
    expect([open!.decision!.action, open!.decision!.desiredCapacity]).toEqual(['hold', 2]);
    expect(open!.decision!.reasons).toContain('ForecastConfident');
    expect(open!.decision!.headroom).toMatchObject({
      factor: 1.3,
      forecastRoom: { bandRatio: 1.05, bandWeight: 4, budgetFactor: 1 },
    });
    expect(open!.inputs.forecastFloor).toMatchObject({ capacity: 2, bandRatio: 1.05 });
    expect([closed!.decision!.action, closed!.decision!.desiredCapacity]).toEqual(['scale-out', 3]);
    expect(closed!.decision!.reasons).not.toContain('ForecastConfident');
    expect(closed!.decision!.headroom?.factor).toBe(1);
  });

  it('keeps the band in the state item as written, a step without a median as null', async () => {
    const state = await storedStateOf(doc, 'chat-llm');
    expect(state.problems).toEqual([]);
    expect(state.forecastFloor?.bandRatios).toEqual(floorOf(1.3, T0 + MIN).bandRatios);
    expect(state.forecastFloor?.bandRatios?.slice(0, 4)).toEqual([1.3, 1.3, null, 1.3]);
  });

  it("publishes the room's factor as HeadroomFactor", () => {
    const factors = emf
      .filter((e) => e.TargetId === 'chat-llm' && 'HeadroomFactor' in e)
      .map((e) => e.HeadroomFactor);
    expect(factors).toEqual([1.3, 1]);
  });
});
