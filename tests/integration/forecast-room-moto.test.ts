import { describe, expect, it } from 'vitest';
import { dynamoFloorStore } from '#shared/aws/forecast-store.ts';
import { floorSchedule } from '#shared/floors/forecast.ts';
import { forecastOf } from '../support/forecasts.ts';
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
  const run = evaluateRunOnMoto(POLICY, ENDPOINT, async (stack) => {
    const floors = dynamoFloorStore(stack.doc, EVALUATE_NAMES.table);
    for (const [i, band] of [1.05, 1.3].entries()) {
      const minute = T0 + i * MIN;
      await floors.write('chat-llm', { forecastFloor: floorOf(band, minute) });
      await tickAfterMinute(stack, ENDPOINT, minute, { perInstance: 120, p95Ms: 900 }, `room-${i}`);
    }
  });

  const records = () => decisionRecords(run.doc, 'chat-llm');

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
    const state = await storedStateOf(run.doc, 'chat-llm');
    expect(state.problems).toEqual([]);
    expect(state.forecastFloor?.bandRatios).toEqual(floorOf(1.3, T0 + MIN).bandRatios);
    expect(state.forecastFloor?.bandRatios?.slice(0, 4)).toEqual([1.3, 1.3, null, 1.3]);
  });

  it("publishes the room's factor as HeadroomFactor", () => {
    const factors = run.emf
      .filter((e) => e.TargetId === 'chat-llm' && 'HeadroomFactor' in e)
      .map((e) => e.HeadroomFactor);
    expect(factors).toEqual([1.3, 1]);
  });
});
