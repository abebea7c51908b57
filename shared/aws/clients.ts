/**
 * SDK clients, one per service and region, created lazily and injected into the adapters. Every
 * client uses the SDK's standard retry mode: exponential backoff with full jitter (base 100 ms,
 * capped at 20 s) on throttling, 5xx and transient network errors, at most MAX_ATTEMPTS tries,
 * well inside the function's timeout. Tests pass a client aimed at moto or dynalite, or mock the
 * client class with aws-sdk-client-mock.
 */
import { ApplicationAutoScalingClient } from '@aws-sdk/client-application-auto-scaling';
import { AutoScalingClient } from '@aws-sdk/client-auto-scaling';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SageMakerClient } from '@aws-sdk/client-sagemaker';
import { SFNClient } from '@aws-sdk/client-sfn';
import { SSMClient } from '@aws-sdk/client-ssm';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** 4 tries: the 3 retries wait about 0.1, 0.2 and 0.4 s (times jitter) before giving up. */
export const MAX_ATTEMPTS = 4;

export interface ClientOptions {
  /** The function's own region (DynamoDB, SSM, Step Functions). */
  region: string;
  /** An explicit endpoint (moto, dynalite); unset in AWS. */
  endpoint?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string };
  maxAttempts?: number;
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
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    ...(options.credentials ? { credentials: options.credentials } : {}),
  };
}

function perRegion<T>(make: (region: string) => T): (region: string) => T {
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

export function createClients(options: ClientOptions): Clients {
  const config = (region?: string) => clientConfig(options, region);
  return {
    home: {
      // removeUndefinedValues: optional record fields are left out instead of failing the write.
      dynamo: DynamoDBDocumentClient.from(new DynamoDBClient(config()), {
        marshallOptions: { removeUndefinedValues: true },
      }),
      ssm: new SSMClient(config()),
      sfn: new SFNClient(config()),
    },
    cloudWatch: perRegion((r) => new CloudWatchClient(config(r))),
    sageMaker: perRegion((r) => new SageMakerClient(config(r))),
    appAutoScaling: perRegion((r) => new ApplicationAutoScalingClient(config(r))),
    autoScaling: perRegion((r) => new AutoScalingClient(config(r))),
  };
}

/** The AWS error name of a thrown SDK error ('' when it is not one). */
export const errorName = (error: unknown): string =>
  error instanceof Error
    ? error.name
    : typeof error === 'object' && error !== null
      ? String((error as { name?: unknown }).name ?? '')
      : '';
