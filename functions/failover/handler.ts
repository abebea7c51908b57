/**
 * The failover health evaluation Lambda: wakes once a minute (EventBridge Scheduler) in the
 * standby region, evaluates every failover group this region stands by for, records one decision
 * per group and starts the failover state machine when the planner acts (docs/failover.md).
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { AutoScalingClient } from '@aws-sdk/client-auto-scaling';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { SFNClient } from '@aws-sdk/client-sfn';
import { SSMClient } from '@aws-sdk/client-ssm';
import { fromEnv } from '@aws-sdk/credential-provider-env';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import {
  type ClientOptions,
  clientConfig,
  createSageMakerClients,
  regionalDocumentClient,
} from '../../shared/aws/clients.ts';
import { boundedByDeadline, type Sendable, withDeadline } from '../../shared/aws/deadline.ts';
import { createTracing } from '../../shared/aws/tracing.ts';
import { accountOfArn } from '../../shared/events/routing.ts';
import { RESERVE_MS } from '../../shared/invocation/budget.ts';
import { parseFailoverConfig } from './config.ts';
import { awsFailoverPorts, type FailoverClients } from './ports.ts';
import { createFailoverEvaluator } from './run.ts';

const config = parseFailoverConfig(process.env);
const logger = new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'governor-failover' });
// RoutingDrift and RoutingGrantMismatch by [GroupId] alone (no default `service` dimension): the
// template's alarms read SCHEMA(Governor, GroupId).
const metrics = new Metrics({ namespace: config.METRIC_NAMESPACE });
metrics.clearDefaultDimensions();
// Off unless the stack's Tracing parameter turns it on (shared/aws/tracing.ts).
const tracing = createTracing(process.env, process.env.POWERTOOLS_SERVICE_NAME ?? 'governor-failover');
const options = {
  region: config.AWS_REGION,
  endpoint: process.env.AWS_ENDPOINT_URL,
  // Lambda's own credentials, from the environment: nothing else is looked up (or bundled).
  credentials: fromEnv(),
  ...(tracing.instrument ? { instrument: tracing.instrument } : {}),
};
const peers = new Map<string, DynamoDBDocumentClient>();
const dynamoFor = (region: string) => {
  let c = peers.get(region);
  if (!c) {
    c = regionalDocumentClient(options, region);
    peers.set(region, c);
  }
  return c;
};
/**
 * createClients' clients but Application Auto Scaling, which this function never calls: built
 * here, its 11 KB stay out of the bundle (the 1 MB budget, tests/template/bundle.test.ts). Each
 * bounded by the invocation deadline and instrumented when tracing is on, as createClients' are.
 */
function failoverClients(o: ClientOptions): FailoverClients {
  const finish = <C extends Sendable>(c: C): C => boundedByDeadline(o.instrument ? o.instrument(c) : c);
  const regional = <C extends Sendable>(make: (config: ReturnType<typeof clientConfig>) => C) => {
    const made = new Map<string, C>();
    return (region: string): C => {
      const c = made.get(region) ?? finish(make(clientConfig(o, region)));
      made.set(region, c);
      return c;
    };
  };
  return {
    home: {
      dynamo: regionalDocumentClient(o, o.region),
      ssm: finish(new SSMClient(clientConfig(o))),
      sfn: finish(new SFNClient(clientConfig(o))),
    },
    cloudWatch: regional((c) => new CloudWatchClient(c)),
    sageMaker: createSageMakerClients(o),
    autoScaling: regional((c) => new AutoScalingClient(c)),
  };
}

const run = createFailoverEvaluator({
  config,
  ports: awsFailoverPorts(
    failoverClients(options),
    dynamoFor,
    config.STATE_TABLE_NAME,
    config.PEER_STATE_TABLE_NAME,
    config.AWS_REGION,
    options,
  ),
  telemetry: {
    info: (m, a) => logger.info(m, a ?? {}),
    error: (m, a) => logger.error(m, a ?? {}),
    decision: (record) =>
      logger.info(`failover ${String(record.groupId)}: ${String(record.outcome)}`, { record }),
    drift: (groupId, minutes) => {
      metrics.addDimension('GroupId', groupId);
      metrics.addMetric('RoutingDrift', MetricUnit.NoUnit, minutes);
      metrics.publishStoredMetrics();
    },
    grantMismatch: (groupId, fields) => {
      metrics.addDimension('GroupId', groupId);
      metrics.addMetric('RoutingGrantMismatch', MetricUnit.Count, fields);
      metrics.publishStoredMetrics();
    },
  },
});

export const handler = middy(async (event: unknown, context: Context) => {
  const left = () => context.getRemainingTimeInMillis() - RESERVE_MS.evaluate;
  const report = await withDeadline(Date.now() + left(), () =>
    run(event, Date.now(), { account: accountOfArn(context.invokedFunctionArn) }),
  );
  return { eventId: report.eventId, ignored: report.ignored?.reason ?? null, groups: report.groups };
})
  .use(tracing.middleware)
  .use(injectLambdaContext(logger));
