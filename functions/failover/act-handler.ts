/**
 * The failover act Lambda: the failover state machine's Task "lambda:invoke" calls it with one op
 * (prescale, ready, route, check: ./act.ts). Thin: parse the event with zod, run the op through
 * the adapters (./act-ports.ts), return its one-line result. Configuration is parsed once at cold
 * start and fails fast naming the variable; every AWS call stops at the invocation's deadline.
 * A refusal or a failed call is thrown as one line, named (KillSwitchOn, UnmanagedTarget,
 * CapacityBusy, ...): the state machine retries it and records it as the execution's failure.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { createClients } from '../../shared/aws/clients.ts';
import { withDeadline } from '../../shared/aws/deadline.ts';
import { lambdaRuntime } from '../../shared/aws/lambda-runtime.ts';
import { clip, clipJson } from '../../shared/events/bounded.ts';
import { act, parseActEvent } from './act.ts';
import { awsActPorts, parseActConfig } from './act-ports.ts';

/**
 * Every field of a result, clipped as the evaluate function clips what it logs (a detail quotes
 * names and readings an execution input carried: the audit logged 190 KB lines).
 */
const clippedFields = (result: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(result).map(([k, v]) => [
      clip(k, 64),
      typeof v === 'string' ? clip(v) : typeof v === 'boolean' || typeof v === 'number' ? v : clipJson(v),
    ]),
  );

/** Kept back from Lambda's timeout for the error to be returned and logged (ms). */
const RESERVE_MS = 2_000;

const config = parseActConfig(process.env);
const { logger, metrics, tracing, clientOptions } = lambdaRuntime(process.env, 'governor-failover-act');
const options = clientOptions(config.AWS_REGION);
const ports = awsActPorts(createClients(options), options, config);
const scope = {
  endpointPrefix: config.MANAGED_ENDPOINT_PREFIX,
  groupPrefix: config.MANAGED_AUTO_SCALING_GROUP_PREFIX,
};

export const handler = middy(async (raw: unknown, context: Context) => {
  const event = parseActEvent(raw);
  const deadline = Date.now() + context.getRemainingTimeInMillis() - RESERVE_MS;
  try {
    const result = await withDeadline(deadline, () => act(ports, event, scope, Date.now()));
    logger.info(`failover act ${event.op}: ${clip(String(result.detail))}`, {
      op: event.op,
      result: clippedFields(result),
    });
    return result;
  } catch (error) {
    const e = error instanceof Error ? error : new Error(String(error));
    metrics.addMetric('FailoverActErrors', 'Count', 1);
    const name = clip(e.name || 'Error', 64);
    logger.error(`failover act ${event.op} failed: ${name}: ${clip(e.message)}`, { op: event.op });
    throw Object.assign(new Error(clip(e.message.split('\n')[0] ?? '')), { name });
  }
})
  .use(tracing.middleware)
  .use(logMetrics(metrics))
  .use(injectLambdaContext(logger));
