/**
 * The spot-events Lambda: EventBridge -> SQS -> this function, in batches; for ec2-asg targets
 * with capacityMix.spot it replaces warned instances once, raises the group for retiring ones
 * (the mix function terminates them once replaced), leaves spot pools that ran dry out of the
 * mix, and opens the spot breaker (docs/interruptions.md; run.ts is the flow).
 *
 * Environment (parsed at cold start by config.ts, a bad one fails naming it):
 *   POLICY_PARAMETER_NAME       required, the policy's SSM parameter (and its /parts/ below it)
 *   STATE_TABLE_NAME            required, the state table (MIX#<target>/PLAN items, shared with mix)
 *   KILL_SWITCH_PARAMETER_NAME  required, the kill switch parameter ("off" lets changes through)
 *   GOVERNOR_MODE               shadow (default) | active
 *   POLICY_CACHE_SECONDS        default 60
 *   AWS_REGION                  set by Lambda; events of other regions are ignored
 *   POWERTOOLS_SERVICE_NAME     default governor-spot-events
 *   POWERTOOLS_METRICS_NAMESPACE default Governor
 *   (AWS_ENDPOINT_URL only in tests: moto)
 *
 * IAM (least privilege; Describe actions of Auto Scaling take no resource):
 *   ssm:GetParameter on the policy parameter and the kill switch parameter;
 *   ssm:GetParametersByPath on <policy parameter>/parts;
 *   dynamodb:GetItem, dynamodb:BatchGetItem, dynamodb:PutItem on the state table;
 *   autoscaling:DescribeAutoScalingInstances, autoscaling:DescribeAutoScalingGroups,
 *     autoscaling:DescribeWarmPool on *;
 *   autoscaling:DetachInstances, autoscaling:UpdateAutoScalingGroup, autoscaling:SetDesiredCapacity,
 *     autoscaling:TerminateInstanceInAutoScalingGroup on the managed groups
 *     (arn:aws:autoscaling:<region>:<account>:autoScalingGroup:*:autoScalingGroupName/<name>);
 *   ec2:RunInstances on the groups' launch templates and iam:PassRole on their instance profile
 *     role, as for the mix function (UpdateAutoScalingGroup with a MixedInstancesPolicy checks them);
 *   sqs:ReceiveMessage, sqs:DeleteMessage, sqs:GetQueueAttributes on the queue (SQSPollerPolicy).
 *
 * Event source (SQS, standard queue): BatchSize 100, MaximumBatchingWindowInSeconds 5,
 * FunctionResponseTypes [ReportBatchItemFailures], ScalingConfig MaximumConcurrency 2; the
 * queue's VisibilityTimeout at least 6 x the function timeout (60 s), a dead-letter queue with
 * maxReceiveCount 5. EventBridge rules into the queue (default bus, this account and region):
 *   { "source": ["aws.ec2"], "detail-type": ["EC2 Spot Instance Interruption Warning",
 *     "EC2 Instance Rebalance Recommendation"] }
 *   { "source": ["aws.autoscaling"], "detail-type": ["EC2 Instance Launch Unsuccessful"],
 *     "detail": { "AutoScalingGroupName": [<the managed groups>] } }
 *   { "source": ["aws.health"], "detail-type": ["AWS Health Event"], "detail": { "service": ["EC2"] } }
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { Context, SQSEvent } from 'aws-lambda';
import { createClients } from '../../shared/aws/clients.ts';
import { withDeadline } from '../../shared/aws/deadline.ts';
import { lambdaRuntime } from '../../shared/aws/lambda-runtime.ts';
import { clip } from '../../shared/events/bounded.ts';
import { accountOfArn } from '../../shared/events/routing.ts';
import { RESERVE_MS } from '../../shared/invocation/budget.ts';
import { errorLine } from '../../shared/invocation/errors.ts';
import { parseSpotEventsConfig } from './config.ts';
import { awsSpotEventsPorts } from './ports.ts';
import { createSpotEventsHandler } from './run.ts';
import { powertoolsSpotTelemetry } from './telemetry.ts';

const config = parseSpotEventsConfig(process.env);
const { logger, metrics, tracing, clientOptions } = lambdaRuntime(process.env, 'governor-spot-events');
const run = createSpotEventsHandler({
  config,
  ports: awsSpotEventsPorts(createClients(clientOptions(config.AWS_REGION)), config.STATE_TABLE_NAME),
  telemetry: powertoolsSpotTelemetry(logger, metrics),
});

/**
 * SQS partial batch response: the messages to redeliver, and nothing else. run() reports each
 * failing record alone and does not throw; should a bug make it throw anyway, every record of
 * the batch is returned (redelivered, then dead-lettered) rather than the invocation failing.
 */
export const handler = middy(async (event: SQSEvent, context: Context) => {
  const left = () => context.getRemainingTimeInMillis() - RESERVE_MS.evaluate;
  try {
    const result = await withDeadline(Date.now() + left(), () =>
      run(event, Date.now(), { account: accountOfArn(context.invokedFunctionArn) }),
    );
    return { batchItemFailures: result.batchItemFailures };
  } catch (e) {
    logger.error(`the batch was not handled, every record is redelivered: ${clip(errorLine(e))}`);
    const records = Array.isArray(event?.Records) ? event.Records : [];
    return { batchItemFailures: records.map((r) => ({ itemIdentifier: String(r.messageId) })) };
  }
})
  .use(tracing.middleware)
  .use(injectLambdaContext(logger));
