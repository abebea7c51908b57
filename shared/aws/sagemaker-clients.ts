/**
 * SageMaker clients per region, built as shared/aws/clients.ts builds every client (its
 * clientConfig: standard retries, per-attempt timeouts; bounded by the invocation deadline;
 * instrumented when tracing is on), for a function whose other clients are the forecast
 * function's set: the mix function reads and weights endpoint variants (the variant fallback)
 * without taking Step Functions or Application Auto Scaling into its bundle.
 */
import { SageMakerClient } from '@aws-sdk/client-sagemaker';
import { type ClientOptions, clientConfig } from './clients.ts';
import { boundedByDeadline, type Sendable } from './deadline.ts';

export function createSageMakerClients(options: ClientOptions): (region: string) => SageMakerClient {
  const instrument = options.instrument ?? (<C>(c: C) => c);
  const cache = new Map<string, SageMakerClient>();
  return (region) => {
    let client = cache.get(region);
    if (!client) {
      const made = instrument(new SageMakerClient(clientConfig(options, region)));
      client = boundedByDeadline(made as SageMakerClient & Sendable);
      cache.set(region, client);
    }
    return client;
  };
}
