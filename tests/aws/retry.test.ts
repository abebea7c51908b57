import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { describe, expect, it } from 'vitest';
import { clientConfig, MAX_ATTEMPTS } from '#shared/aws/clients.ts';
import { ssmParameters } from '#shared/aws/ssm.ts';
import { FAKE_CREDENTIALS, type FakeResponse, scriptedHandler } from './fakes.ts';

const ok: FakeResponse = {
  status: 200,
  body: { Parameter: { Name: '/governor/kill-switch', Value: 'off' } },
};
const throttled: FakeResponse = {
  status: 400,
  errorType: 'ThrottlingException',
  body: { __type: 'ThrottlingException', message: 'Rate exceeded' },
};
const serverError: FakeResponse = {
  status: 500,
  errorType: 'InternalServerError',
  body: { __type: 'InternalServerError', message: 'oops' },
};
const badRequest: FakeResponse = {
  status: 400,
  errorType: 'ValidationException',
  body: { __type: 'ValidationException', message: 'bad name' },
};

const client = (handler: ReturnType<typeof scriptedHandler>) =>
  new SSMClient({
    ...clientConfig({ region: 'us-east-1', credentials: FAKE_CREDENTIALS }),
    requestHandler: handler as never,
  });

// The real retry middleware runs here (aws-sdk-client-mock replaces send() and would skip it).
describe('every client retries throttling and 5xx with the standard retry mode', () => {
  it.each([
    { case: 'a throttled call succeeds on its second attempt', script: [throttled, ok], attempts: 2 },
    { case: 'a 500 then a success takes two attempts', script: [serverError, ok], attempts: 2 },
    { case: 'a 400 validation error is not retried', script: [badRequest, ok], attempts: 1 },
  ])('$case', async ({ script, attempts }) => {
    const handler = scriptedHandler(script);
    await ssmParameters(client(handler))
      .get('/governor/kill-switch')
      .catch(() => undefined);
    expect(handler.attempts).toBe(attempts);
  });

  it(`gives up after ${MAX_ATTEMPTS} attempts of 5xx and surfaces the error`, async () => {
    const handler = scriptedHandler([serverError]);
    await expect(client(handler).send(new GetParameterCommand({ Name: 'p' }))).rejects.toMatchObject({
      name: 'InternalServerError',
      $metadata: { attempts: MAX_ATTEMPTS },
    });
    expect(handler.attempts).toBe(MAX_ATTEMPTS);
  });
});
