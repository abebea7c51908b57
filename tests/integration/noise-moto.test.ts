/**
 * The measured noise against moto over HTTP, through the real AWS SDK and adapters: four hours of
 * one-minute Invocations in moto's CloudWatch (Poisson-like counts on a ramp from 20 to 400
 * requests a minute), then one forecast run. Four hours are too little for a forecast, so the run
 * fits the noise from the one-minute counts (read in the same GetMetricData as the five-minute
 * history) and writes the `noise` attribute and a level floor into moto's DynamoDB; then the
 * evaluator's claim on the same item keeps both.
 *
 * moto computes each period's Sum by scanning every datapoint of the window once per period, so
 * the window is kept to two days (2,880 one-minute periods).
 */
import { CloudWatchClient, type MetricDatum } from '@aws-sdk/client-cloudwatch';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SSMClient } from '@aws-sdk/client-ssm';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ForecastReport } from '#functions/forecast/run.ts';
import { dynamoStateStore } from '#shared/aws/dynamodb.ts';
import { initialState } from '#shared/engine/types.ts';
import { ForecastFloorSchema, StoredNoiseSchema } from '#shared/floors/stored.ts';
import { levelFloor } from '#shared/sizing/floor-needs.ts';
import { noiseSd } from '#shared/sizing/noise-model.ts';
import { captureForecastTelemetry, eventFile } from '../forecast-aws/fakes.ts';
import { motoForecaster } from '../support/forecaster.ts';
import {
  awsTestConfig,
  createStateTable,
  type MotoServer,
  motoGate,
  putDatapoints,
  putStringParameter,
  startMoto,
} from '../support/moto.ts';

const gate = motoGate();
const TABLE = 'governor-state';
const POLICY_NAME = '/governor/policy';
const NOW = Date.parse('2025-06-09T12:00:10Z');
const ORIGIN = Date.parse('2025-06-09T11:55:00Z');
const MIN = 60_000;
const MINUTES = 240;
const KEY = { pk: 'TARGET#chat-llm', sk: 'STATE' };

const POLICY = `version: 1
targets:
  - id: chat-llm
    kind: sagemaker-variant
    region: us-east-1
    endpointName: chat-llm-prod
    instanceCapacity: { requestsPerMinuteAtSlo: 100 }
    scaling: { minCapacity: 1, maxCapacity: 20 }
    signals: [{ metric: invocationsPerInstance, target: 75 }]
    forecast: { quantile: p90, requestsPerInstance: 75, historyDays: 2, scheduledActions: false }
    noise: { floorSigmas: 2.33, bandSigmas: 1 }
`;

/** Poisson-like counts (normal with variance = mean, rounded) on a ramp from 20 to 400 a minute. */
function seededMinutes(): number[] {
  let seed = 42;
  const uniform = () => {
    seed = (seed * 16_807) % 2_147_483_647;
    return seed / 2_147_483_647;
  };
  return Array.from({ length: MINUTES }, (_, i) => {
    const mean = 20 + (380 * i) / (MINUTES - 1);
    const z = Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
    return Math.max(0, Math.round(mean + Math.sqrt(mean) * z));
  });
}

describe.skipIf(!gate.available)('the measured noise on moto', () => {
  let moto: MotoServer;
  let doc: DynamoDBDocumentClient;
  let report: ForecastReport;
  const minutes = seededMinutes();
  const telemetry = captureForecastTelemetry();
  const item = async () => (await doc.send(new GetCommand({ TableName: TABLE, Key: KEY }))).Item!;

  beforeAll(async () => {
    moto = await startMoto();
    const config = awsTestConfig(moto.endpoint);
    await createStateTable(new DynamoDBClient(config), TABLE);
    doc = DynamoDBDocumentClient.from(new DynamoDBClient(config));
    await putStringParameter(new SSMClient(config), POLICY_NAME, POLICY);
    const data: MetricDatum[] = minutes.map((value, i) => ({
      MetricName: 'Invocations',
      Dimensions: [
        { Name: 'EndpointName', Value: 'chat-llm-prod' },
        { Name: 'VariantName', Value: 'AllTraffic' },
      ],
      Timestamp: new Date(ORIGIN - (MINUTES - i) * MIN),
      Value: value,
      Unit: 'Count',
    }));
    await putDatapoints(new CloudWatchClient(config), 'AWS/SageMaker', data);
    const run = motoForecaster(moto.endpoint, { policyParameter: POLICY_NAME, table: TABLE }, telemetry);
    report = await run(eventFile('forecast-tick'), NOW);
  }, 60_000);
  afterAll(() => moto?.stop());

  it('fits the noise from the one-minute counts and stores it in the state item', async () => {
    const noise = StoredNoiseSchema.parse((await item()).noise);
    expect(noise).toMatchObject({
      computedAt: NOW,
      levelMinutes: 15,
      historyMinutes: 2880,
      samples: MINUTES - 15,
    });
    // Count noise: at 100 requests a minute, about +-10 (Poisson), whatever split of a and b fits it.
    expect(noiseSd(noise, 100)).toBeGreaterThan(6);
    expect(noiseSd(noise, 100)).toBeLessThan(15);
  });

  it('writes a level floor, under a day of history: the last level plus 2.33 sigmas of its noise, for the next hour', async () => {
    expect(report.outcomes[0]).toMatchObject({ targetId: 'chat-llm', outcome: 'written', kind: 'level' });
    const stored = await item();
    const floor = ForecastFloorSchema.parse(stored.forecastFloor);
    const noise = StoredNoiseSchema.parse(stored.noise);
    const need = levelFloor(minutes, 15, {
      requestsPerInstance: 75,
      instanceCapacity: 100,
      floorSigmas: 2.33,
      noise,
    })!;
    // The last 15 minutes are near 400 a minute: (400 + 2.33 x ~20) / 100, about 4.5, so 5.
    expect(Math.ceil(need)).toBe(5);
    expect(floor).toMatchObject({
      kind: 'level',
      startsAt: ORIGIN,
      computedAt: NOW,
      noise: { floorSigmas: 2.33, a: noise.a, b: noise.b, samples: noise.samples },
    });
    expect(floor.capacities).toEqual(new Array(14).fill(5));
  });

  it('keeps both through the evaluator’s conditional claim', async () => {
    const before = await item();
    const won = await dynamoStateStore(doc, TABLE).claim('chat-llm', null, {
      engine: initialState(),
      updatedAt: new Date(NOW + 20_000).toISOString(),
      lastDecisionId: 'd1',
      pending: undefined,
    });
    expect(won).toBe(true);
    expect(await item()).toMatchObject({
      version: 1,
      noise: before.noise,
      forecastFloor: before.forecastFloor,
    });
  });
});
