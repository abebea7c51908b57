/**
 * What the moto tests that drive the evaluate Lambda handler itself share (./moto.ts has the
 * server): the stack (state table, policy and kill switch, a SageMaker endpoint), the handler
 * imported with its environment aimed at it in shadow mode, its Lambda context, a scheduler tick,
 * a server-published p95 (moto computes no percentiles), one minute put and ticked, the decision
 * records and the state item read back from the table, and the EMF lines the handler writes
 * while a block runs.
 */
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SageMakerClient } from '@aws-sdk/client-sagemaker';
import { SSMClient } from '@aws-sdk/client-ssm';
import { DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Context, Handler } from 'aws-lambda';
import { afterAll, beforeAll, vi } from 'vitest';
import type { DecisionRecord } from '#shared/apply/records.ts';
import { decodeState, type StoredState } from '#shared/state/item.ts';
import {
  awsTestConfig,
  createDemoEndpoint,
  createStateTable,
  importHandlerOnMoto,
  type MotoServer,
  putDatapoints,
  putStringParameter,
  putVariantMinute,
  startMoto,
  TEST_ACCOUNT,
  TEST_REGION,
} from './moto.ts';

/** The table and parameters of the stack the evaluate handler runs against here. */
export const EVALUATE_NAMES = {
  table: 'governor-state',
  policy: '/governor/policy',
  killSwitch: '/governor/kill-switch',
} as const;

export const EVALUATE_CONTEXT = {
  functionName: 'governor-evaluate',
  invokedFunctionArn: `arn:aws:lambda:${TEST_REGION}:${TEST_ACCOUNT}:function:governor-evaluate`,
  awsRequestId: 'req-moto',
  getRemainingTimeInMillis: () => 60_000,
} as unknown as Context;

/** A scheduler tick as the deployed schedule sends it, at `at`. */
export const schedulerTick = (id: string, at: number) => ({
  'detail-type': 'Scheduled Event',
  source: 'aws.scheduler',
  account: TEST_ACCOUNT,
  region: TEST_REGION,
  id,
  time: new Date(at).toISOString(),
});

/**
 * The stack on moto (the policy in its parameter, the kill switch off, `endpoint` with
 * `instances`) and the evaluate handler on it, shadow mode (it decides and records, starts
 * nothing); clients for what the test puts and reads back.
 */
export async function evaluateStackOnMoto(
  moto: MotoServer,
  policy: string,
  endpoint: string,
  instances = 2,
): Promise<{ handler: Handler; doc: DynamoDBDocumentClient; cw: CloudWatchClient }> {
  const names = EVALUATE_NAMES;
  const config = awsTestConfig(moto.endpoint);
  await createStateTable(new DynamoDBClient(config), names.table);
  const ssm = new SSMClient(config);
  await putStringParameter(ssm, names.policy, policy);
  await putStringParameter(ssm, names.killSwitch, 'off');
  await createDemoEndpoint(new SageMakerClient(config), endpoint, instances);
  const { handler } = await importHandlerOnMoto(
    moto,
    {
      POLICY_PARAMETER_NAME: names.policy,
      STATE_TABLE_NAME: names.table,
      KILL_SWITCH_PARAMETER_NAME: names.killSwitch,
      SCALE_STATE_MACHINE_ARN: `arn:aws:states:${TEST_REGION}:${TEST_ACCOUNT}:stateMachine:governor-scale-target`,
      GOVERNOR_MODE: 'shadow',
      POWERTOOLS_METRICS_NAMESPACE: 'Governor',
      POWERTOOLS_SERVICE_NAME: 'governor',
    },
    async () => (await import('#functions/evaluate/handler.ts')) as unknown as { handler: Handler },
  );
  return {
    handler,
    doc: DynamoDBDocumentClient.from(new DynamoDBClient(config)),
    cw: new CloudWatchClient(config),
  };
}

/**
 * A p95 as a server publishes it (`Demo/LLM P95LatencyMs`, read by the signal's `cloudwatch`
 * override with statistic Maximum), stamped inside the minute that starts at minuteStart.
 */
export async function putServerP95(cw: CloudWatchClient, endpoint: string, minuteStart: number, ms: number) {
  await putDatapoints(cw, 'Demo/LLM', [
    {
      MetricName: 'P95LatencyMs',
      Dimensions: [{ Name: 'EndpointName', Value: endpoint }],
      Timestamp: new Date(minuteStart + 30_000),
      Value: ms,
      Unit: 'Milliseconds',
    },
  ]);
}

/** The policy's latency signal for putServerP95's metric. */
export const serverP95Signal = (endpoint: string, sloMs = 2000) => `      - metric: p95LatencyMs
        sloMs: ${sloMs}
        tolerance: 0.5
        cloudwatch: { namespace: Demo/LLM, metricName: P95LatencyMs, dimensions: { EndpointName: ${endpoint} }, statistic: Maximum }`;

/** A target's decision records in the table, oldest first. */
export async function decisionRecords(
  doc: DynamoDBDocumentClient,
  targetId: string,
): Promise<DecisionRecord[]> {
  const out = await doc.send(
    new QueryCommand({
      TableName: EVALUATE_NAMES.table,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :decision)',
      ExpressionAttributeValues: { ':pk': `TARGET#${targetId}`, ':decision': 'DECISION#' },
    }),
  );
  return (out.Items as unknown as DecisionRecord[]).sort((a, b) => a.at.localeCompare(b.at));
}

/** Runs `block` with Date faked (the SDK's timers stay real), collecting the EMF lines written meanwhile. */
export async function withFakeDateAndEmf(
  emf: Record<string, unknown>[],
  block: () => Promise<void>,
): Promise<void> {
  vi.useFakeTimers({ toFake: ['Date'] });
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    for (const line of String(chunk).split('\n'))
      if (line.includes('"_aws"')) emf.push(JSON.parse(line) as Record<string, unknown>);
    return true;
  });
  try {
    await block();
  } finally {
    out.mockRestore();
    vi.useRealTimers();
  }
}

/**
 * One minute of the endpoint's metrics put (requests per instance, the server's p95), then the
 * handler's tick 5 s into the next minute, as the scheduler's would read it. Date must be faked
 * (withFakeDateAndEmf).
 */
export async function tickAfterMinute(
  stack: { handler: Handler; cw: CloudWatchClient },
  endpoint: string,
  minuteStart: number,
  minute: { perInstance: number; p95Ms: number },
  id: string,
): Promise<void> {
  await putVariantMinute(stack.cw, endpoint, minuteStart, { invocationsPerInstance: minute.perInstance });
  await putServerP95(stack.cw, endpoint, minuteStart, minute.p95Ms);
  vi.setSystemTime(minuteStart + 60_000 + 5_000);
  await stack.handler(schedulerTick(id, Date.now()), EVALUATE_CONTEXT, () => {});
}

/** What evaluateRunOnMoto's tests read: the table's client (set once its beforeAll is done) and the EMF lines. */
export interface EvaluateRun {
  doc: DynamoDBDocumentClient;
  emf: Record<string, unknown>[];
}

/**
 * Call inside a describe: before its tests, moto started, the stack on it (evaluateStackOnMoto)
 * and `drive` run with Date faked and the EMF lines collected; after them, the environment
 * restored and moto stopped.
 */
export function evaluateRunOnMoto(
  policy: string,
  endpoint: string,
  drive: (stack: Awaited<ReturnType<typeof evaluateStackOnMoto>>) => Promise<void>,
): EvaluateRun {
  let moto: MotoServer | undefined;
  const run = { emf: [] } as unknown as EvaluateRun;
  beforeAll(async () => {
    moto = await startMoto();
    const stack = await evaluateStackOnMoto(moto, policy, endpoint);
    run.doc = stack.doc;
    await withFakeDateAndEmf(run.emf, () => drive(stack));
  }, 60_000);
  afterAll(async () => {
    vi.unstubAllEnvs();
    await moto?.stop();
  });
  return run;
}

/** A target's state item in the table, decoded. */
export async function storedStateOf(doc: DynamoDBDocumentClient, targetId: string): Promise<StoredState> {
  const { Item } = await doc.send(
    new GetCommand({ TableName: EVALUATE_NAMES.table, Key: { pk: `TARGET#${targetId}`, sk: 'STATE' } }),
  );
  return decodeState(Item);
}
