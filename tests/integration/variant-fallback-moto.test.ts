/**
 * The variant fallback through the mix runner with its real adapters (awsMixPorts: the
 * variant-weights adapter, the FALLBACK store, SSM, DynamoDB) against moto over HTTP: endpoint
 * gov-chat with two production variants, gx (ml.g4dn.xlarge, 2 instances, the target's) and g2x
 * (ml.g4dn.2xlarge, 1 instance, weight 0), a forecast floor of 4 instances.
 *
 * What moto 5.2 does, and this file asserts: multi-variant endpoints (DescribeEndpoint lists both
 * variants with their counts and weights; DescribeEndpointConfig their instance types), and
 * UpdateEndpointWeightsAndCapacities with several variants in one call, which it applies at once:
 * DesiredWeight and DesiredInstanceCount become the current ones too, and the endpoint is back
 * InService before the call returns.
 *
 * What moto does not model: capacity. It never fails for want of instances and never sets
 * FailureReason, so the capacity failure is injected at the port (the real read, with the
 * FailureReason SageMaker gives added); there is no Updating phase, no rollback, no instance
 * ramp. A variant created with InitialVariantWeight 0 shows no CurrentWeight at all in moto (it
 * drops falsy weights; AWS shows 0), so the fallback's weight is set to 0 by an update first, as
 * an operator would; that update names the count too, because moto clears a count an update
 * leaves out (AWS keeps it). The adapter always sends both, so this does not reach Governor.
 */

import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  CreateEndpointCommand,
  CreateEndpointConfigCommand,
  CreateModelCommand,
  DescribeEndpointCommand,
  SageMakerClient,
  UpdateEndpointWeightsAndCapacitiesCommand,
} from '@aws-sdk/client-sagemaker';
import { SSMClient } from '@aws-sdk/client-ssm';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseMixConfig } from '#functions/mix/config.ts';
import { awsMixPorts } from '#functions/mix/ports.ts';
import type { MixRecord } from '#functions/mix/record.ts';
import { createMixRunner } from '#functions/mix/run.ts';
import { createForecastClients, createSageMakerClients } from '#shared/aws/clients.ts';
import { dynamoFallbackStore } from '#shared/aws/fallback-store.ts';
import { capacityFailureOf } from '#shared/mix/fallback-types.ts';
import {
  awsTestConfig,
  createStateTable,
  type MotoServer,
  motoGate,
  putStringParameter,
  startMoto,
  TEST_ACCOUNT,
  TEST_CREDENTIALS,
  TEST_REGION,
} from '../support/moto.ts';

const gate = motoGate();
const TABLE = 'governor-state';
const ENDPOINT = 'gov-chat';
const CAPACITY =
  'Unable to provision requested ML compute capacity. Please retry using a different ML instance type.';
const T0 = Math.floor(Date.now() / 300_000) * 300_000;

const POLICY = {
  version: 1,
  targets: [
    {
      id: 'chat',
      kind: 'sagemaker-variant',
      region: TEST_REGION,
      endpointName: ENDPOINT,
      variantName: 'gx',
      scaling: { minCapacity: 1, maxCapacity: 10 },
      signals: [{ metric: 'invocationsPerInstance', target: 100 }],
      forecast: { quantile: 'p90', requestsPerInstance: 100, leadTimeMinutes: 10 },
      capacityMix: {
        pools: [
          { instanceType: 'ml.g4dn.xlarge', onDemandUsdPerHour: 0.736 },
          { instanceType: 'ml.g4dn.2xlarge', onDemandUsdPerHour: 1.053 },
        ],
        variantFallback: {
          variants: [{ variantName: 'g2x', instanceType: 'ml.g4dn.2xlarge' }],
          holdMinutes: 60,
        },
      },
    },
  ],
};

const tick = (minutes: number) => ({
  version: '0',
  id: `mix-${minutes}`,
  'detail-type': 'Scheduled Event',
  source: 'aws.scheduler',
  account: TEST_ACCOUNT,
  time: new Date(T0 + minutes * 60_000).toISOString(),
  region: TEST_REGION,
  resources: [`arn:aws:scheduler:${TEST_REGION}:${TEST_ACCOUNT}:schedule/default/governor-mix`],
  detail: {},
});

describe.skipIf(!gate.available)('the variant fallback on moto', () => {
  let moto: MotoServer;
  let sm: SageMakerClient;
  let doc: DynamoDBDocumentClient;
  /** The capacity failure the next reads carry (moto never sets FailureReason). */
  let failure: string | null = null;
  const records: MixRecord[] = [];

  const variants = async () => {
    const out = await sm.send(new DescribeEndpointCommand({ EndpointName: ENDPOINT }));
    return Object.fromEntries(
      (out.ProductionVariants ?? []).map((v) => [
        v.VariantName,
        [v.CurrentInstanceCount, v.DesiredInstanceCount, v.CurrentWeight],
      ]),
    );
  };

  beforeAll(async () => {
    moto = await startMoto();
    const config = awsTestConfig(moto.endpoint);
    sm = new SageMakerClient(config);
    doc = DynamoDBDocumentClient.from(new DynamoDBClient(config));
    await createStateTable(new DynamoDBClient(config), TABLE);
    const ssm = new SSMClient(config);
    await putStringParameter(ssm, '/governor/policy', JSON.stringify(POLICY));
    await putStringParameter(ssm, '/governor/kill-switch', 'off');
    await sm.send(
      new CreateModelCommand({
        ModelName: 'chat',
        ExecutionRoleArn: `arn:aws:iam::${TEST_ACCOUNT}:role/sagemaker`,
        PrimaryContainer: { Image: `${TEST_ACCOUNT}.dkr.ecr.${TEST_REGION}.amazonaws.com/chat:1` },
      }),
    );
    await sm.send(
      new CreateEndpointConfigCommand({
        EndpointConfigName: `${ENDPOINT}-config`,
        ProductionVariants: [
          {
            VariantName: 'gx',
            ModelName: 'chat',
            InitialInstanceCount: 2,
            InstanceType: 'ml.g4dn.xlarge',
            InitialVariantWeight: 1,
          },
          {
            VariantName: 'g2x',
            ModelName: 'chat',
            InitialInstanceCount: 1,
            InstanceType: 'ml.g4dn.2xlarge',
            InitialVariantWeight: 1,
          },
        ],
      }),
    );
    await sm.send(
      new CreateEndpointCommand({ EndpointName: ENDPOINT, EndpointConfigName: `${ENDPOINT}-config` }),
    );
    await sm.send(
      new UpdateEndpointWeightsAndCapacitiesCommand({
        EndpointName: ENDPOINT,
        DesiredWeightsAndCapacities: [{ VariantName: 'g2x', DesiredWeight: 0, DesiredInstanceCount: 1 }],
      }),
    );
    await doc.send(
      new PutCommand({
        TableName: TABLE,
        Item: {
          pk: 'TARGET#chat',
          sk: 'STATE',
          forecastFloor: {
            quantile: 'p90',
            computedAt: T0,
            startsAt: T0,
            stepMinutes: 5,
            leadTimeMinutes: 10,
            capacities: Array.from({ length: 48 }, () => 4),
          },
        },
      }),
    );
  }, 60_000);
  afterAll(() => moto?.stop());

  const runner = () => {
    const options = { region: TEST_REGION, endpoint: moto.endpoint, credentials: TEST_CREDENTIALS };
    const ports = awsMixPorts(
      { ...createForecastClients(options), sageMaker: createSageMakerClients(options) },
      TABLE,
    );
    const real = ports.endpoints;
    ports.endpoints = {
      read: async (region, name) => ({
        ...(await real.read(region, name)),
        capacityFailure: failure ? capacityFailureOf(failure, `moto|${failure}`) : null,
      }),
      write: real.write,
    };
    return createMixRunner({
      config: parseMixConfig({
        POLICY_PARAMETER_NAME: '/governor/policy',
        STATE_TABLE_NAME: TABLE,
        KILL_SWITCH_PARAMETER_NAME: '/governor/kill-switch',
        GOVERNOR_MODE: 'active',
      }),
      ports,
      telemetry: { info: () => {}, warn: () => {}, error: () => {}, record: (r) => void records.push(r) },
    });
  };
  const runAt = (minutes: number) =>
    runner()(tick(minutes), T0 + minutes * 60_000 + 20_000, { account: TEST_ACCOUNT });

  it('reads both variants: counts and weights from DescribeEndpoint, types from DescribeEndpointConfig', async () => {
    failure = null;
    await runAt(0);
    const r = records.at(-1)!;
    expect(r.fallback?.before).toEqual([
      {
        variantName: 'gx',
        instanceType: 'ml.g4dn.xlarge',
        currentInstances: 2,
        desiredInstances: 2,
        currentWeight: 1,
      },
      {
        variantName: 'g2x',
        instanceType: 'ml.g4dn.2xlarge',
        currentInstances: 1,
        desiredInstances: 1,
        currentWeight: 0,
      },
    ]);
    expect([r.fallback?.action, r.fallback?.reasons]).toEqual(['hold', ['PrimaryServing']]);
  });

  it('a capacity failure of gx shifts the shortfall to g2x in one write; DescribeEndpoint reads it back', async () => {
    failure = CAPACITY;
    await runAt(5);
    const r = records.at(-1)!;
    expect([r.fallback?.action, r.fallback?.reasons[0], r.fallback?.write, r.fallback?.stored]).toEqual([
      'shift',
      'PrimaryCapacityShortage',
      'applied',
      'written',
    ]);
    expect(await variants()).toEqual({ gx: [2, 2, 2], g2x: [2, 2, 2] });
    const stored = await dynamoFallbackStore(doc, TABLE).get('chat');
    expect(stored?.state.active).toMatchObject({
      variantName: 'g2x',
      instanceType: 'ml.g4dn.2xlarge',
      instances: 2,
    });
  });

  it('holds within holdMinutes, then asks the capacity back on gx and, once it serves, sets g2x to 1 instance with weight 0', async () => {
    failure = null;
    await runAt(30);
    expect(records.at(-1)?.fallback?.reasons).toEqual(['FallbackHeld']);
    await runAt(65);
    expect(records.at(-1)?.fallback?.reasons).toEqual(['HoldElapsed']);
    // moto applies at once: gx already serves the 4 asked back.
    expect(await variants()).toEqual({ gx: [4, 4, 2], g2x: [2, 2, 2] });
    await runAt(70);
    expect(records.at(-1)?.fallback?.reasons).toEqual(['ReturnCompleted']);
    expect(await variants()).toEqual({ gx: [4, 4, 4], g2x: [1, 1, 0] });
    expect((await dynamoFallbackStore(doc, TABLE).get('chat'))?.state.active).toBeNull();
  });
});
