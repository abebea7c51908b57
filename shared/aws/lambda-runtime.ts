/**
 * What every Lambda handler sets up once per container, written once: the Powertools logger and
 * metrics (POWERTOOLS_SERVICE_NAME and POWERTOOLS_METRICS_NAMESPACE win when set; the template
 * sets them), tracing (off unless the stack's Tracing parameter turns it on: ./tracing.ts), and
 * the options its AWS clients are built with: the function's region, AWS_ENDPOINT_URL when set
 * (moto in tests), and Lambda's own credentials from the environment, so nothing else is looked
 * up (or bundled).
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { fromEnv } from '@aws-sdk/credential-provider-env';
import type { ClientOptions } from './clients.ts';
import { createTracing, type Tracing } from './tracing.ts';

export interface LambdaRuntime {
  service: string;
  logger: Logger;
  metrics: Metrics;
  tracing: Tracing;
  /** The client options for the function's own `region`. */
  clientOptions(region: string): ClientOptions;
}

export function lambdaRuntime(
  env: Record<string, string | undefined>,
  defaultService: string,
): LambdaRuntime {
  const service = env.POWERTOOLS_SERVICE_NAME ?? defaultService;
  const tracing = createTracing(env, service);
  return {
    service,
    logger: new Logger({ serviceName: service }),
    metrics: new Metrics({ namespace: env.POWERTOOLS_METRICS_NAMESPACE ?? 'Governor', serviceName: service }),
    tracing,
    clientOptions: (region) => ({
      region,
      endpoint: env.AWS_ENDPOINT_URL,
      credentials: fromEnv(),
      ...(tracing.instrument ? { instrument: tracing.instrument } : {}),
    }),
  };
}
