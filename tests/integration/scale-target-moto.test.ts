/**
 * The scale-target state machine executed by moto's Step Functions engine, whose aws-sdk and
 * DynamoDB integrations call moto's own SageMaker and DynamoDB (the generation check's GetItem of
 * the state item, the outcome item, and for a verified scale-out the lead-time sample appended
 * to the state item's leadTimesSfn): the ASL exactly as deployed
 * (placeholders substituted as DefinitionSubstitutions would), the input exactly as the evaluate
 * function builds it (scaleTargetInput).
 *
 * What moto cannot do, and where it is tested instead (tests/statemachines/): its SageMaker
 * never runs out of instances or quota (no capacity errors), applies a change at once (no
 * Updating phase to poll, so no update refused as in progress) and has no inference components.
 *
 * moto 5.2.1 fails a second StartExecution in a region once any execution exists there
 * (getmoto/moto#10077, fixed later: the engine deep-copies the backend with the first
 * execution's thread lock). Each case therefore runs in a region of its own.
 */

import { readFileSync } from 'node:fs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DescribeEndpointCommand, SageMakerClient } from '@aws-sdk/client-sagemaker';
import {
  CreateStateMachineCommand,
  DescribeExecutionCommand,
  type DescribeExecutionCommandOutput,
  SFNClient,
  StartExecutionCommand,
} from '@aws-sdk/client-sfn';
import { SSMClient } from '@aws-sdk/client-ssm';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scaleTargetInput } from '#shared/apply/records.ts';
import { substitute } from '#shared/deploy/asl.ts';
import type { TargetPolicy } from '#shared/policy/schema.ts';
import {
  awsTestConfig,
  createDemoEndpoint,
  createStateTable,
  type MotoServer,
  motoGate,
  putStringParameter,
  startMoto,
  TEST_ACCOUNT,
} from '../support/moto.ts';

const gate = motoGate();
const TABLE = 'governor-state';
const KILL_SWITCH = '/governor/kill-switch';
const DEFINITION = substitute(readFileSync('statemachines/scale-target.asl.json', 'utf8'), {
  StateTableName: TABLE,
  KillSwitchParameterName: KILL_SWITCH,
  MetricNamespace: 'Governor',
});
/** 30 days after 2025-06-02T12:00:00Z, in epoch seconds, as evaluate computes AUDIT_TTL_DAYS. */
const EXPIRES_AT = Math.floor(Date.parse('2025-06-02T12:00:00Z') / 1000) + 30 * 86_400;

const variantTarget = (endpointName: string, variantName = 'AllTraffic'): TargetPolicy => ({
  id: endpointName,
  kind: 'sagemaker-variant',
  region: 'us-east-1',
  endpointName,
  variantName,
  scaling: { minCapacity: 1, maxCapacity: 8, scaleToZero: false },
  signals: [{ metric: 'invocationsPerInstance', target: 100, tolerance: 0.1, staleAfterSeconds: 180 }],
  damping: {
    periodSeconds: 60,
    scaleOutBreaches: 2,
    scaleInBreaches: 10,
    scaleInStabilizationSeconds: 300,
    scaleOutCooldownSeconds: 120,
    scaleInCooldownSeconds: 300,
    stepUp: { instances: 4, percent: 100 },
    stepDown: { instances: 1, percent: 20 },
  },
  panic: { enabled: true, threshold: 2, periods: 1, stableWindowSeconds: 600 },
  onConflictingScaler: 'refuse',
});

interface Case {
  case: string;
  region: string;
  instances: number;
  target: TargetPolicy;
  desired: number;
  /** The kill switch parameter's value now; null: the parameter does not exist (on). */
  killSwitch: string | null;
  /** The value the evaluator judged off when it decided (the input's killSwitchValue). */
  judged: string;
  /** The decision the state item says is pending: this execution's, a newer one, or none. */
  pending: 'this' | 'newer' | null;
  status: 'SUCCEEDED' | 'FAILED';
  outcome: 'applied' | 'failed' | 'killed' | 'superseded';
  capacityAfter: number;
  /** Lead-time samples appended to the state item's leadTimesSfn (a verified scale-out only). */
  leadSamples: number;
}

const CASES: Case[] = [
  {
    case: 'scales a g4dn variant out from 1 to 3 instances and records the change as applied',
    region: 'us-east-1',
    instances: 1,
    target: variantTarget('chat-llm-prod'),
    desired: 3,
    killSwitch: 'off',
    judged: 'off',
    pending: 'this',
    status: 'SUCCEEDED',
    outcome: 'applied',
    capacityAfter: 3,
    leadSamples: 1,
  },
  {
    case: 'records a change SageMaker rejects (unknown variant) as failed and leaves the endpoint alone',
    region: 'eu-west-1',
    instances: 2,
    target: variantTarget('chat-llm-eu', 'Blue'),
    desired: 5,
    // Judged off by the evaluator as written (" OFF\n"): moto compares it raw, as AWS does.
    killSwitch: ' OFF\n',
    judged: ' OFF\n',
    pending: 'this',
    status: 'FAILED',
    outcome: 'failed',
    capacityAfter: 2,
    leadSamples: 0,
  },
  {
    case: 'leaves the variant alone when the kill switch was turned on after the decision',
    region: 'eu-central-1',
    instances: 2,
    target: variantTarget('chat-llm-de'),
    desired: 6,
    killSwitch: 'on',
    judged: 'off',
    pending: 'this',
    status: 'SUCCEEDED',
    outcome: 'killed',
    capacityAfter: 2,
    leadSamples: 0,
  },
  {
    case: 'leaves the variant alone when a newer decision has claimed the target (the generation check)',
    region: 'us-west-2',
    instances: 2,
    target: variantTarget('chat-llm-or'),
    desired: 4,
    killSwitch: 'off',
    judged: 'off',
    pending: 'newer',
    status: 'SUCCEEDED',
    outcome: 'superseded',
    capacityAfter: 2,
    leadSamples: 0,
  },
];

const DETAIL = {
  applied: /^CapacityVerified: /,
  failed: /^ActionFailed: .*Blue/,
  killed: /^KillSwitch: /,
  superseded:
    /^Superseded: decision 20250602T120100000Z-00000002 has claimed target chat-llm-or since this one/,
};

async function finished(sfn: SFNClient, executionArn: string): Promise<DescribeExecutionCommandOutput> {
  // About 3 s on an idle machine: moto builds a boto3 client for every Task it runs. The rejected
  // change also waits out the update's 3 retries in real time (2, 4 and 8 s at most, full jitter:
  // moto names SageMaker's ValidationException SageMaker.SageMakerException, as Step Functions
  // does), and a loaded 2-core machine runs moto several times slower: 60 s.
  const deadline = Date.now() + 60_000;
  for (;;) {
    const out = await sfn.send(new DescribeExecutionCommand({ executionArn }));
    if (out.status !== 'RUNNING' || Date.now() > deadline) return out;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.skipIf(!gate.available)('the scale-target state machine on moto', () => {
  let moto: MotoServer;

  beforeAll(async () => {
    moto = await startMoto();
    await moto.configure({ stepfunctions: { execute_state_machine: true } });
  });
  afterAll(() => moto?.stop());

  // 90 s: see finished(); the rejected change waits out the update's retries in real time.
  it.each(CASES)('$case', { timeout: 90_000 }, async (c) => {
    const config = { ...awsTestConfig(moto.endpoint), region: c.region };
    const sm = new SageMakerClient(config);
    const sfn = new SFNClient(config);
    const ddb = new DynamoDBClient(config);
    const endpointName = c.target.kind === 'ec2-asg' ? '' : c.target.endpointName;
    await createDemoEndpoint(sm, endpointName, c.instances);
    await createStateTable(ddb, TABLE);
    if (c.killSwitch !== null) await putStringParameter(new SSMClient(config), KILL_SWITCH, c.killSwitch);
    const { stateMachineArn } = await sfn.send(
      new CreateStateMachineCommand({
        name: 'governor-scale-target',
        definition: DEFINITION,
        roleArn: `arn:aws:iam::${TEST_ACCOUNT}:role/governor-scale-target`,
      }),
    );

    const decisionId = `20250602T120000000Z-${c.region.replace(/-/g, '')}`;
    const input = {
      ...scaleTargetInput(c.target, decisionId, c.desired, c.instances, '2025-06-02T12:00:00.000Z', 30, {
        killSwitchValue: c.judged,
      }),
      expiresAt: EXPIRES_AT,
    };
    // The evaluator's claim: the state item names the change it is waiting for.
    if (c.pending !== null) {
      const owner = c.pending === 'this' ? decisionId : '20250602T120100000Z-00000002';
      await DynamoDBDocumentClient.from(ddb).send(
        new PutCommand({
          TableName: TABLE,
          Item: {
            pk: `TARGET#${c.target.id}`,
            sk: 'STATE',
            version: 1,
            pending: { decisionId: owner, desiredCapacity: c.desired, previousCapacity: c.instances, at: 0 },
          },
        }),
      );
    }
    const { executionArn } = await sfn.send(
      new StartExecutionCommand({ stateMachineArn, name: decisionId, input: JSON.stringify(input) }),
    );
    const execution = await finished(sfn, executionArn!);

    expect(execution.status).toBe(c.status);
    if (c.status === 'FAILED') expect(execution.error).toBe('Governor.ActionFailed');
    const variant = (await sm.send(new DescribeEndpointCommand({ EndpointName: endpointName })))
      .ProductionVariants?.[0];
    expect([variant?.DesiredInstanceCount, variant?.CurrentInstanceCount]).toEqual([
      c.capacityAfter,
      c.capacityAfter,
    ]);
    const { Item } = await DynamoDBDocumentClient.from(ddb).send(
      new GetCommand({ TableName: TABLE, Key: { pk: `TARGET#${c.target.id}`, sk: `OUTCOME#${decisionId}` } }),
    );
    expect(Item).toMatchObject({ status: c.outcome, expiresAt: EXPIRES_AT });
    expect(Item?.detail).toMatch(DETAIL[c.outcome]);
    expect(Number.isFinite(Date.parse(String(Item?.at)))).toBe(true);

    // The measured lead time: {requestedAt (the input's), servingAt (when verified)} in ISO.
    const state = await DynamoDBDocumentClient.from(ddb).send(
      new GetCommand({ TableName: TABLE, Key: { pk: `TARGET#${c.target.id}`, sk: 'STATE' } }),
    );
    const samples = (state.Item?.leadTimesSfn ?? []) as { requestedAt: string; servingAt: string }[];
    expect(samples).toHaveLength(c.leadSamples);
    for (const s of samples) {
      expect(s.requestedAt).toBe('2025-06-02T12:00:00.000Z');
      expect(Number.isFinite(Date.parse(s.servingAt))).toBe(true);
    }
  });
});
