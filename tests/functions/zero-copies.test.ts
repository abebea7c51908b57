/**
 * An inference component is set to 0 copies only where its endpoint's instances can follow
 * (issue 18): AWS scales an endpoint to zero instances only when its variant's
 * ManagedInstanceScaling has MinInstanceCount 0. zeroCopiesRefusal (shared/aws/sagemaker.ts) as a
 * table, then the evaluate function's replay (real adapters, aws-sdk-client-mock): an idle
 * component decided to 0 reads its variant and the endpoint back before the state machine starts,
 * and is refused, saying why, with the claim undone, when the endpoint keeps instances.
 */
import { DescribeEndpointCommand, DescribeInferenceComponentCommand } from '@aws-sdk/client-sagemaker';
import { StartExecutionCommand } from '@aws-sdk/client-sfn';
import { describe, expect, it } from 'vitest';
import { zeroCopiesRefusal } from '#shared/aws/sagemaker.ts';
import { initialState } from '#shared/engine/types.ts';
import { CONFIG, eventFile, harness } from './harness.ts';

const endpoint = (scaling: Record<string, unknown> | undefined) => ({
  EndpointStatus: 'InService',
  ProductionVariants: [
    {
      VariantName: 'AllTraffic',
      CurrentInstanceCount: 1,
      DesiredInstanceCount: 1,
      ...(scaling ? { ManagedInstanceScaling: scaling } : {}),
    },
  ],
});

describe('zeroCopiesRefusal', () => {
  it.each([
    {
      case: 'managed scaling down to 0 instances: allowed',
      scaling: { Status: 'ENABLED', MinInstanceCount: 0, MaxInstanceCount: 4 },
      why: null,
    },
    {
      case: 'MinInstanceCount 1',
      scaling: { Status: 'ENABLED', MinInstanceCount: 1, MaxInstanceCount: 4 },
      why: /has ManagedInstanceScaling MinInstanceCount 1, so its instances would stay \(and bill\)/,
    },
    {
      case: 'managed scaling disabled',
      scaling: { Status: 'DISABLED', MinInstanceCount: 0 },
      why: /has ManagedInstanceScaling DISABLED/,
    },
    { case: 'no managed scaling at all', scaling: undefined, why: /has no ManagedInstanceScaling/ },
  ])('$case', ({ scaling, why }) => {
    const out = zeroCopiesRefusal(endpoint(scaling) as never, 'chat-ep', 'AllTraffic');
    if (why === null) expect(out).toBeNull();
    else {
      expect(out).toMatch(why);
      expect(out).toMatch(/^not scaled to 0 copies: variant AllTraffic of endpoint chat-ep /);
      expect(out).toMatch(
        /ManagedInstanceScaling Status ENABLED and MinInstanceCount 0 .*or set scaling\.minCapacity 1 and scaleToZero false$/,
      );
    }
  });

  it("refuses an endpoint without the component's variant rather than guess", () => {
    expect(() => zeroCopiesRefusal(endpoint(undefined) as never, 'chat-ep', 'Other')).toThrow(
      /has no variant "Other"/,
    );
  });
});

const POLICY = `version: 1
targets:
  - id: chat-ic
    kind: sagemaker-inference-component
    region: us-east-1
    inferenceComponentName: chat-ic
    endpointName: chat-ep
    scaling:
      minCapacity: 0
      maxCapacity: 4
      scaleToZero: true
      activation: { metric: invocations, threshold: 0 }
    damping: { scaleInBreaches: 1, scaleOutBreaches: 1, scaleInStabilizationSeconds: 60, scaleInCooldownSeconds: 0 }
    signals:
      - { metric: invocationsPerInstance, target: 100 }
`;

describe('an idle inference component decided to 0 copies', () => {
  const run = async (scaling: Record<string, unknown>) => {
    const h = harness();
    h.parameters.set(CONFIG.POLICY_PARAMETER_NAME, POLICY);
    // SageMaker's per-copy metric for an inference component, and its Invocations (activation).
    h.metricValues.InvocationsPerCopy = 0;
    h.metricValues.Invocations = 0;
    h.mocks.sm.on(DescribeInferenceComponentCommand).resolves({
      InferenceComponentName: 'chat-ic',
      EndpointName: 'chat-ep',
      VariantName: 'AllTraffic',
      InferenceComponentStatus: 'InService',
      RuntimeConfig: { DesiredCopyCount: 1, CurrentCopyCount: 1 },
    } as never);
    h.mocks.sm.on(DescribeEndpointCommand).resolves(endpoint(scaling) as never);
    const tick = { ...(eventFile('scheduler-tick') as object), id: 'ic1', time: '2025-06-02T12:00:30Z' };
    const [record] = (await h.evaluate(tick, Date.parse('2025-06-02T12:00:35Z'))).records;
    return { h, record };
  };

  it('starts the scale-target state machine when the endpoint scales to zero instances', async () => {
    const { h, record } = await run({ Status: 'ENABLED', MinInstanceCount: 0, MaxInstanceCount: 4 });
    expect(record?.decision?.desiredCapacity).toBe(0);
    expect(record?.outcome).toBe('started');
    expect(h.mocks.sm.commandCalls(DescribeEndpointCommand).map((c) => c.args[0].input)).toEqual([
      { EndpointName: 'chat-ep' },
    ]);
    expect(h.mocks.sfn.commandCalls(StartExecutionCommand)).toHaveLength(1);
  });

  it('is refused, saying why, with no execution and the engine state as it was, when the endpoint keeps an instance', async () => {
    const { h, record } = await run({ Status: 'ENABLED', MinInstanceCount: 1, MaxInstanceCount: 4 });
    expect(record?.decision?.desiredCapacity).toBe(0);
    expect(record?.outcome).toBe('refused');
    expect(record?.detail).toMatch(
      /^not scaled to 0 copies: variant AllTraffic of endpoint chat-ep has ManagedInstanceScaling MinInstanceCount 1/,
    );
    expect(h.mocks.sfn.commandCalls(StartExecutionCommand)).toHaveLength(0);
    expect(h.table.state('chat-ic')).toMatchObject({ engine: initialState() });
    expect(h.table.state('chat-ic')?.pending).toBeUndefined();
  });
});
