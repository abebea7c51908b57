/**
 * The failover state machine on aws-local-stepfunctions with scripted answers
 * (tests/statemachines/failover-harness.ts): a full failover and a failback, a rollback when the
 * standby's p95 regresses mid-shift, a standby that cannot get capacity, the kill switch, and
 * every Task's Catch path.
 */
import { describe, expect, it } from 'vitest';
import {
  failoverInput,
  fakes,
  healthy,
  newest,
  phases,
  ready,
  regressed,
  runFailover,
  Script,
  stepsOf,
  taskNames,
  westWeights,
} from './failover-harness.ts';

describe('a full failover and a failback', () => {
  it('prescales the standby, waits until it serves, then moves traffic 10, 50, 100 % with a check after each step', async () => {
    const aws = fakes({ ready: new Script(ready(false), ready(false), ready(true)) });
    const result = await runFailover(failoverInput(), aws);
    expect(result.status).toBe('SUCCEEDED');
    expect(aws.prescale.calls).toHaveLength(1);
    expect(aws.ready.calls).toHaveLength(3);
    expect(westWeights(aws)).toEqual([10, 50, 100]);
    expect(aws.check.calls).toHaveLength(3);
    expect(aws.putMetricData.calls).toEqual([]);
    expect(phases(aws)).toEqual([
      ['prescale', 'PrescaleStarted'],
      ['standby-serving', 'StandbyServing'],
      ['step', 'ShiftStep'],
      ['step', 'ShiftStep'],
      ['step', 'ShiftStep'],
      ['finished', 'ShiftApplied'],
    ]);
    expect(result.order.indexOf('route')).toBeGreaterThan(result.order.lastIndexOf('ready'));
  });

  it('fails back in the same steps after prescaling the recovered primary', async () => {
    const aws = fakes();
    const input = failoverInput({
      prescale: [
        {
          targetId: 'chat-east',
          region: 'us-east-1',
          desired: 12,
          target: { kind: 'sagemaker-variant', endpointName: 'chat-east', variantName: 'AllTraffic' },
        },
      ],
      steps: stepsOf([90, 50, 0], 100),
      check: { ...failoverInput().check, regions: ['us-east-1'] },
    });
    const result = await runFailover(input, aws);
    expect(result.status).toBe('SUCCEEDED');
    expect(
      (aws.prescale.calls[0] as { Payload: { prescale: { region: string } } }).Payload.prescale.region,
    ).toBe('us-east-1');
    expect(westWeights(aws)).toEqual([90, 50, 0]);
    expect(phases(aws).at(-1)).toEqual(['finished', 'ShiftApplied']);
  });

  it('applies a single planner step without a prescale when the input has none', async () => {
    const aws = fakes();
    const result = await runFailover(failoverInput({ prescale: [], steps: stepsOf([50], 10) }), aws);
    expect(result.status).toBe('SUCCEEDED');
    expect(aws.prescale.calls).toEqual([]);
    expect(aws.ready.calls).toEqual([]);
    expect(westWeights(aws)).toEqual([50]);
  });
});

describe("a regression of the standby's p95 mid-shift", () => {
  it('rolls back one step, records ShiftRolledBack and stops', async () => {
    const aws = fakes({ check: new Script(healthy(), regressed()) });
    const result = await runFailover(failoverInput(), aws);
    expect(result.status).toBe('SUCCEEDED');
    // 10 % held, 50 % regressed: back to 10 %, and the 100 % step never comes.
    expect(westWeights(aws)).toEqual([10, 50, 10]);
    expect(phases(aws).slice(-2)).toEqual([
      ['step', 'ShiftStep'],
      ['rolled-back', 'ShiftRolledBack'],
    ]);
    const detail = (aws.putItem.calls.at(-1) as { Item: { detail: { S: string } } }).Item.detail.S;
    expect(detail).toMatch(/p95LatencyMs 2950 > 1500/);
  });

  it('rolls the first step back to the weights before the move', async () => {
    const aws = fakes({ check: new Script(regressed()) });
    await runFailover(failoverInput(), aws);
    expect(westWeights(aws)).toEqual([10, 0]);
  });
});

describe('a standby that cannot get capacity', () => {
  it('stops the shift, publishes the alarm metric, makes no routing call and records why', async () => {
    const aws = fakes({ ready: new Script(ready(false)) });
    const result = await runFailover(failoverInput({ readyPolls: 20 }), aws);
    expect(result.status).toBe('SUCCEEDED');
    expect(aws.ready.calls).toHaveLength(21);
    expect(aws.route.calls).toEqual([]);
    expect(aws.putMetricData.calls).toEqual([
      {
        Namespace: 'Governor',
        MetricData: [
          {
            MetricName: 'StandbyCapacityUnavailable',
            Dimensions: [{ Name: 'GroupId', Value: 'chat' }],
            Unit: 'Count',
            Value: 1,
          },
        ],
      },
    ]);
    expect(phases(aws)).toEqual([
      ['prescale', 'PrescaleStarted'],
      ['halted', 'StandbyCapacityUnavailable'],
    ]);
    expect(result.order.slice(result.order.indexOf('putMetricData'))).not.toContain('route');
  });

  it("publishes the alarm metric for the planner's alarm and changes nothing else", async () => {
    const aws = fakes();
    const result = await runFailover(
      failoverInput({
        alarm: { message: 'chat (halted): the standby cannot get capacity' },
        prescale: [],
        steps: [],
      }),
      aws,
    );
    expect(result.status).toBe('SUCCEEDED');
    expect(aws.putMetricData.calls).toHaveLength(1);
    expect(aws.route.calls).toEqual([]);
    expect(aws.prescale.calls).toEqual([]);
    expect(phases(aws)).toEqual([['halted', 'StandbyCapacityUnavailable']]);
  });
});

describe('the kill switch', () => {
  it.each([
    { case: 'turned on since the decision', value: 'on' },
    { case: 'changed to another spelling of off', value: 'OFF' },
    { case: 'deleted', value: null },
  ])('$case: nothing routes or prescales, the outcome is killed', async ({ value }) => {
    const aws = fakes({
      getParameters: new Script(
        value === null
          ? { Parameters: [], InvalidParameters: ['/governor/kill-switch'] }
          : { Parameters: [{ Name: '/governor/kill-switch', Value: value }], InvalidParameters: [] },
      ),
    });
    const result = await runFailover(failoverInput(), aws);
    expect(result.status).toBe('SUCCEEDED');
    expect(result.order).toEqual(['getParameters', 'putItem']);
    expect(phases(aws)).toEqual([['killed', 'KillSwitch']]);
  });
});

describe('the generation check (issue 18)', () => {
  it.each([
    { case: 'a newer decision named in the group item', item: newest('20250602T120100000Z-99999999') },
    { case: 'no decision named in the group item', item: newest(null) },
  ])('$case: the execution changes nothing and ends superseded', async ({ item }) => {
    const aws = fakes({ getItem: new Script(item) });
    const result = await runFailover(failoverInput(), aws);
    expect(result).toMatchObject({ status: 'SUCCEEDED', outcome: 'superseded' });
    expect(aws.prescale.calls).toEqual([]);
    expect(aws.route.calls).toEqual([]);
    expect(phases(aws)).toEqual([['superseded', 'Superseded']]);
  });

  it('reads the group item strongly consistent before the prescale and before every step', async () => {
    const aws = fakes();
    const result = await runFailover(failoverInput(), aws);
    expect(result.outcome).toBe('finished');
    expect(aws.getItem.calls).toHaveLength(4); // the prescale, then the 10, 50 and 100 % steps
    expect(aws.getItem.calls[0]).toEqual({
      TableName: 'governor-state-test',
      Key: { pk: { S: 'FAILOVER#chat' }, sk: { S: 'STATE' } },
      ConsistentRead: true,
      ProjectionExpression: '#generation',
      ExpressionAttributeNames: { '#generation': 'generation' },
    });
  });

  it('a decision superseded between two steps stops before the next one', async () => {
    const first = (_: unknown, e: Record<string, unknown>) => newest(e.decisionId);
    const aws = fakes({ getItem: new Script(first, first, newest('20250602T120100000Z-99999999')) });
    const result = await runFailover(failoverInput(), aws);
    expect(result.outcome).toBe('superseded');
    expect(westWeights(aws)).toEqual([10]);
  });

  it('a failed routing call is tried again only after the check: a newer decision meanwhile stops it', async () => {
    const first = (_: unknown, e: Record<string, unknown>) => newest(e.decisionId);
    const throttled = Object.assign(new Error('throttled'), { name: 'RoutingCallError' });
    const aws = fakes({
      getItem: new Script(first, first, newest('20250602T120100000Z-99999999')),
      route: new Script(throttled),
    });
    const result = await runFailover(failoverInput(), aws);
    expect(result.outcome).toBe('superseded');
    expect(aws.route.calls).toHaveLength(1);
  });

  it('a step without a rollback (a planner rollback, a redo) that regresses is recorded and stays', async () => {
    const aws = fakes({ check: new Script(regressed()) });
    const input = failoverInput({ prescale: [], steps: [{ action: stepsOf([0], 10)[0]!.action }] });
    const result = await runFailover(input, aws);
    expect(result.outcome).toBe('returned-unhealthy');
    expect(westWeights(aws)).toEqual([0]);
    expect(phases(aws).at(-1)).toEqual(['returned-unhealthy', 'ReturnedUnhealthy']);
  });
});

describe("every Task's Catch path", () => {
  const tasks = taskNames().filter((n) => n !== 'Record the failure');
  it('covers every Task of the definition', () => {
    expect(tasks.length).toBeGreaterThanOrEqual(14);
  });

  it.each(tasks.map((task) => ({ task })))(
    '"$task" failing is recorded and fails the execution',
    async ({ task }) => {
      // Inputs that reach each Task: a regression reaches the rollback, no capacity the alarm metric.
      const reaching: Record<string, Partial<Parameters<typeof fakes>[0]>> = {
        'Roll back one step': { check: new Script(regressed()) },
        'Record the rollback': { check: new Script(regressed()) },
        'Publish the standby capacity alarm metric': { ready: new Script(ready(false)) },
        'Record why the shift stopped': { ready: new Script(ready(false)) },
        'Record the stop by the kill switch': {
          getParameters: new Script({ Parameters: [{ Name: 'k', Value: 'on' }], InvalidParameters: [] }),
        },
        'Read the newest decision before the rollback': { check: new Script(regressed()) },
        'Record that traffic returned to an unhealthy region': { check: new Script(regressed()) },
        'Record the stop by a newer decision': {
          getItem: new Script(newest('20250602T115900000Z-99999999')),
        },
      };
      // A step without a rollback (a planner's rollback, a redo) reaches the record of its regression.
      const noRollback = task === 'Record that traffic returned to an unhealthy region';
      const aws = fakes(reaching[task] ?? {});
      const input = failoverInput({
        readyPolls: 1,
        ...(noRollback ? { steps: [{ action: stepsOf([10], 0)[0]!.action }] } : {}),
      });
      const result = await runFailover(input, aws, [task]);
      expect(result.status).toBe('FAILED');
      expect(result.error).toBe('Governor.FailoverFailed');
      const failed = phases(aws).at(-1);
      expect(failed?.[0]).toBe('failed');
    },
  );

  it('fails the execution even when the failure cannot be recorded', async () => {
    const aws = fakes();
    const result = await runFailover(failoverInput(), aws, ['Apply the routing step', 'Record the failure']);
    expect(result.status).toBe('FAILED');
    expect(result.error).toBe('Governor.FailoverFailed');
  });
});
