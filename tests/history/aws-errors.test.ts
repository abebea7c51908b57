/**
 * A failed GetMetricData in one line (shared/history/aws-errors.ts): credentials, permission and
 * region problems are the operator's to fix; anything else is a failure of the run.
 */
import { describe, expect, it } from 'vitest';
import { explainAwsError } from '#shared/history/aws-errors.ts';
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
    const problem = explainAwsError(error, { region: 'eu-west-1' });
    expect(problem.kind).toBe(kind);
    expect(problem.message).toMatch(says);
    expect(problem.message).not.toContain('\n');
  });

  it('names AWS_ENDPOINT_URL when it is the one that does not answer', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5000'), { code: 'ECONNREFUSED' });
    expect(explainAwsError(refused, { region: 'us-east-1', endpoint: 'http://127.0.0.1:5000' }).message).toBe(
      'cannot reach AWS_ENDPOINT_URL http://127.0.0.1:5000 (ECONNREFUSED): check that it is up, or unset it to reach AWS',
    );
  });
});
