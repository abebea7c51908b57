/**
 * A failed GetMetricData, said in one line with the fix. Credentials, permission and region
 * problems are the operator's to fix (exit 2, as bad input); anything else (throttling or 5xx
 * after the client's retries) is a failure of the run (exit 1). Pure.
 */
import { errorName } from '../aws/clients.ts';

export interface AwsProblem {
  kind: 'credentials' | 'permission' | 'region' | 'failure';
  message: string;
}

const REJECTED_CREDENTIALS = new Set([
  'UnrecognizedClientException',
  'InvalidClientTokenId',
  'InvalidSignatureException',
  'SignatureDoesNotMatch',
  'IncompleteSignature',
  'ExpiredToken',
  'ExpiredTokenException',
  'RequestExpired',
]);
const DENIED = new Set(['AccessDenied', 'AccessDeniedException', 'UnauthorizedOperation', 'NotAuthorized']);
const UNREACHABLE = new Set(['ENOTFOUND', 'EAI_AGAIN', 'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT']);

const firstLine = (text: string) => text.split('\n')[0]!.trim();

/** The error's network code (ENOTFOUND...), looking through `cause`. */
function networkCode(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 3; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && UNREACHABLE.has(code)) return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

export function explainAwsError(error: unknown, where: { region: string; endpoint?: string }): AwsProblem {
  const name = errorName(error);
  const said = firstLine(error instanceof Error ? error.message : String(error));
  if (name === 'CredentialsProviderError' || /could not load credentials/i.test(said)) {
    return {
      kind: 'credentials',
      message: `no AWS credentials found: set AWS_PROFILE (after aws sso login) or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (the SDK said: ${said})`,
    };
  }
  if (REJECTED_CREDENTIALS.has(name)) {
    return {
      kind: 'credentials',
      message: `AWS rejected the credentials (${name}): refresh them (aws sso login, or new keys) and run again`,
    };
  }
  if (DENIED.has(name)) {
    return {
      kind: 'permission',
      message: `these credentials may not call cloudwatch:GetMetricData in ${where.region} (${name}): grant it (read-only, resource "*"; docs/history.md)`,
    };
  }
  const code = networkCode(error);
  if (code || /region is missing|invalid region/i.test(said)) {
    const message = where.endpoint
      ? `cannot reach AWS_ENDPOINT_URL ${where.endpoint} (${code ?? said}): check that it is up, or unset it to reach AWS`
      : `cannot reach CloudWatch in region ${where.region} (${code ?? said}): check --region (or the target's region in the policy) and the network`;
    return { kind: 'region', message };
  }
  return { kind: 'failure', message: `GetMetricData failed: ${name || 'Error'}: ${said}` };
}
