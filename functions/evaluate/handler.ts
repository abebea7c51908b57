/**
 * The evaluate Lambda function: wakes on the minute tick (EventBridge Scheduler) and on
 * CloudWatch alarm state changes, decides every target it is asked about, and acts in active
 * mode. Configuration is parsed once at cold start and fails fast naming the variable; the SDK
 * clients, the policy cache and the duplicate-event memory live as long as the container.
 *
 * Per invocation, from the Lambda context: the function's own account (invokedFunctionArn),
 * against which events are checked, and the time left: every AWS call stops at the deadline
 * (RESERVE_MS before Lambda's timeout), and targets are not started when too little is left.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { createClients } from '../../shared/aws/clients.ts';
import { withDeadline } from '../../shared/aws/deadline.ts';
import { lambdaRuntime } from '../../shared/aws/lambda-runtime.ts';
import { accountOfArn } from '../../shared/events/routing.ts';
import { RESERVE_MS } from '../../shared/invocation/budget.ts';
import { parseConfig } from '../../shared/invocation/config.ts';
import { createEvaluator } from './evaluate.ts';
import { ssmPolicySource } from './policy-source.ts';
import { awsPorts } from './ports.ts';
import { powertoolsTelemetry } from './telemetry.ts';

const config = parseConfig(process.env);
const { logger, metrics, tracing, clientOptions } = lambdaRuntime(process.env, 'governor');
const telemetry = powertoolsTelemetry(logger, metrics);
const ports = awsPorts(createClients(clientOptions(config.AWS_REGION)), config.STATE_TABLE_NAME);
const evaluate = createEvaluator({
  config,
  ports,
  telemetry,
  policy: ssmPolicySource(
    ports.parameters,
    config.POLICY_PARAMETER_NAME,
    config.POLICY_CACHE_SECONDS,
    telemetry,
  ),
});

/**
 * Returns a summary (the full records are in the log and the audit table), naming what was not
 * done: records not written to the table, targets not started for lack of time. No logMetrics
 * middleware: telemetry publishes each target's metrics as it goes (their dimension sets
 * differ), so an end-of-invocation flush would only warn "no application metrics".
 */
export const handler = middy(async (event: unknown, context: Context) => {
  const left = () => context.getRemainingTimeInMillis() - RESERVE_MS.evaluate;
  const report = await withDeadline(Date.now() + left(), () =>
    evaluate(event, Date.now(), { account: accountOfArn(context.invokedFunctionArn), leftMs: left }),
  );
  return {
    eventId: report.event.id,
    ignored: report.ignored?.reason ?? null,
    decisions: report.records.map((r) => ({
      targetId: r.targetId,
      outcome: r.outcome,
      desiredCapacity: r.decision?.desiredCapacity ?? null,
      reasons: r.decision?.reasons ?? [],
    })),
    auditWriteFailures: report.auditWriteFailures,
    deadlineSkipped: report.deadlineSkipped,
  };
})
  .use(tracing.middleware)
  .use(injectLambdaContext(logger));
