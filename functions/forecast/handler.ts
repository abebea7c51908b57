/**
 * The forecast Lambda function: wakes hourly (EventBridge Scheduler), forecasts 48 h of demand
 * for every target with forecast.enabled, stores each target's floor schedule in its state item
 * and writes Application Auto Scaling scheduled actions ahead of ramps (docs/forecast-aws.md).
 * Configuration is parsed once at cold start and fails fast naming the variable. Per run, from
 * the Lambda context: the function's own account (ticks from others are refused) and the time
 * left (every AWS call stops at the deadline, RESERVE_MS before Lambda's timeout; targets are not
 * started when too little is left).
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { createForecastClients } from '../../shared/aws/clients.ts';
import { withDeadline } from '../../shared/aws/deadline.ts';
import { lambdaRuntime } from '../../shared/aws/lambda-runtime.ts';
import { accountOfArn } from '../../shared/events/routing.ts';
import { RESERVE_MS } from '../../shared/invocation/budget.ts';
import { parseForecastConfig } from './config.ts';
import { awsForecastPorts } from './ports.ts';
import { createForecaster } from './run.ts';
import { powertoolsForecastTelemetry } from './telemetry.ts';

const config = parseForecastConfig(process.env);
const { logger, metrics, tracing, clientOptions } = lambdaRuntime(process.env, 'governor-forecast');
const run = createForecaster({
  config,
  ports: awsForecastPorts(createForecastClients(clientOptions(config.AWS_REGION)), config.STATE_TABLE_NAME),
  telemetry: powertoolsForecastTelemetry(logger, metrics),
});

/** Returns one line per target (the full outcomes are in the log), or why the tick was refused. */
export const handler = middy(async (event: unknown, context: Context) => {
  const left = () => context.getRemainingTimeInMillis() - RESERVE_MS.forecast;
  const report = await withDeadline(Date.now() + left(), () =>
    run(event, Date.now(), { account: accountOfArn(context.invokedFunctionArn), leftMs: left }),
  );
  return {
    eventId: report.eventId,
    ignored: report.ignored?.reason ?? null,
    targets: report.outcomes.map((o) => ({
      targetId: o.targetId,
      outcome: o.outcome,
      ...(o.outcome === 'written'
        ? { kind: o.kind, floorNow: o.floorNow, floorPeak: o.floorPeak, actions: o.actions.status }
        : {}),
    })),
  };
})
  .use(tracing.middleware)
  .use(injectLambdaContext(logger));
