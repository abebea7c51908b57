/**
 * The Lambda entry point: configuration parsed at cold start (failing fast naming the
 * variable), middy with Powertools, a summary returned, EMF metrics with the documented
 * dimension sets written to stdout.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CONFIG, EXAMPLE_POLICY, eventFile, harness } from './harness.ts';

const ENV = {
  POLICY_PARAMETER_NAME: CONFIG.POLICY_PARAMETER_NAME,
  STATE_TABLE_NAME: CONFIG.STATE_TABLE_NAME,
  SCALE_STATE_MACHINE_ARN: CONFIG.SCALE_STATE_MACHINE_ARN,
  KILL_SWITCH_PARAMETER_NAME: CONFIG.KILL_SWITCH_PARAMETER_NAME,
  GOVERNOR_MODE: 'active',
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'testing',
  AWS_SECRET_ACCESS_KEY: 'testing',
  POWERTOOLS_SERVICE_NAME: 'governor',
  POWERTOOLS_METRICS_NAMESPACE: 'Governor',
};
const context = {
  functionName: 'governor-evaluate',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:governor-evaluate',
  memoryLimitInMB: '512',
  awsRequestId: 'req-1',
  getRemainingTimeInMillis: () => 60_000,
} as never;

let output: string[];
beforeEach(() => {
  vi.resetModules();
  for (const [k, v] of Object.entries(ENV)) vi.stubEnv(k, v);
  output = [];
  for (const stream of [process.stdout, process.stderr]) {
    vi.spyOn(stream, 'write').mockImplementation((chunk) => {
      output.push(String(chunk));
      return true;
    });
  }
});
afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

const emf = () =>
  output
    .flatMap((chunk) => chunk.split('\n'))
    .filter((line) => line.includes('"_aws"'))
    .map(
      (line) =>
        JSON.parse(line) as {
          _aws: { CloudWatchMetrics: { Dimensions: string[][]; Metrics: { Name: string }[] }[] };
        },
    );

describe('the evaluate Lambda handler', () => {
  it.each([
    { case: 'a missing table name', unset: 'STATE_TABLE_NAME', message: /STATE_TABLE_NAME is required/ },
    {
      case: 'a missing policy parameter name',
      unset: 'POLICY_PARAMETER_NAME',
      message: /POLICY_PARAMETER_NAME is required/,
    },
  ])('fails at cold start naming $case', async ({ unset, message }) => {
    vi.stubEnv(unset, undefined as unknown as string);
    await expect(import('#functions/evaluate/handler.ts')).rejects.toThrow(message);
  });

  it('evaluates a tick, returns a summary and writes EMF with the documented dimension sets', async () => {
    const h = harness();
    h.parameters.set(CONFIG.POLICY_PARAMETER_NAME, EXAMPLE_POLICY);
    Object.assign(h.metricValues, { InvocationsPerInstance: 250 });
    const tick = { ...(eventFile('scheduler-tick') as object), time: new Date().toISOString() };
    const { handler } = await import('#functions/evaluate/handler.ts');
    const summary = await handler(tick, context);
    expect(summary).toMatchObject({
      eventId: '5e0f4c1a-7b52-4f5e-9c1d-2f7a8e6b9d01',
      ignored: null,
      decisions: [{ targetId: 'chat-llm', outcome: 'held' }],
    });
    const sets = emf().flatMap((e) =>
      e._aws.CloudWatchMetrics.map(
        (m) => `${m.Dimensions.map((d) => d.join('+')).join(',')}: ${m.Metrics.map((x) => x.Name).join(' ')}`,
      ),
    );
    expect(sets).toEqual([
      // The example policy's default SLO control adds the budget (no attainment or burn rate yet:
      // the fake's datapoint is a year before this tick, outside the window; tests/functions/slo-replay.test.ts has them all).
      'TargetId: DesiredCapacity CurrentCapacity Decisions SuccessfulEvaluations ActionFailures EvaluationLatency ErrorBudgetRemaining HeadroomFactor ErrorBudgetAtRisk',
      expect.stringMatching(/^TargetId\+Reason: Decisions$/),
      'service: SuccessfulEvaluations EvaluationLatency',
    ]);
    const decisionLine = output.find((l) => l.includes('"decision chat-llm: held"'));
    expect(JSON.parse(decisionLine!)).toMatchObject({
      level: 'INFO',
      service: 'governor',
      record: { targetId: 'chat-llm' },
    });
  });

  it('refuses a tick from another account than its own (from invokedFunctionArn), with no AWS call', async () => {
    const h = harness();
    const tick = {
      ...(eventFile('scheduler-tick') as object),
      time: new Date().toISOString(),
      account: '999999999999',
    };
    const { handler } = await import('#functions/evaluate/handler.ts');
    expect(await handler(tick, context)).toMatchObject({ ignored: 'ForeignAccount', decisions: [] });
    expect(h.takeCalls()).toEqual([]);
    expect(emf().map((e) => e._aws.CloudWatchMetrics[0])).toContainEqual({
      Namespace: 'Governor',
      Dimensions: [['service']],
      Metrics: [{ Name: 'ForeignEvents', Unit: 'Count' }],
    });
  });

  it('a decision record the table refuses emits AuditWriteFailures (the alarm reads it) and is named in the summary', async () => {
    const h = harness();
    h.parameters.set(CONFIG.POLICY_PARAMETER_NAME, EXAMPLE_POLICY);
    h.mocks.ddb.on(PutCommand).rejects(Object.assign(new Error('denied'), { name: 'AccessDeniedException' }));
    const tick = { ...(eventFile('scheduler-tick') as object), time: new Date().toISOString() };
    const { handler } = await import('#functions/evaluate/handler.ts');
    const summary = await handler(tick, context);
    expect(summary).toMatchObject({ auditWriteFailures: ['chat-llm'], deadlineSkipped: [] });
    expect(emf().map((e) => e._aws.CloudWatchMetrics[0])).toContainEqual({
      Namespace: 'Governor',
      Dimensions: [['service']],
      Metrics: [{ Name: 'AuditWriteFailures', Unit: 'Count' }],
    });
    expect(output.some((l) => l.includes('AuditWriteFailed: the decision record'))).toBe(true);
  });

  it('a policy load failure emits PolicyLoadFailures with the service dimension', async () => {
    const h = harness();
    h.parameters.set(CONFIG.POLICY_PARAMETER_NAME, 'version: 1\ntargets: []');
    const tick = { ...(eventFile('scheduler-tick') as object), time: new Date().toISOString() };
    const { handler } = await import('#functions/evaluate/handler.ts');
    await expect(handler(tick, context)).rejects.toThrow(/no valid policy/);
    expect(emf().map((e) => e._aws.CloudWatchMetrics[0])).toContainEqual({
      Namespace: 'Governor',
      Dimensions: [['service']],
      Metrics: [{ Name: 'PolicyLoadFailures', Unit: 'Count' }],
    });
    expect(
      output.some((l) => l.includes('policy problem: /governor/policy: targets needs at least one target')),
    ).toBe(true);
  });
});
