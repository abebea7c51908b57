/**
 * The commitments Lambda function: wakes every hour (EventBridge Scheduler), reads what is really
 * committed in each region the policy's capacity-mix targets run in (Reserved Instances,
 * capacity reservations, Savings Plans), stores it for the mix function and publishes each
 * target's shortfall against its policy (CommitmentShortfall, alarmed). ./run.ts is the flow;
 * configuration is parsed once at cold start and fails fast naming the variable.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { createCommitmentsClients } from '../../shared/aws/commitment-clients.ts';
import { commitmentsAdapter } from '../../shared/aws/commitments.ts';
import { commitmentsStore } from '../../shared/aws/commitments-store.ts';
import { withDeadline } from '../../shared/aws/deadline.ts';
import { lambdaRuntime } from '../../shared/aws/lambda-runtime.ts';
import { dynamoMixItems } from '../../shared/aws/mix-item.ts';
import { ssmParameters } from '../../shared/aws/ssm.ts';
import { parseCommitmentsConfig } from './config.ts';
import { createCommitmentsRunner } from './run.ts';

/** Kept after the deadline for the log lines and the metrics' flush. */
const RESERVE_MS = 3_000;

const config = parseCommitmentsConfig(process.env);
const { logger, metrics, tracing, clientOptions } = lambdaRuntime(process.env, 'governor-commitments');
const clients = createCommitmentsClients(clientOptions(config.AWS_REGION));
const run = createCommitmentsRunner({
  config,
  ports: {
    parameters: ssmParameters(clients.home.ssm),
    commitments: commitmentsAdapter(clients.ec2, clients.savingsPlans),
    store: commitmentsStore(clients.home.dynamo, config.STATE_TABLE_NAME),
    plans: dynamoMixItems(clients.home.dynamo, config.STATE_TABLE_NAME),
  },
  telemetry: {
    checked(check) {
      const log = check.reasons[0] === 'CommitmentShortfall' ? logger.warn : logger.info;
      log.call(logger, check.message, { check });
      if (check.existing === null) return;
      // Exactly [TargetId], as the other functions' per-target metrics (the alarm's SCHEMA).
      const one = metrics.singleMetric();
      one.clearDefaultDimensions();
      one.addDimension('TargetId', check.targetId);
      one.addMetric('CommitmentShortfall', MetricUnit.Count, check.shortfall);
    },
    readFailed(region, message) {
      logger.error(`commitments of ${region} not read: ${message}`, { region });
      const one = metrics.singleMetric();
      one.clearDefaultDimensions();
      one.addDimensions({ service: 'governor' });
      one.addMetric('CommitmentReadFailures', MetricUnit.Count, 1);
    },
  },
});

export const handler = middy(async (_event: unknown, context: Context) => {
  const deadline = Date.now() + context.getRemainingTimeInMillis() - RESERVE_MS;
  const report = await withDeadline(deadline, () => run(Date.now()));
  metrics.publishStoredMetrics();
  return {
    regions: report.regions,
    targets: report.checks.map((c) => ({
      targetId: c.targetId,
      reasons: c.reasons,
      existing: c.existing,
      shortfall: c.shortfall,
    })),
  };
})
  .use(tracing.middleware)
  .use(injectLambdaContext(logger));
