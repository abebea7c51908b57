/**
 * No AWS call can hold an invocation: every client has per-attempt connection and request
 * timeouts (shared/aws/clients.ts TIMEOUTS), and every call made inside withDeadline stops at the
 * invocation's deadline (shared/aws/deadline.ts). The hung endpoint here is a loopback server
 * that accepts connections and never answers, reached through the real SDK stack (no mocks).
 */
import { DescribeScalableTargetsCommand } from '@aws-sdk/client-application-auto-scaling';
import { DescribeAutoScalingGroupsCommand } from '@aws-sdk/client-auto-scaling';
import { ListMetricsCommand } from '@aws-sdk/client-cloudwatch';
import { DescribeEndpointCommand } from '@aws-sdk/client-sagemaker';
import { ListStateMachinesCommand } from '@aws-sdk/client-sfn';
import { GetParameterCommand } from '@aws-sdk/client-ssm';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { createEvaluator } from '#functions/evaluate/evaluate.ts';
import { fixedPolicySource } from '#functions/evaluate/policy-source.ts';
import { awsPorts } from '#functions/evaluate/ports.ts';
import {
  clientConfig,
  createClients,
  FORECAST_READ_TIMEOUTS,
  forecastReadConfig,
  MAX_ATTEMPTS,
  TIMEOUTS,
} from '#shared/aws/clients.ts';
import { withDeadline } from '#shared/aws/deadline.ts';
import { policyOf, variantTarget } from '../control/policies.ts';
import { CONFIG, captureTelemetry, eventFile } from '../functions/support.ts';
import { hungEndpoint } from '../support/hung-endpoint.ts';

const hung = hungEndpoint(); // accepts, reads, never answers

const credentials = { accessKeyId: 'testing', secretAccessKey: 'testing' };
const elapsed = async (f: () => Promise<unknown>) => {
  const t0 = performance.now();
  const error = await f().then(
    () => null,
    (e: unknown) => e as Error & { $metadata?: { attempts?: number } },
  );
  return { ms: performance.now() - t0, error };
};

describe('per-attempt timeouts', () => {
  it('every client gets a 2 s connection timeout and a 5 s request timeout that throws', () => {
    expect(TIMEOUTS).toEqual({ connectionTimeout: 2_000, requestTimeout: 5_000 });
    expect(clientConfig({ region: 'us-east-1' }).requestHandler).toEqual({
      connectionTimeout: 2_000,
      requestTimeout: 5_000,
      throwOnRequestTimeout: true,
    });
  });

  it("the forecast function's CloudWatch reads get 20 s per attempt (pages of up to 100,800 datapoints), its other clients 5 s; tests may still shorten them", () => {
    expect(FORECAST_READ_TIMEOUTS).toEqual({ connectionTimeout: 2_000, requestTimeout: 20_000 });
    expect(forecastReadConfig({ region: 'us-east-1' }, 'eu-west-1')).toMatchObject({
      region: 'eu-west-1',
      requestHandler: { connectionTimeout: 2_000, requestTimeout: 20_000, throwOnRequestTimeout: true },
    });
    const short = { connectionTimeout: 100, requestTimeout: 200 };
    expect(forecastReadConfig({ region: 'us-east-1', timeouts: short }, 'us-east-1').requestHandler).toEqual({
      ...short,
      throwOnRequestTimeout: true,
    });
  });

  it('each of the seven clients gives up on a hung endpoint after its request timeout', async () => {
    const c = createClients({
      region: 'us-east-1',
      endpoint: hung.url(),
      credentials,
      maxAttempts: 1,
      timeouts: { connectionTimeout: 200, requestTimeout: 200 },
    });
    const calls = [
      () => c.home.dynamo.send(new GetCommand({ TableName: 't', Key: { pk: 'a', sk: 'b' } })),
      () => c.home.ssm.send(new GetParameterCommand({ Name: '/x' })),
      () => c.home.sfn.send(new ListStateMachinesCommand({})),
      () => c.cloudWatch('us-east-1').send(new ListMetricsCommand({})),
      () => c.sageMaker('us-east-1').send(new DescribeEndpointCommand({ EndpointName: 'e' })),
      () =>
        c
          .appAutoScaling('us-east-1')
          .send(new DescribeScalableTargetsCommand({ ServiceNamespace: 'sagemaker' })),
      () => c.autoScaling('us-east-1').send(new DescribeAutoScalingGroupsCommand({})),
    ];
    const results = await Promise.all(calls.map(elapsed));
    for (const r of results) {
      expect(r.error?.name).toBe('TimeoutError');
      expect(r.ms).toBeLessThan(1_500);
    }
  });

  it('a call that hangs on every attempt ends after MAX_ATTEMPTS timeouts, retried like any transient error', async () => {
    const c = createClients({
      region: 'us-east-1',
      endpoint: hung.url(),
      credentials,
      timeouts: { connectionTimeout: 200, requestTimeout: 300 },
    });
    const { ms, error } = await elapsed(() => c.home.ssm.send(new GetParameterCommand({ Name: '/x' })));
    expect(error?.name).toBe('TimeoutError');
    expect(error?.$metadata?.attempts).toBe(MAX_ATTEMPTS);
    // 4 x 300 ms plus the standard mode's backoff (under 1 s for three retries).
    expect(ms).toBeGreaterThan(1_200);
    expect(ms).toBeLessThan(3_000);
  });
});

describe('the invocation deadline', () => {
  it('a hung call with the production timeouts (up to ~21 s) ends at the deadline instead', async () => {
    const c = createClients({ region: 'us-east-1', endpoint: hung.url(), credentials });
    const { ms, error } = await elapsed(() =>
      withDeadline(Date.now() + 800, () => c.home.ssm.send(new GetParameterCommand({ Name: '/x' }))),
    );
    expect(error?.name).toBe('DeadlineExceeded');
    expect(error?.message).toMatch(/passed before this call finished; it was abandoned$/);
    // Without the deadline the call would hang for about 21 s; the bound leaves room for a loaded machine.
    expect(ms).toBeLessThan(5_000);
  });

  it('a call started after the deadline fails at once', async () => {
    const c = createClients({ region: 'us-east-1', endpoint: hung.url(), credentials });
    const { ms, error } = await elapsed(() =>
      withDeadline(Date.now() - 1, () => c.home.ssm.send(new GetParameterCommand({ Name: '/x' }))),
    );
    expect(error?.name).toBe('DeadlineExceeded');
    // At once: no attempt is made (an attempt would take the 2 s connection timeout at least); the
    // bound is far from both, so a loaded machine cannot fail it (it measured 103 ms at load 15).
    expect(ms).toBeLessThan(1_000);
  });

  it('the evaluate function against an endpoint that never answers returns within its budget, every target recorded with why', async () => {
    const telemetry = captureTelemetry();
    const evaluate = createEvaluator({
      config: CONFIG,
      ports: awsPorts(
        createClients({ region: 'us-east-1', endpoint: hung.url(), credentials }),
        CONFIG.STATE_TABLE_NAME,
      ),
      telemetry,
      policy: fixedPolicySource(policyOf(variantTarget())),
    });
    const budget = 1_500;
    const tick = { ...(eventFile('scheduler-tick') as object), time: new Date().toISOString() };
    const t0 = performance.now();
    const report = await withDeadline(Date.now() + budget, () =>
      evaluate(tick, Date.now(), {
        account: '123456789012',
        leftMs: () => budget - (performance.now() - t0),
      }),
    );
    const ms = performance.now() - t0;
    expect(ms).toBeLessThan(budget + 1_000);
    expect(report.records).toHaveLength(1);
    expect(report.records[0]).toMatchObject({ outcome: 'failed', inputs: { killSwitch: true } });
    expect(report.records[0]?.detail).toMatch(/DeadlineExceeded/);
    expect(report.auditWriteFailures).toEqual([report.records[0]?.targetId]);
    expect(telemetry.counts.AuditWriteFailures).toBe(1);
  });
});
