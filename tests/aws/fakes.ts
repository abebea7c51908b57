/** Helpers for adapter tests: SDK-shaped errors and a fake HTTP layer for the real retry middleware. */
import { Readable } from 'node:stream';

/** An error as the SDK throws it: name is the AWS error code. */
export const awsError = (name: string, message = name, status = 400) =>
  Object.assign(new Error(message), {
    name,
    $fault: status >= 500 ? 'server' : 'client',
    $metadata: { httpStatusCode: status },
  });

export interface FakeResponse {
  status: number;
  body: unknown;
  errorType?: string;
}

/**
 * A request handler answering from a script (one response per HTTP attempt), so the client's
 * real retry middleware runs; `attempts` counts what it sent.
 */
export function scriptedHandler(script: FakeResponse[], contentType = 'application/x-amz-json-1.1') {
  const handler = {
    attempts: 0,
    async handle() {
      const step = script[Math.min(handler.attempts, script.length - 1)]!;
      handler.attempts++;
      return {
        response: {
          statusCode: step.status,
          headers: {
            'content-type': contentType,
            ...(step.errorType ? { 'x-amzn-errortype': step.errorType } : {}),
          },
          body: Readable.from([Buffer.from(JSON.stringify(step.body))]),
        },
      };
    },
    updateHttpClientConfig() {},
    httpHandlerConfigs: () => ({}),
  };
  return handler;
}

export const FAKE_CREDENTIALS = { accessKeyId: 'testing', secretAccessKey: 'testing' };
