/**
 * The mix Lambda function: wakes every 5 minutes (EventBridge Scheduler), plans the capacity mix
 * of every target with a capacityMix from the forecast floor and the spot availability (stepMix),
 * stores the planner's state (PLAN items) and writes the plan to ec2-asg groups' MixedInstancesPolicy
 * (docs/capacity-mix.md; ./run.ts is the flow, ./target.ts the order that keeps state consistent).
 * Configuration is parsed once at cold start and fails fast naming the variable. Per run, from the
 * Lambda context: the function's own account (ticks from others are refused) and the time left
 * (every AWS call stops at the deadline, MIX_RESERVE_MS before Lambda's timeout; targets are not
 * started when too little is left).
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { createForecastClients, createSageMakerClients } from '../../shared/aws/clients.ts';
import { withDeadline } from '../../shared/aws/deadline.ts';
import { lambdaRuntime } from '../../shared/aws/lambda-runtime.ts';
import { accountOfArn } from '../../shared/events/routing.ts';
import { parseMixConfig } from './config.ts';
import { awsMixPorts } from './ports.ts';
import { createMixRunner } from './run.ts';
import { powertoolsMixTelemetry } from './telemetry.ts';

/** Kept after the deadline for writing the records' log lines and returning. */
export const MIX_RESERVE_MS = 3_000;

const config = parseMixConfig(process.env);
const { logger, metrics, tracing, clientOptions } = lambdaRuntime(process.env, 'governor-mix');
const run = createMixRunner({
  config,
  // The forecast function's clients (DynamoDB, SSM, CloudWatch, Auto Scaling; created per region
  // on first use) and SageMaker for the variant fallback; no Step Functions in the bundle.
  ports: awsMixPorts(
    {
      ...createForecastClients(clientOptions(config.AWS_REGION)),
      sageMaker: createSageMakerClients(clientOptions(config.AWS_REGION)),
    },
    config.STATE_TABLE_NAME,
  ),
  telemetry: powertoolsMixTelemetry(logger, metrics),
});

/** Returns one line per target (the full records are in the log and the state table). */
export const handler = middy(async (event: unknown, context: Context) => {
  const left = () => context.getRemainingTimeInMillis() - MIX_RESERVE_MS;
  const report = await withDeadline(Date.now() + left(), () =>
    run(event, Date.now(), { account: accountOfArn(context.invokedFunctionArn), leftMs: left }),
  );
  return {
    eventId: report.eventId,
    ignored: report.ignored?.reason ?? null,
    targets: report.records.map((r) => ({
      targetId: r.targetId,
      outcome: r.outcome,
      reasons: r.reasons,
      capacity: r.plan?.capacity ?? null,
      spot: r.plan?.spot ?? null,
      ...(r.fallback ? { fallback: r.fallback.reasons[0] ?? r.fallback.write } : {}),
    })),
  };
})
  .use(tracing.middleware)
  .use(injectLambdaContext(logger));
