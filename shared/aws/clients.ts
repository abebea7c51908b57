/**
 * SDK clients, one per service and region, created lazily and injected into the adapters. Every
 * client uses the SDK's standard retry mode: exponential backoff with full jitter (base 100 ms,
 * capped at 20 s) on throttling, 5xx and transient network errors, at most MAX_ATTEMPTS tries,
 * well inside the function's timeout. Tests pass a client aimed at moto or dynalite, or mock the
 * client class with aws-sdk-client-mock.
 *
 * Every attempt is bounded (TIMEOUTS): the SDK's default is no timeout at all, so one endpoint
 * that accepts a connection and never answers held an invocation until Lambda's 60 s timeout.
 * A timed-out attempt is a TimeoutError the retry mode retries like any transient error, so a
 * call that hangs every time costs at most MAX_ATTEMPTS x requestTimeout plus backoff: 4 x 5 s
 * + under 1 s = about 21 s. Every call also stops at the invocation's deadline (deadline.ts),
 * whichever comes first.
 */

import { ApplicationAutoScalingClient } from '@aws-sdk/client-application-auto-scaling';
import { AutoScalingClient } from '@aws-sdk/client-auto-scaling';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SageMakerClient } from '@aws-sdk/client-sagemaker';
import { SFNClient } from '@aws-sdk/client-sfn';
import { SSMClient } from '@aws-sdk/client-ssm';
import type { fromEnv } from '@aws-sdk/credential-provider-env';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { boundedByDeadline, type Sendable } from './deadline.ts';

/** 4 tries: the 3 retries wait about 0.1, 0.2 and 0.4 s (times jitter) before giving up. */
export const MAX_ATTEMPTS = 4;

/**
 * Per-attempt limits of every client (NodeHttpHandler), in milliseconds.
 * - connectionTimeout 2,000: a TCP and TLS handshake with a regional AWS endpoint from Lambda
 *   takes tens of milliseconds; 2 s is a resolver or network in trouble, better retried.
 * - requestTimeout 5,000, from the request sent to the whole response: the slowest call Governor
 *   makes, GetMetricData with 500 queries over an hour, answers in 1-2 s; DynamoDB, SSM, Step
 *   Functions and the Describe calls in tens to hundreds of milliseconds. throwOnRequestTimeout
 *   makes it an error (this SDK only warns by default).
 * Worst case for a call that hangs on every attempt: 4 x 5 s + backoff, about 21 s, a third of
 * the evaluate function's 60 s; the invocation deadline cuts it shorter when less is left.
 */
export const TIMEOUTS = { connectionTimeout: 2_000, requestTimeout: 5_000 } as const;

/**
 * For `governor history`, run by a person, not inside a Lambda deadline: one GetMetricData page
 * of a whole 15-day span of one-minute data can take CloudWatch (and moto, much more) well over
 * 5 s to assemble. A minute per attempt still ends a truly hung call; `--request-timeout S`
 * replaces the minute (docs/history.md), and a call that runs out of it says "answered too slowly".
 */
export const HISTORY_TIMEOUTS = { connectionTimeout: 5_000, requestTimeout: 60_000 } as const;

/**
 * For the forecast function's CloudWatch client: one page of its history read holds up to 100,800
 * datapoints (14 days of minutes for several series), which CloudWatch may take longer than the
 * 5 s of TIMEOUTS to assemble. 20 s per attempt, 4 attempts, stays well inside the function's
 * 300 s and its 30 s per target; the invocation deadline still cuts a call short.
 */
export const FORECAST_READ_TIMEOUTS = { connectionTimeout: 2_000, requestTimeout: 20_000 } as const;

export interface ClientOptions {
  /** The function's own region (DynamoDB, SSM, Step Functions). */
  region: string;
  /** An explicit endpoint (moto, dynalite); unset in AWS. */
  endpoint?: string;
  /**
   * Fixed credentials (tests, moto), or a provider. The Lambda handlers pass fromEnv(): Lambda
   * puts the role's credentials in the environment, so the SDK's default chain (profiles, SSO,
   * web identity, instance metadata) is never consulted, and the template leaves those providers
   * out of the bundle (External in BuildProperties).
   */
  credentials?: { accessKeyId: string; secretAccessKey: string } | ReturnType<typeof fromEnv>;
  maxAttempts?: number;
  /** Per-attempt limits (tests shorten them); TIMEOUTS by default. */
  timeouts?: { connectionTimeout: number; requestTimeout: number };
  /**
   * Applied to every client once it is built: the handlers pass the Powertools Tracer's
   * captureAWSv3Client when tracing is on (shared/aws/tracing.ts), so each call is a subsegment.
   */
  instrument?: <C extends object>(client: C) => C;
}

export interface Clients {
  home: {
    dynamo: DynamoDBDocumentClient;
    ssm: SSMClient;
    sfn: SFNClient;
  };
  /** Clients for a target's region. */
  cloudWatch: (region: string) => CloudWatchClient;
  sageMaker: (region: string) => SageMakerClient;
  appAutoScaling: (region: string) => ApplicationAutoScalingClient;
  autoScaling: (region: string) => AutoScalingClient;
}

export function clientConfig(options: ClientOptions, region = options.region) {
  return {
    region,
    maxAttempts: options.maxAttempts ?? MAX_ATTEMPTS,
    retryMode: 'standard',
    requestHandler: { ...(options.timeouts ?? TIMEOUTS), throwOnRequestTimeout: true },
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    ...(options.credentials ? { credentials: options.credentials } : {}),
  };
}

export function perRegion<T>(make: (region: string) => T): (region: string) => T {
  const cache = new Map<string, T>();
  return (region) => {
    let client = cache.get(region);
    if (!client) {
      client = make(region);
      cache.set(region, client);
    }
    return client;
  };
}

/** The forecast function's clients: no SageMaker and no Step Functions, so its bundle has neither. */
export type ForecastClients = {
  home: Pick<Clients['home'], 'dynamo' | 'ssm'>;
} & Pick<Clients, 'cloudWatch' | 'appAutoScaling' | 'autoScaling'>;

/** Every client bounded by the invocation deadline, then instrumented when tracing is on. */
export function finisher(options: ClientOptions) {
  const instrument = options.instrument ?? (<C>(c: C) => c);
  return <C extends object>(client: C): C => boundedByDeadline(instrument(client) as C & Sendable);
}

/** The DynamoDB document client; removeUndefinedValues: optional record fields are left out instead of failing the write. */
export const documentClient = (config: ReturnType<typeof clientConfig>) =>
  DynamoDBDocumentClient.from(new DynamoDBClient(config), {
    marshallOptions: { removeUndefinedValues: true },
  });

export function createClients(options: ClientOptions): Clients {
  const config = (region?: string) => clientConfig(options, region);
  const b = finisher(options);
  return {
    home: {
      dynamo: b(documentClient(config())),
      ssm: b(new SSMClient(config())),
      sfn: b(new SFNClient(config())),
    },
    cloudWatch: perRegion((r) => b(new CloudWatchClient(config(r)))),
    sageMaker: perRegion((r) => b(new SageMakerClient(config(r)))),
    appAutoScaling: perRegion((r) => b(new ApplicationAutoScalingClient(config(r)))),
    autoScaling: perRegion((r) => b(new AutoScalingClient(config(r)))),
  };
}

/**
 * SageMaker clients per region, built as createClients' are, for a function whose other clients
 * are createForecastClients' (the mix function's variant fallback): no Step Functions or
 * Application Auto Scaling comes into its bundle with them.
 */
export function createSageMakerClients(options: ClientOptions): (region: string) => SageMakerClient {
  const b = finisher(options);
  return perRegion((r) => b(new SageMakerClient(clientConfig(options, r))));
}

/** The forecast function's CloudWatch configuration: FORECAST_READ_TIMEOUTS unless told otherwise. */
export const forecastReadConfig = (options: ClientOptions, region: string) =>
  clientConfig({ timeouts: FORECAST_READ_TIMEOUTS, ...options }, region);

/**
 * A DynamoDB document client for another region's table (the failover function reads the member
 * regions' heartbeats), bounded and instrumented like createClients' clients.
 */
export function regionalDocumentClient(options: ClientOptions, region: string): DynamoDBDocumentClient {
  return finisher(options)(documentClient(clientConfig(options, region)));
}

/** The five clients the forecast function uses, built the same way as createClients'. */
export function createForecastClients(options: ClientOptions): ForecastClients {
  const config = (region?: string) => clientConfig(options, region);
  const b = finisher(options);
  return {
    home: { dynamo: b(documentClient(config())), ssm: b(new SSMClient(config())) },
    cloudWatch: perRegion((r) => b(new CloudWatchClient(forecastReadConfig(options, r)))),
    appAutoScaling: perRegion((r) => b(new ApplicationAutoScalingClient(config(r)))),
    autoScaling: perRegion((r) => b(new AutoScalingClient(config(r)))),
  };
}

/** The AWS error name of a thrown SDK error ('' when it is not one). */
export const errorName = (error: unknown): string =>
  error instanceof Error
    ? error.name
    : typeof error === 'object' && error !== null
      ? String((error as { name?: unknown }).name ?? '')
      : '';
