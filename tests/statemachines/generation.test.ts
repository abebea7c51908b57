/**
 * The generation check: only the newest decision's execution may change capacity. The evaluator
 * trusts live capacity again after its pending window (max(180 s, 3 periods)), while an
 * execution may wait up to 10 minutes for the endpoint to settle. Right before the update the
 * state machine reads the target's state item and goes on only while its pending change is this
 * execution's decision.
 *
 * The race is run for real: the evaluate function (its replay harness, tests/functions) decides
 * and starts execution 1; execution 1 runs in aws-local-stepfunctions and, while the endpoint
 * keeps it waiting, the evaluator decides again and starts execution 2; execution 1 must end
 * superseded without an update, and execution 2 applies. The state machine's GetItem reads the
 * very table the evaluator's claims wrote.
 */
import { StartExecutionCommand } from '@aws-sdk/client-sfn';
import { describe, expect, it } from 'vitest';
import { eventFile, harness } from '../functions/harness.ts';
import {
  awsError,
  endpoint,
  fakeAws,
  killSwitch,
  run,
  Script,
  variantInput,
  waitingFor,
  writtenItem,
} from './harness.ts';

const at = (hhmmss: string) => Date.parse(`2025-06-02T${hhmmss}Z`);
const STORM = { InvocationsPerInstance: 250, GPUUtilization: 95, ModelLatency: 1_500_000 };
const tick = (id: string, now: number) => ({
  ...(eventFile('scheduler-tick') as object),
  id,
  time: new Date(now - 30_000).toISOString(),
});

describe('the generation check before the update', () => {
  it.each([
    {
      case: 'a newer decision has claimed the target: superseded, nothing changes',
      owner: waitingFor('20250601T120400000Z-00000002'),
      detail:
        'Superseded: decision 20250601T120400000Z-00000002 has claimed target chat-llm since this one, so this execution changed nothing (it would have set 3 instead of 1)',
    },
    {
      case: 'no change is pending any more (the evaluator stopped waiting): superseded, nothing changes',
      owner: waitingFor(null),
      detail:
        'Superseded: target chat-llm waits for no change any more (the evaluator stopped waiting for this one after its pending window and decides from live capacity), so this execution changed nothing (it would have set 3 instead of 1)',
    },
  ])('$case', async ({ owner, detail }) => {
    const aws = fakeAws({ getItem: new Script(owner) });
    const result = await run(variantInput(), aws);
    expect(result).toMatchObject({
      status: 'SUCCEEDED',
      output: { status: 'superseded', reason: 'Superseded' },
    });
    expect(aws.updateEndpointWeightsAndCapacities.calls).toEqual([]);
    expect(writtenItem(aws)).toMatchObject({ status: 'superseded', detail });
  });

  it('reads the state item strongly consistent, after the kill switch and just before the update', async () => {
    const aws = fakeAws({ describeEndpoint: new Script(endpoint('InService', 1), endpoint('InService', 3)) });
    expect((await run(variantInput(), aws)).output).toMatchObject({ status: 'applied' });
    expect(aws.getItem.calls).toEqual([
      {
        TableName: 'governor-state-test',
        Key: { pk: { S: 'TARGET#chat-llm' }, sk: { S: 'STATE' } },
        ConsistentRead: true,
        ProjectionExpression: '#pending',
        ExpressionAttributeNames: { '#pending': 'pending' },
      },
    ]);
  });

  it('is checked again when an update refused as in progress is sent again', async () => {
    const aws = fakeAws({
      // Refused as in progress on the first send and its 3 retries (SageMaker's ValidationException
      // is not in the operation's model: Step Functions names it SageMaker.SageMakerException).
      updateEndpointWeightsAndCapacities: new Script(
        ...Array.from({ length: 4 }, () =>
          awsError('SageMaker.SageMakerException', 'Cannot update in-progress endpoint "arn:x".'),
        ),
        {},
      ),
      // Still this decision at the first check; a newer one has claimed the target by the second.
      getItem: new Script(waitingFor(), waitingFor('20250601T120200000Z-00000002')),
    });
    const result = await run(variantInput(), aws);
    expect(result.output).toMatchObject({ status: 'superseded' });
    expect(aws.updateEndpointWeightsAndCapacities.calls).toHaveLength(4);
    expect(aws.getItem.calls).toHaveLength(2);
  });

  it('an unreadable state item changes nothing and fails the execution', async () => {
    const aws = fakeAws({ getItem: new Script(awsError('DynamoDB.InternalServerErrorException', 'oops')) });
    const result = await run(variantInput(), aws);
    expect(result).toMatchObject({ status: 'FAILED', error: 'Governor.ActionFailed' });
    expect(aws.updateEndpointWeightsAndCapacities.calls).toEqual([]);
  });
});

describe('suspending the other scaler, after both checks', () => {
  const suspend = {
    resourceId: 'endpoint/chat-llm-prod/variant/AllTraffic',
    scalableDimension: 'sagemaker:variant:DesiredInstanceCount',
  };

  it('suspends Application Auto Scaling dynamic scaling once, then sends the change', async () => {
    const aws = fakeAws({
      // Refused as in progress on the first send and its 3 retries (SageMaker's ValidationException
      // is not in the operation's model: Step Functions names it SageMaker.SageMakerException).
      updateEndpointWeightsAndCapacities: new Script(
        ...Array.from({ length: 4 }, () =>
          awsError('SageMaker.SageMakerException', 'Cannot update in-progress endpoint "arn:x".'),
        ),
        {},
      ),
      describeEndpoint: new Script(
        endpoint('InService', 1),
        endpoint('InService', 1),
        endpoint('InService', 3),
      ),
    });
    const result = await run(variantInput({ suspend }), aws);
    expect(result.output).toMatchObject({ status: 'applied' });
    expect(aws.registerScalableTarget.calls).toEqual([
      {
        ServiceNamespace: 'sagemaker',
        ResourceId: 'endpoint/chat-llm-prod/variant/AllTraffic',
        ScalableDimension: 'sagemaker:variant:DesiredInstanceCount',
        SuspendedState: { DynamicScalingInSuspended: true, DynamicScalingOutSuspended: true },
      },
    ]);
    expect(aws.updateEndpointWeightsAndCapacities.calls).toHaveLength(5);
  });

  it.each([
    { case: 'the kill switch is on', aws: () => fakeAws({ getParameters: new Script(killSwitch('on')) }) },
    {
      case: 'a newer decision claimed the target',
      aws: () => fakeAws({ getItem: new Script(waitingFor('newer')) }),
    },
  ])('suspends nothing when $case', async ({ aws: make }) => {
    const aws = make();
    await run(variantInput({ suspend }), aws);
    expect(aws.registerScalableTarget.calls).toEqual([]);
    expect(aws.updateEndpointWeightsAndCapacities.calls).toEqual([]);
  });

  it('a suspension refused (an untagged scalable target) changes nothing and says why', async () => {
    const aws = fakeAws({
      registerScalableTarget: new Script(
        awsError('ApplicationAutoScaling.AccessDeniedException', 'not authorized'),
      ),
    });
    const result = await run(variantInput({ suspend }), aws);
    expect(result).toMatchObject({ status: 'FAILED', error: 'Governor.ActionFailed' });
    expect(result.cause).toMatch(
      /Governor.SuspendFailed.*could not suspend Application Auto Scaling on endpoint\/chat-llm-prod\/variant\/AllTraffic/,
    );
    expect(aws.updateEndpointWeightsAndCapacities.calls).toEqual([]);
  });
});

describe('the race: a stale execution against a newer decision', () => {
  it('the execution of the first decision, held 4 minutes by a busy endpoint, is superseded by the second and changes nothing; the second applies', async () => {
    const h = harness();
    Object.assign(h.metricValues, STORM);
    const inputs = () =>
      h.mocks.sfn
        .commandCalls(StartExecutionCommand)
        .map((c) => JSON.parse(String(c.args[0].input.input)) as Record<string, unknown>);
    // The state machine's GetItem reads the evaluator's own table, marshalled as DynamoDB answers.
    const fromTable = () => {
      const pending = h.table.state('chat-llm')?.pending as { decisionId: string } | undefined;
      return pending ? { Item: { pending: { M: { decisionId: { S: pending.decisionId } } } } } : {};
    };

    // 12:00:30, a storm: decision d1 scales 2 -> 6 and starts execution 1.
    const first = await h.evaluate(tick('t1', at('12:00:30')), at('12:00:30'));
    expect(first.records[0]).toMatchObject({ decisionId: 'd1', outcome: 'started' });
    const e1 = inputs()[0]!;

    // Execution 1 finds the endpoint busy (another change of its own); while it waits, 4 minutes
    // pass: the evaluator's pending window (180 s) runs out, it sees the endpoint still at 2
    // instances, and decision d2 starts execution 2.
    let second: Awaited<ReturnType<typeof h.evaluate>> | undefined;
    const busy = endpoint('Updating', 2);
    const aws1 = fakeAws({
      describeEndpoint: new Script(busy, async () => {
        h.setMetricMinute('2025-06-02T12:03:00Z');
        second = await h.evaluate(tick('t2', at('12:04:30')), at('12:04:30'));
        return endpoint('InService', 2);
      }),
      getItem: new Script(fromTable),
    });
    const r1 = await run(e1, aws1);
    expect(second?.records[0]).toMatchObject({ decisionId: 'd2', outcome: 'started' });
    expect(r1.output).toMatchObject({ status: 'superseded' });
    expect(writtenItem(aws1).detail).toMatch(
      /^Superseded: decision d2 has claimed target chat-llm since this one/,
    );
    expect(aws1.updateEndpointWeightsAndCapacities.calls).toEqual([]);

    // Execution 2, the newest decision's, applies.
    const e2 = inputs()[1]!;
    expect(e2).toMatchObject({ decisionId: 'd2', killSwitchValue: 'off' });
    const aws2 = fakeAws({
      describeEndpoint: new Script(
        endpoint('InService', 2),
        endpoint('InService', Number(e2.desiredCapacity)),
      ),
      getItem: new Script(fromTable),
    });
    const r2 = await run(e2, aws2);
    expect(r2.output).toMatchObject({ status: 'applied' });
    expect(aws2.updateEndpointWeightsAndCapacities.calls).toHaveLength(1);
  });

  it('without the newer decision, the same wait ends in the change: only a newer claim supersedes', async () => {
    const h = harness();
    Object.assign(h.metricValues, STORM);
    await h.evaluate(tick('t1', at('12:00:30')), at('12:00:30'));
    const e1 = JSON.parse(String(h.mocks.sfn.commandCalls(StartExecutionCommand)[0]!.args[0].input.input));
    const aws = fakeAws({
      describeEndpoint: new Script(
        endpoint('Updating', 2),
        endpoint('InService', 2),
        endpoint('InService', 6),
      ),
      getItem: new Script(() => {
        const pending = h.table.state('chat-llm')?.pending as { decisionId: string };
        return { Item: { pending: { M: { decisionId: { S: pending.decisionId } } } } };
      }),
    });
    expect((await run(e1, aws)).output).toMatchObject({ status: 'applied' });
  });
});
