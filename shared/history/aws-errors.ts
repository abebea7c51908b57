/**
 * A failed GetMetricData, said in one line with the fix. Credentials, permission and region
 * problems are the operator's input to fix (exit 2, as bad input: isUsageProblem); anything else
 * is a failure of the run (exit 1): an AWS_ENDPOINT_URL that does not answer (exit 1, as
 * `governor invoke` says of the same endpoint), an endpoint that answered too slowly, throttling
 * or 5xx after the client's retries. Pure.
 */
import { errorName } from '../aws/clients.ts';

export interface AwsProblem {
  kind: 'credentials' | 'permission' | 'region' | 'endpoint' | 'slow' | 'failure';
  message: string;
}

/** Where the call went, and the per-attempt limit it had (ms), to name in the message. */
export interface AwsCallContext {
  region: string;
  endpoint?: string;
  requestTimeoutMs?: number;
}

/** Problems in what the operator gave (credentials, rights, --region): exit 2, as bad input. */
export const isUsageProblem = (p: AwsProblem) =>
  p.kind === 'credentials' || p.kind === 'permission' || p.kind === 'region';

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

/**
 * The SDK's per-attempt limits (@smithy/node-http-handler, with throwOnRequestTimeout): a
 * TimeoutError "a request has exceeded the configured N ms requestTimeout" (code ETIMEDOUT) when
 * the whole answer took too long, "... timed out after N ms of inactivity" when the socket went
 * quiet mid-answer. The endpoint was reached and did not answer in time: slow, not unreachable.
 * A TimeoutError "did not establish a connection" is the connection limit: unreachable.
 */
const tooSlow = (name: string, said: string) =>
  name === 'TimeoutError' && /requestTimeout|of inactivity/.test(said);
const noConnection = (name: string, said: string) =>
  name === 'TimeoutError' && /did not establish a connection/.test(said);

/** How many attempts the SDK made ($metadata.attempts after its retries), when it says. */
function attemptsOf(error: unknown): number | undefined {
  const n = (error as { $metadata?: { attempts?: unknown } })?.$metadata?.attempts;
  return typeof n === 'number' && n > 0 ? n : undefined;
}

function slowMessage(error: unknown, where: AwsCallContext): string {
  const who = where.endpoint ? `AWS_ENDPOINT_URL ${where.endpoint}` : `CloudWatch in region ${where.region}`;
  const seconds = where.requestTimeoutMs === undefined ? undefined : where.requestTimeoutMs / 1000;
  const attempts = attemptsOf(error);
  const within = seconds === undefined ? 'in time' : `within ${seconds} s`;
  const tries =
    attempts === undefined ? '' : attempts === 1 ? ' (1 attempt)' : ` on any of ${attempts} attempts`;
  const raise =
    seconds === undefined ? 'raise --request-timeout' : `raise --request-timeout (now ${seconds} s)`;
  return `${who} answered too slowly: no GetMetricData answer ${within}${tries}: ${raise}, or read a shorter window (--days, --end)`;
}

/** The error's network code (ENOTFOUND...), looking through `cause`. */
function networkCode(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 3; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && UNREACHABLE.has(code)) return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

export function explainAwsError(error: unknown, where: AwsCallContext): AwsProblem {
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
  if (tooSlow(name, said)) return { kind: 'slow', message: slowMessage(error, where) };
  const code = networkCode(error) ?? (noConnection(name, said) ? 'no connection in time' : undefined);
  if (code || /region is missing|invalid region/i.test(said)) {
    return where.endpoint
      ? {
          kind: 'endpoint',
          message: `cannot reach AWS_ENDPOINT_URL ${where.endpoint} (${code ?? said}): check that it is up, or unset it to reach AWS`,
        }
      : {
          kind: 'region',
          message: `cannot reach CloudWatch in region ${where.region} (${code ?? said}): check --region (or the target's region in the policy) and the network`,
        };
  }
  return { kind: 'failure', message: `GetMetricData failed: ${name || 'Error'}: ${said}` };
}
