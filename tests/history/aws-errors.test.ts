/**
 * A failed GetMetricData in one line (shared/history/aws-errors.ts): credentials, permission and
 * region problems are the operator's to fix; an endpoint that does not answer or answers too
 * slowly, and anything else, is a failure of the run.
 */
import { describe, expect, it } from 'vitest';
import { explainAwsError, isUsageProblem } from '#shared/history/aws-errors.ts';
import { awsError } from '../aws/fakes.ts';

const named = (name: string, message: string, extra: Record<string, unknown> = {}) =>
  Object.assign(new Error(message), { name, ...extra });

describe('explainAwsError', () => {
  it.each([
    {
      case: 'no credentials anywhere in the chain',
      error: named('CredentialsProviderError', 'Could not load credentials from any providers'),
      kind: 'credentials',
      says: /^no AWS credentials found: .*\(the SDK said: Could not load credentials from any providers\)$/,
    },
    {
      case: 'keys AWS does not know',
      error: awsError(
        'UnrecognizedClientException',
        'The security token included in the request is invalid.',
      ),
      kind: 'credentials',
      says: /^AWS rejected the credentials \(UnrecognizedClientException\)/,
    },
    {
      case: 'an expired session',
      error: awsError('ExpiredToken', 'expired'),
      kind: 'credentials',
      says: /refresh them/,
    },
    {
      case: 'a role without the permission',
      error: awsError('AccessDenied', 'no'),
      kind: 'permission',
      says: /^these credentials may not call cloudwatch:GetMetricData in eu-west-1 \(AccessDenied\): grant it/,
    },
    {
      case: 'a region whose endpoint does not resolve, the code under a cause',
      error: Object.assign(new Error('fetch failed'), { cause: { code: 'ENOTFOUND' } }),
      kind: 'region',
      says: /^cannot reach CloudWatch in region eu-west-1 \(ENOTFOUND\): check --region/,
    },
    {
      case: 'no connection within the connection timeout',
      error: named(
        'TimeoutError',
        '@smithy/node-http-handler - the request socket did not establish a connection with the server within the configured timeout of 5000 ms.',
      ),
      kind: 'region',
      says: /^cannot reach CloudWatch in region eu-west-1 \(no connection in time\): check --region/,
    },
    {
      case: 'an answer slower than the request timeout, on every attempt',
      error: named(
        'TimeoutError',
        '@smithy/node-http-handler - [ERROR] a request has exceeded the configured 60000 ms requestTimeout.',
        { code: 'ETIMEDOUT', $metadata: { attempts: 4 } },
      ),
      kind: 'slow',
      says: /^CloudWatch in region eu-west-1 answered too slowly: no GetMetricData answer within 60 s on any of 4 attempts: raise --request-timeout \(now 60 s\), or read a shorter window \(--days, --end\)$/,
    },
    {
      case: 'a socket gone quiet mid-answer',
      error: named(
        'TimeoutError',
        '@smithy/node-http-handler - the request socket timed out after 60000 ms of inactivity (configured by client requestHandler).',
      ),
      kind: 'slow',
      says: /^CloudWatch in region eu-west-1 answered too slowly: no GetMetricData answer within 60 s: raise/,
    },
    {
      case: 'throttling after the retries',
      error: awsError('ThrottlingException', 'Rate exceeded\nsecond line'),
      kind: 'failure',
      says: /^GetMetricData failed: ThrottlingException: Rate exceeded$/,
    },
    {
      case: 'a server error',
      error: awsError('InternalFailure', 'oops', 500),
      kind: 'failure',
      says: /^GetMetricData failed: InternalFailure: oops$/,
    },
  ])('$case: $kind', ({ error, kind, says }) => {
    const problem = explainAwsError(error, { region: 'eu-west-1', requestTimeoutMs: 60_000 });
    expect(problem.kind).toBe(kind);
    expect(problem.message).toMatch(says);
    expect(problem.message).not.toContain('\n');
  });

  it('names AWS_ENDPOINT_URL when it is the one that does not answer: a failed run, not bad input', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5000'), { code: 'ECONNREFUSED' });
    const problem = explainAwsError(refused, { region: 'us-east-1', endpoint: 'http://127.0.0.1:5000' });
    expect(problem).toEqual({
      kind: 'endpoint',
      message:
        'cannot reach AWS_ENDPOINT_URL http://127.0.0.1:5000 (ECONNREFUSED): check that it is up, or unset it to reach AWS',
    });
    expect(isUsageProblem(problem)).toBe(false);
  });

  it('names AWS_ENDPOINT_URL when it is the one that answered too slowly', () => {
    const slow = named('TimeoutError', 'a request has exceeded the configured 1500 ms requestTimeout.', {
      code: 'ETIMEDOUT',
      $metadata: { attempts: 1 },
    });
    const where = { region: 'us-east-1', endpoint: 'http://127.0.0.1:5000', requestTimeoutMs: 1500 };
    expect(explainAwsError(slow, where).message).toBe(
      'AWS_ENDPOINT_URL http://127.0.0.1:5000 answered too slowly: no GetMetricData answer within 1.5 s (1 attempt): raise --request-timeout (now 1.5 s), or read a shorter window (--days, --end)',
    );
  });

  it.each([
    { kind: 'credentials', usage: true },
    { kind: 'permission', usage: true },
    { kind: 'region', usage: true },
    { kind: 'endpoint', usage: false },
    { kind: 'slow', usage: false },
    { kind: 'failure', usage: false },
  ] as const)('a $kind problem is bad input (exit 2): $usage', ({ kind, usage }) => {
    expect(isUsageProblem({ kind, message: '' })).toBe(usage);
  });
});
