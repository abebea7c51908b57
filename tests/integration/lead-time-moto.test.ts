/**
 * The measured lead time against moto over HTTP, through the real AWS SDK and adapters: a state
 * item seeded with measured scale-outs (events/state/lead-times.json: two in the evaluator's
 * leadTimes, two in the state machine's leadTimesSfn, one scale-out in both) makes the hourly
 * forecast write its floor schedule over the measured 14 minutes instead of the configured 10,
 * and leaves the samples as they were; then the evaluator's claim writes a new sample and trims
 * leadTimesSfn by index in moto's DynamoDB, keeping the forecast's floor.
 *
 * The state machine appending to leadTimesSfn in moto's Step Functions engine is in
 * scale-target-moto.test.ts.
 */
import { CloudWatchClient, type MetricDatum } from '@aws-sdk/client-cloudwatch';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SSMClient } from '@aws-sdk/client-ssm';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ForecastReport } from '#functions/forecast/run.ts';
import { dynamoStateStore } from '#shared/aws/dynamodb.ts';
import { initialState } from '#shared/engine/types.ts';
import { ForecastFloorSchema } from '#shared/floors/stored.ts';
import { captureForecastTelemetry, dailyDemand, eventFile } from '../forecast-aws/fakes.ts';
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
const DAY = 86_400_000;
const STEP = 300_000;
const KEY = { pk: 'TARGET#chat-llm', sk: 'STATE' };

const POLICY = `version: 1
targets:
  - id: chat-llm
    kind: sagemaker-variant
    region: us-east-1
    endpointName: chat-llm-prod
    scaling: { minCapacity: 1, maxCapacity: 20 }
    signals: [{ metric: invocationsPerInstance, target: 100 }]
    forecast: { quantile: p90, requestsPerInstance: 100, leadTimeMinutes: 10, historyDays: 4, scheduledActions: false }
`;

describe.skipIf(!gate.available)('the measured lead time on moto', () => {
  let moto: MotoServer;
  let doc: DynamoDBDocumentClient;
  let report: ForecastReport;
  const seeded = eventFile('state/lead-times');
  const telemetry = captureForecastTelemetry();
  const item = async () => (await doc.send(new GetCommand({ TableName: TABLE, Key: KEY }))).Item!;

  beforeAll(async () => {
    moto = await startMoto();
    const config = awsTestConfig(moto.endpoint);
    await createStateTable(new DynamoDBClient(config), TABLE);
    doc = DynamoDBDocumentClient.from(new DynamoDBClient(config));
    await doc.send(new PutCommand({ TableName: TABLE, Item: seeded }));
    await putStringParameter(new SSMClient(config), POLICY_NAME, POLICY);
    const data: MetricDatum[] = [];
    for (let t = ORIGIN - 4 * DAY; t < ORIGIN; t += STEP)
      data.push({
        MetricName: 'Invocations',
        Dimensions: [
          { Name: 'EndpointName', Value: 'chat-llm-prod' },
          { Name: 'VariantName', Value: 'AllTraffic' },
        ],
        Timestamp: new Date(t + 60_000),
        Value: 5 * dailyDemand(t),
        Unit: 'Count',
      });
    await putDatapoints(new CloudWatchClient(config), 'AWS/SageMaker', data);
    const run = motoForecaster(moto.endpoint, { policyParameter: POLICY_NAME, table: TABLE }, telemetry);
    report = await run(eventFile('forecast-tick'), NOW);
  });
  afterAll(() => moto?.stop());

  it('writes the floor schedule over the measured 14 minutes (p90 of 3 scale-outs, 13.0 min, + 1)', async () => {
    expect(report.outcomes[0]).toMatchObject({
      targetId: 'chat-llm',
      outcome: 'written',
      lead: { minutes: 14, configuredMinutes: 10, samples: 3, source: 'measured' },
    });
    const floor = ForecastFloorSchema.parse((await item()).forecastFloor);
    expect(floor).toMatchObject({
      computedAt: NOW,
      startsAt: ORIGIN,
      leadTimeMinutes: 14,
      leadSource: 'measured',
      configuredLeadTimeMinutes: 10,
      leadSamples: 3,
    });
    expect(floor.capacities).toHaveLength(576);
  });

  it('leaves the samples and the evaluator’s attributes as they were', async () => {
    expect(await item()).toMatchObject({
      version: seeded.version,
      leadTimes: seeded.leadTimes,
      leadTimesSfn: seeded.leadTimesSfn,
    });
  });

  it('takes the evaluator’s claim with a new sample and the oldest state machine entry removed by index', async () => {
    const store = dynamoStateStore(doc, TABLE);
    const sample = { requestedAt: NOW - 13 * 60_000, servingAt: NOW };
    const leadTimes = [...(seeded.leadTimes as object[]), sample];
    const won = await store.claim('chat-llm', seeded.version as number, {
      engine: initialState(),
      updatedAt: new Date(NOW).toISOString(),
      lastDecisionId: 'd1',
      pending: undefined,
      leadTimes: leadTimes as never,
      trimLeadTimesSfn: 1,
    });
    expect(won).toBe(true);
    const after = await item();
    expect(after).toMatchObject({
      version: (seeded.version as number) + 1,
      leadTimes,
      leadTimesSfn: (seeded.leadTimesSfn as unknown[]).slice(1),
    });
    expect(ForecastFloorSchema.safeParse(after.forecastFloor).success).toBe(true);
  });
});
