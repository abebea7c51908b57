/**
 * The scale-target state machine, path by path, in aws-local-stepfunctions with scripted AWS
 * answers (tests/statemachines/harness.ts). moto runs the happy path and a rejected change for
 * real (tests/integration/scale-target-moto.test.ts); the capacity-error branches are here
 * because moto's SageMaker never runs out of instances or quota.
 */
import { describe, expect, it } from 'vitest';
import {
  appendedLeadTimes,
  awsError,
  component,
  componentInput,
  ENTERED_TIME,
  endpoint,
  fakeAws,
  killSwitch,
  run,
  Script,
  TABLE,
  variantInput,
  writtenItem,
} from './harness.ts';

const QUOTA = awsError(
  'SageMaker.ResourceLimitExceededException',
  "The account-level service limit 'ml.g5.2xlarge for endpoint usage' is 4 Instances, with current utilization of 4 Instances and a request delta of 1 Instances.",
);
const NO_INSTANCES =
  'Unable to provision requested ML compute capacity due to InsufficientInstanceCapacity error. Please retry using a different ML instance type or after some time.';

describe('a variant whose change completes', () => {
  it.each([
    {
      case: 'an endpoint in service at once is set, verified and recorded as applied',
      describes: [endpoint('InService', 1), endpoint('InService', 3)],
      expectedDescribes: 2,
    },
    {
      case: 'an endpoint still updating is waited for (2 checks) before the change',
      describes: [
        endpoint('Updating', 1),
        endpoint('Updating', 1),
        endpoint('InService', 1),
        endpoint('InService', 3),
      ],
      expectedDescribes: 4,
    },
    {
      case: 'a change in progress is polled until SageMaker reports it in service',
      describes: [
        endpoint('InService', 1),
        endpoint('Updating', 1),
        endpoint('Updating', 2),
        endpoint('InService', 3),
      ],
      expectedDescribes: 4,
    },
    {
      case: 'an in-service endpoint that has not started the change yet is watched until it has',
      describes: [endpoint('InService', 1), endpoint('InService', 1), endpoint('InService', 3)],
      expectedDescribes: 3,
    },
  ])('$case', async ({ describes, expectedDescribes }) => {
    const aws = fakeAws({ describeEndpoint: new Script(...describes) });
    const result = await run(variantInput(), aws);
    expect(result.status).toBe('SUCCEEDED');
    expect(result.output).toMatchObject({ status: 'applied', reason: 'CapacityVerified' });
    expect(aws.describeEndpoint.calls).toHaveLength(expectedDescribes);
    expect(aws.updateEndpointWeightsAndCapacities.calls).toEqual([
      {
        EndpointName: 'chat-llm-prod',
        DesiredWeightsAndCapacities: [{ VariantName: 'AllTraffic', DesiredInstanceCount: 3 }],
      },
    ]);
    expect(writtenItem(aws)).toEqual({
      pk: 'TARGET#chat-llm',
      sk: 'OUTCOME#20250601T120000000Z-0a1b2c3d',
      status: 'applied',
      detail: 'CapacityVerified: target chat-llm changed from 1 to 3 and SageMaker reports 3 in service',
      at: ENTERED_TIME,
      expiresAt: '1751371200',
    });
    expect((aws.putItem.calls[0] as { TableName: string }).TableName).toBe(TABLE);
    expect(aws.putMetricData.calls).toEqual([]);
  });
});

describe('an inference component', () => {
  it('is set to the desired copy count, verified and recorded as applied', async () => {
    const aws = fakeAws({
      describeInferenceComponent: new Script(
        component('InService', 2),
        component('Updating', 2),
        component('InService', 4),
      ),
    });
    const result = await run(componentInput(), aws);
    expect(result.status).toBe('SUCCEEDED');
    expect(aws.updateInferenceComponentRuntimeConfig.calls).toEqual([
      { InferenceComponentName: 'chat-ic', DesiredRuntimeConfig: { CopyCount: 4 } },
    ]);
    expect(aws.updateEndpointWeightsAndCapacities.calls).toEqual([]);
    expect(writtenItem(aws)).toMatchObject({ pk: 'TARGET#chat-ic', status: 'applied' });
  });
});

describe('an inference component that is not in service yet', () => {
  it.each([
    {
      case: 'a component still creating is waited for (1 check) before the change',
      statuses: ['Creating', 'InService'],
    },
    {
      case: 'a component still updating is waited for (2 checks) before the change',
      statuses: ['Updating', 'Updating', 'InService'],
    },
  ])('$case', async ({ statuses }) => {
    const aws = fakeAws({
      describeInferenceComponent: new Script(
        ...statuses.map((status) => component(status, 2)),
        component('InService', 4),
      ),
    });
    const result = await run(componentInput(), aws);
    expect(result).toMatchObject({ status: 'SUCCEEDED', output: { status: 'applied' } });
    // The endpoint is read again after every wait: both must be in service at the same time.
    expect(aws.describeEndpoint.calls).toHaveLength(statuses.length);
    expect(aws.getParameters.calls).toHaveLength(1);
    expect(aws.updateInferenceComponentRuntimeConfig.calls).toHaveLength(1);
  });

  it.each([
    {
      case: 'a component that never settles is left alone after 20 checks',
      status: 'Updating',
      reads: 21,
    },
    { case: 'a failed component is not changed', status: 'Failed', reads: 1 },
    { case: 'a component being deleted is not changed', status: 'Deleting', reads: 1 },
  ])('$case', async ({ status, reads }) => {
    const aws = fakeAws({ describeInferenceComponent: new Script(component(status, 2)) });
    const result = await run(componentInput(), aws);
    expect(result).toMatchObject({ status: 'FAILED', error: 'Governor.ActionFailed' });
    expect(result.cause).toContain('"Error":"Governor.InferenceComponentNotInService"');
    expect(result.cause).toContain(`inference component chat-ic is ${status} after ${reads - 1} checks`);
    expect(aws.describeInferenceComponent.calls).toHaveLength(reads);
    expect(aws.getParameters.calls).toEqual([]);
    expect(aws.updateInferenceComponentRuntimeConfig.calls).toEqual([]);
    expect(writtenItem(aws)).toMatchObject({ status: 'failed', pk: 'TARGET#chat-ic' });
    expect(aws.putMetricData.calls).toEqual([]);
  });
});

/**
 * How Step Functions reports SageMaker's refusal: a ValidationException is one of SageMaker's
 * common errors, not in the update operations' models, so the aws-sdk integration names it
 * SageMaker.SageMakerException (docs/deploy.md, "Error names the state machines catch"); the
 * message, then the SDK's own suffix, is the Cause.
 */
const refusal = (message: string) =>
  awsError(
    'SageMaker.SageMakerException',
    `${message} (Service: SageMaker, Status Code: 400, Request ID: 5b1e0f6a-3c2d-4e8f-9a7b-1c2d3e4f5a6b)`,
  );
const ENDPOINT_BUSY = refusal(
  'Cannot update in-progress endpoint "arn:aws:sagemaker:us-east-1:123456789012:endpoint/chat-llm-prod".',
);
const COMPONENT_BUSY = refusal(
  'Cannot update inference component chat-ic while it is in state UPDATE_RC_IN_PROGRESS',
);
/** Sends of one change before the update Task's Catch: the first and its 3 retries (Retry MaxAttempts 3). */
const SENDS = 4;
/** A refusal on the first send and on each retry of it. */
const refusedOnEverySend = (error: Error) => Array.from({ length: SENDS }, () => error);

describe('a change SageMaker refuses because another change got there first', () => {
  it.each([
    {
      case: 'a variant refused as in progress is sent again once the endpoint settles, and applied',
      input: variantInput(),
      aws: () =>
        fakeAws({
          describeEndpoint: new Script(
            endpoint('InService', 1),
            endpoint('Updating', 1),
            endpoint('InService', 1),
            endpoint('InService', 3),
          ),
          updateEndpointWeightsAndCapacities: new Script(...refusedOnEverySend(ENDPOINT_BUSY), {}),
        }),
      updates: (aws: ReturnType<typeof fakeAws>) => aws.updateEndpointWeightsAndCapacities.calls,
    },
    {
      case: 'an inference component refused as in progress is sent again once it settles, and applied',
      input: componentInput(),
      aws: () =>
        fakeAws({
          describeInferenceComponent: new Script(
            component('InService', 2),
            component('Updating', 2),
            component('InService', 2),
            component('InService', 4),
          ),
          updateInferenceComponentRuntimeConfig: new Script(...refusedOnEverySend(COMPONENT_BUSY), {}),
        }),
      updates: (aws: ReturnType<typeof fakeAws>) => aws.updateInferenceComponentRuntimeConfig.calls,
    },
    {
      case: 'an inference component refused because its endpoint is updating is sent again, and applied',
      input: componentInput(),
      aws: () =>
        fakeAws({
          describeEndpoint: new Script(
            endpoint('InService', 1),
            endpoint('Updating', 1),
            endpoint('InService', 1),
          ),
          describeInferenceComponent: new Script(
            component('InService', 2),
            component('InService', 2),
            component('InService', 4),
          ),
          updateInferenceComponentRuntimeConfig: new Script(...refusedOnEverySend(ENDPOINT_BUSY), {}),
        }),
      updates: (aws: ReturnType<typeof fakeAws>) => aws.updateInferenceComponentRuntimeConfig.calls,
    },
  ])('$case', async ({ input, aws: make, updates }) => {
    const aws = make();
    const result = await run(input, aws);
    expect(result).toMatchObject({
      status: 'SUCCEEDED',
      output: { status: 'applied', reason: 'CapacityVerified' },
    });
    expect(updates(aws)).toHaveLength(SENDS + 1);
    expect(updates(aws).at(-1)).toEqual(updates(aws)[0]);
    // The kill switch is read again before the change is sent again.
    expect(aws.getParameters.calls).toHaveLength(2);
    expect(writtenItem(aws)).toMatchObject({ status: 'applied', sk: `OUTCOME#${input.decisionId}` });
    expect(aws.putMetricData.calls).toEqual([]);
  });

  it.each([
    {
      case: 'a variant refused as in progress until the settle budget runs out is left alone after 20 checks',
      input: variantInput(),
      aws: () => fakeAws({ updateEndpointWeightsAndCapacities: new Script(ENDPOINT_BUSY) }),
      updates: (aws: ReturnType<typeof fakeAws>) => aws.updateEndpointWeightsAndCapacities.calls,
    },
    {
      case: 'an inference component refused as in progress until the settle budget runs out is left alone after 20 checks',
      input: componentInput(),
      aws: () => fakeAws({ updateInferenceComponentRuntimeConfig: new Script(COMPONENT_BUSY) }),
      updates: (aws: ReturnType<typeof fakeAws>) => aws.updateInferenceComponentRuntimeConfig.calls,
    },
  ])('$case', async ({ input, aws: make, updates }) => {
    const aws = make();
    const result = await run(input, aws);
    expect(result).toMatchObject({ status: 'FAILED', error: 'Governor.ActionFailed' });
    expect(result.cause).toContain('"Error":"Governor.EndpointNotInService"');
    expect(result.cause).toContain(
      `target ${input.targetId} was still busy with another change after 20 checks 30 s apart; no change was made`,
    );
    // 20 waits of 30 s: the first update and one after each wait, each sent with its 3 retries.
    expect(updates(aws)).toHaveLength(21 * SENDS);
    expect(aws.describeEndpoint.calls).toHaveLength(21);
    expect(writtenItem(aws)).toMatchObject({ status: 'failed', pk: `TARGET#${input.targetId}` });
    expect(writtenItem(aws).detail).toMatch(/^ActionFailed: /);
    expect(aws.putMetricData.calls).toEqual([]);
  });

  it('shares the settle budget with the wait before the first change', async () => {
    const aws = fakeAws({
      describeEndpoint: new Script(
        ...Array.from({ length: 15 }, () => endpoint('Updating', 1)),
        endpoint('InService', 1),
      ),
      updateEndpointWeightsAndCapacities: new Script(ENDPOINT_BUSY),
    });
    const result = await run(variantInput(), aws);
    expect(result.cause).toContain('"Error":"Governor.EndpointNotInService"');
    // 15 waits for the endpoint, then 5 after refusals: 6 updates, each sent with its 3 retries.
    expect(aws.updateEndpointWeightsAndCapacities.calls).toHaveLength(6 * SENDS);
  });

  it.each([
    {
      case: 'a variant refused for another reason (an unknown variant) fails at once',
      input: variantInput({ variantName: 'Nope' }),
      aws: () =>
        fakeAws({
          updateEndpointWeightsAndCapacities: new Script(
            refusal(
              'The variant name(s) "Nope" is/are not present within endpoint configuration "chat-llm-prod-config".',
            ),
          ),
        }),
      updates: (aws: ReturnType<typeof fakeAws>) => aws.updateEndpointWeightsAndCapacities.calls,
    },
    {
      case: 'an inference component refused for another reason (not found) fails at once',
      input: componentInput(),
      aws: () =>
        fakeAws({
          updateInferenceComponentRuntimeConfig: new Script(
            refusal('Cannot update inference component "chat-ic" because it does not exist.'),
          ),
        }),
      updates: (aws: ReturnType<typeof fakeAws>) => aws.updateInferenceComponentRuntimeConfig.calls,
    },
  ])('$case', async ({ input, aws: make, updates }) => {
    const aws = make();
    const result = await run(input, aws);
    expect(result).toMatchObject({ status: 'FAILED', error: 'Governor.ActionFailed' });
    expect(result.cause).toContain('"Error":"SageMaker.SageMakerException"');
    expect(updates(aws)).toHaveLength(SENDS);
    expect(aws.describeEndpoint.calls).toHaveLength(1);
    expect(writtenItem(aws)).toMatchObject({ status: 'failed', pk: `TARGET#${input.targetId}` });
    expect(aws.putMetricData.calls).toEqual([]);
  });
});

// Every value of the switch, and the generation check, have files of their own:
// tests/statemachines/kill-switch.test.ts and tests/statemachines/generation.test.ts.
describe('the kill switch, read again just before the change', () => {
  it('an unreadable kill switch changes nothing and fails the execution', async () => {
    const aws = fakeAws({
      getParameters: new Script(awsError('Ssm.InternalServerErrorException', 'try later')),
    });
    const result = await run(variantInput(), aws);
    expect(result).toMatchObject({ status: 'FAILED', error: 'Governor.ActionFailed' });
    expect(aws.getParameters.calls).toHaveLength(4);
    expect(aws.updateEndpointWeightsAndCapacities.calls).toEqual([]);
  });

  it('is not read while the endpoint is still settling', async () => {
    const aws = fakeAws({ describeEndpoint: new Script(endpoint('Updating', 1)) });
    await run(variantInput(), aws);
    expect(aws.getParameters.calls).toEqual([]);
  });
});

describe('capacity errors', () => {
  it.each([
    {
      case: 'a variant over its instance quota is not retried and ends as a capacity error',
      input: variantInput(),
      aws: () => fakeAws({ updateEndpointWeightsAndCapacities: new Script(QUOTA) }),
      updates: (aws: ReturnType<typeof fakeAws>) => aws.updateEndpointWeightsAndCapacities.calls.length,
      detail: /^CapacityError: SageMaker\.ResourceLimitExceededException: The account-level service limit/,
    },
    {
      case: 'a variant SageMaker could not find instances for ends as a capacity error',
      input: variantInput(),
      aws: () =>
        fakeAws({
          describeEndpoint: new Script(endpoint('InService', 1), endpoint('InService', 1, NO_INSTANCES)),
        }),
      updates: (aws: ReturnType<typeof fakeAws>) => aws.updateEndpointWeightsAndCapacities.calls.length,
      detail:
        /^CapacityError: Governor\.InsufficientCapacity: Unable to provision requested ML compute capacity/,
    },
    {
      case: 'a variant whose update failed for lack of instances ends as a capacity error',
      input: variantInput(),
      aws: () =>
        fakeAws({
          describeEndpoint: new Script(endpoint('InService', 1), endpoint('Failed', 1, NO_INSTANCES)),
        }),
      updates: (aws: ReturnType<typeof fakeAws>) => aws.updateEndpointWeightsAndCapacities.calls.length,
      detail: /^CapacityError: Governor\.InsufficientCapacity/,
    },
    {
      case: 'an inference component over its quota ends as a capacity error',
      input: componentInput(),
      aws: () => fakeAws({ updateInferenceComponentRuntimeConfig: new Script(QUOTA) }),
      updates: (aws: ReturnType<typeof fakeAws>) => aws.updateInferenceComponentRuntimeConfig.calls.length,
      detail: /^CapacityError: SageMaker\.ResourceLimitExceededException/,
    },
  ])('$case', async ({ input, aws: make, updates, detail }) => {
    const aws = make();
    const result = await run(input, aws);
    expect(result).toMatchObject({ status: 'FAILED', error: 'Governor.CapacityError' });
    expect(result.cause).toMatch(detail);
    expect(updates(aws)).toBe(1);
    expect(writtenItem(aws)).toMatchObject({ status: 'failed', sk: `OUTCOME#${input.decisionId}` });
    expect(writtenItem(aws).detail).toMatch(detail);
    expect(aws.putMetricData.calls).toEqual([
      {
        Namespace: 'Governor',
        MetricData: [
          {
            MetricName: 'CapacityErrors',
            Dimensions: [{ Name: 'TargetId', Value: input.targetId }],
            Unit: 'Count',
            Value: 1,
          },
        ],
      },
    ]);
  });

  it('still fails as a capacity error when the metric cannot be published', async () => {
    const aws = fakeAws({
      updateEndpointWeightsAndCapacities: new Script(QUOTA),
      putMetricData: new Script(awsError('CloudWatch.InternalServiceException', 'try later')),
    });
    const result = await run(variantInput(), aws);
    expect(result).toMatchObject({ status: 'FAILED', error: 'Governor.CapacityError' });
    expect(writtenItem(aws).status).toBe('failed');
  });
});

describe('other failures', () => {
  it.each([
    {
      case: 'an endpoint that never settles is left alone after 20 checks',
      input: variantInput(),
      aws: () => fakeAws({ describeEndpoint: new Script(endpoint('Updating', 1)) }),
      error: 'Governor.EndpointNotInService',
      describes: 21,
      updates: 0,
    },
    {
      case: 'a failed endpoint is not changed',
      input: variantInput(),
      aws: () => fakeAws({ describeEndpoint: new Script(endpoint('Failed', 1)) }),
      error: 'Governor.EndpointNotInService',
      describes: 1,
      updates: 0,
    },
    {
      case: 'a change still running after 60 progress checks times out',
      input: variantInput(),
      aws: () => fakeAws({ describeEndpoint: new Script(endpoint('InService', 1), endpoint('Updating', 2)) }),
      error: 'Governor.ChangeTimedOut',
      describes: 62,
      updates: 1,
    },
    {
      case: 'a change that settles short of the target without a reason fails after the watch budget',
      input: variantInput(),
      aws: () =>
        fakeAws({ describeEndpoint: new Script(endpoint('InService', 1), endpoint('InService', 2)) }),
      error: 'Governor.CapacityNotReached',
      describes: 62,
      updates: 1,
    },
    {
      case: 'a change SageMaker failed for another reason is a failure, not a capacity error',
      input: variantInput(),
      aws: () =>
        fakeAws({
          describeEndpoint: new Script(
            endpoint('InService', 1),
            endpoint('Failed', 1, 'The model container failed its ping health check'),
          ),
        }),
      error: 'Governor.ChangeFailed',
      describes: 2,
      updates: 1,
    },
    {
      case: 'a rejected update (an unknown variant) is recorded as failed',
      input: variantInput({ variantName: 'Nope' }),
      aws: () =>
        fakeAws({
          updateEndpointWeightsAndCapacities: new Script(
            awsError('SageMaker.SageMakerException', 'The variant name(s) "Nope" is/are not present'),
          ),
        }),
      error: 'SageMaker.SageMakerException',
      describes: 1,
      updates: SENDS,
    },
    {
      case: 'an unknown target kind changes nothing',
      input: variantInput({ kind: 'ec2-asg' }),
      aws: () => fakeAws(),
      error: 'Governor.UnknownTargetKind',
      describes: 1,
      updates: 0,
    },
  ])('$case', async ({ input, aws: make, error, describes, updates }) => {
    const aws = make();
    const result = await run(input, aws);
    expect(result).toMatchObject({ status: 'FAILED', error: 'Governor.ActionFailed' });
    expect(result.cause).toContain(`"Error":"${error}"`);
    expect(aws.describeEndpoint.calls).toHaveLength(describes);
    expect(aws.updateEndpointWeightsAndCapacities.calls).toHaveLength(updates);
    expect(writtenItem(aws)).toMatchObject({ status: 'failed', pk: `TARGET#${input.targetId}` });
    expect(writtenItem(aws).detail).toMatch(/^ActionFailed: /);
    expect(aws.putMetricData.calls).toEqual([]);
  });
});

describe('retries and the outcome record', () => {
  it('retries a throttled read and then applies the change', async () => {
    const aws = fakeAws({
      describeEndpoint: new Script(
        awsError('SageMaker.SageMakerException', 'Rate exceeded'),
        endpoint('InService', 1),
        endpoint('InService', 3),
      ),
    });
    expect((await run(variantInput(), aws)).status).toBe('SUCCEEDED');
    expect(aws.describeEndpoint.calls).toHaveLength(3);
  });

  it('writes the outcome without expiresAt when the input carries no expiry time', async () => {
    const aws = fakeAws({ describeEndpoint: new Script(endpoint('InService', 1), endpoint('InService', 3)) });
    const { expiresAt: _, ...input } = variantInput();
    expect((await run(input, aws)).status).toBe('SUCCEEDED');
    expect(Object.keys(writtenItem(aws)).sort()).toEqual(['at', 'detail', 'pk', 'sk', 'status']);
  });

  it('fails naming the lost record when DynamoDB refuses the outcome after retries', async () => {
    const aws = fakeAws({
      describeEndpoint: new Script(endpoint('InService', 1), endpoint('InService', 3)),
      putItem: new Script(awsError('DynamoDB.ProvisionedThroughputExceededException', 'slow down')),
    });
    const result = await run(variantInput(), aws);
    expect(result).toMatchObject({ status: 'FAILED', error: 'Governor.OutcomeNotRecorded' });
    expect(aws.putItem.calls).toHaveLength(5);
  });
});

describe('the lead time of a verified scale-out', () => {
  const VARIANT_KEY = { pk: 'TARGET#chat-llm', sk: 'STATE' };
  it.each([
    {
      case: 'a variant scaled out 1 -> 3 appends {requestedAt, servingAt} to leadTimesSfn after the outcome',
      input: variantInput(),
      aws: () =>
        fakeAws({ describeEndpoint: new Script(endpoint('InService', 1), endpoint('InService', 3)) }),
      key: VARIANT_KEY,
    },
    {
      case: 'an inference component scaled out 2 -> 4 appends its sample too',
      input: componentInput(),
      aws: () =>
        fakeAws({
          describeInferenceComponent: new Script(component('InService', 2), component('InService', 4)),
        }),
      key: { pk: 'TARGET#chat-ic', sk: 'STATE' },
    },
  ])('$case', async ({ input, aws: make, key }) => {
    const aws = make();
    const result = await run(input, aws);
    expect(result).toMatchObject({ status: 'SUCCEEDED', output: { status: 'applied' } });
    // requestedAt is the decision time from the input; servingAt the EnteredTime of verification.
    expect(appendedLeadTimes(aws)).toEqual([
      { key, samples: [{ requestedAt: '2025-06-01T12:00:00.000Z', servingAt: ENTERED_TIME }] },
    ]);
    expect(aws.updateItem.calls[0]).toMatchObject({
      TableName: TABLE,
      UpdateExpression: 'SET #samples = list_append(if_not_exists(#samples, :none), :sample)',
      ExpressionAttributeNames: { '#samples': 'leadTimesSfn' },
      ExpressionAttributeValues: { ':none': { L: [] } },
    });
    expect(aws.putItem.calls).toHaveLength(1);
  });

  it.each([
    {
      case: 'a scale-in (3 -> 1) measures no lead time',
      input: variantInput({ desiredCapacity: 1, previousCapacity: 3 }),
      aws: () =>
        fakeAws({ describeEndpoint: new Script(endpoint('InService', 3), endpoint('InService', 1)) }),
      status: 'SUCCEEDED',
    },
    {
      case: 'a change stopped by the kill switch measures nothing',
      input: variantInput(),
      aws: () => fakeAws({ getParameters: new Script(killSwitch('on')) }),
      status: 'SUCCEEDED',
    },
    {
      case: 'a capacity error measures nothing',
      input: variantInput(),
      aws: () => fakeAws({ updateEndpointWeightsAndCapacities: new Script(QUOTA) }),
      status: 'FAILED',
    },
    {
      case: 'a change that settles short of its target measures nothing',
      input: variantInput(),
      aws: () => fakeAws({ describeEndpoint: new Script(endpoint('InService', 1)) }),
      status: 'FAILED',
    },
  ])('$case', async ({ input, aws: make, status }) => {
    const aws = make();
    expect((await run(input, aws)).status).toBe(status);
    expect(aws.updateItem.calls).toEqual([]);
  });

  it('a lead time DynamoDB refuses after retries is lost, and the change still succeeds as applied', async () => {
    const aws = fakeAws({
      describeEndpoint: new Script(endpoint('InService', 1), endpoint('InService', 3)),
      updateItem: new Script(awsError('DynamoDB.ProvisionedThroughputExceededException', 'slow down')),
    });
    const result = await run(variantInput(), aws);
    expect(result).toMatchObject({
      status: 'SUCCEEDED',
      output: { status: 'applied', reason: 'CapacityVerified' },
    });
    expect(aws.updateItem.calls).toHaveLength(4); // one call and 3 retries
    expect(writtenItem(aws)).toMatchObject({ status: 'applied' });
  });
});
