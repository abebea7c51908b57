/**
 * What the three traffic-routing adapters share (Route 53 weights, ARC routing controls, Global
 * Accelerator dials): their errors, the checks of their inputs, and how their clients are
 * finished. No SDK package is imported here, so a function bundling one adapter does not carry
 * the others' SDKs, and the template's grant check (which follows imports file by file) owes no
 * call of one adapter to a role that uses another.
 *
 * Three kinds of error, each a one-line message:
 * - RoutingInputError: the caller's input is malformed (names the field); no AWS call was made.
 * - RoutingRefusedError: the change would leave traffic nowhere, or names a record or control
 *   that is not there; nothing was written (reads may have been made to find that out).
 * - RoutingCallError: an AWS call failed after the SDK's own retries; names the IAM action, the
 *   resource and the fix. `awsName` keeps the SDK's error name, `cause` the error itself.
 */
import { type ClientOptions, errorName } from './clients.ts';
import { boundedByDeadline, type Sendable } from './deadline.ts';

export class RoutingInputError extends Error {
  override name = 'RoutingInputError';
}

export class RoutingRefusedError extends Error {
  override name = 'RoutingRefusedError';
}

export class RoutingCallError extends Error {
  override name = 'RoutingCallError';
  readonly awsName: string;
  constructor(message: string, awsName: string, cause: unknown) {
    super(message, { cause });
    this.awsName = awsName;
  }
}

/** Bounded by the invocation's deadline, then instrumented when tracing is on (as clients.ts does). */
export function finishClient<C extends object>(options: ClientOptions, client: C): C {
  const instrument = options.instrument ?? (<T>(c: T) => c);
  return boundedByDeadline(instrument(client) as C & Sendable);
}

/** One AWS call, for the message of its failure. */
export interface CallSite {
  /** The IAM action, e.g. 'route53:ChangeResourceRecordSets'. */
  action: string;
  /** The resource ARN the action is granted on. */
  resource: string;
  /** What was being read or changed, in words: 'weighted records www.example.com. A in zone Z1'. */
  what: string;
  /** What to check when the resource does not exist. */
  notFoundFix: string;
}

const DENIED = new Set(['AccessDenied', 'AccessDeniedException', 'UnauthorizedOperation', 'NotAuthorized']);
const REJECTED_CREDENTIALS = new Set([
  'UnrecognizedClientException',
  'InvalidClientTokenId',
  'InvalidSignatureException',
  'SignatureDoesNotMatch',
  'ExpiredToken',
  'ExpiredTokenException',
  'CredentialsProviderError',
]);
const THROTTLED = new Set([
  'Throttling',
  'ThrottlingException',
  'TooManyRequestsException',
  'PriorRequestNotComplete',
]);
const NOT_FOUND = new Set([
  'NoSuchHostedZone',
  'NoSuchChange',
  'NoSuchHealthCheck',
  'ResourceNotFoundException',
  'EndpointGroupNotFoundException',
  'ListenerNotFoundException',
  'AcceleratorNotFoundException',
]);

const oneLine = (text: string) => text.replace(/\s*\n\s*/g, ' ').trim();

/** A failed call as one line naming the action, the resource and the fix. Pure. */
export function explainCallError(error: unknown, site: CallSite): RoutingCallError {
  if (error instanceof RoutingCallError) return error;
  const name = errorName(error) || 'Error';
  const said = oneLine(error instanceof Error ? error.message : String(error));
  const message = DENIED.has(name)
    ? `${site.action} on ${site.resource} was denied (${name}): grant ${site.action} on ${site.resource} to the role that routes traffic`
    : REJECTED_CREDENTIALS.has(name)
      ? `${site.action} on ${site.resource}: AWS rejected or could not find the credentials (${name}): refresh them and run again`
      : THROTTLED.has(name)
        ? `${site.action} on ${site.what} was still throttled after the client's retries (${name}): try again in a few seconds`
        : NOT_FOUND.has(name)
          ? `${site.what} was not found (${name}: ${said}): ${site.notFoundFix}`
          : name === 'DeadlineExceeded'
            ? `${site.action} on ${site.what} did not finish before the invocation's deadline: it may or may not have been applied; read the state back before trying again`
            : `${site.action} on ${site.what} failed (${name}: ${said})`;
  return new RoutingCallError(message, name, error);
}

/** `call`'s answer, or its failure explained in one line (explainCallError). */
export async function calling<T>(site: CallSite, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw explainCallError(error, site);
  }
}

/** A non-empty string of at most `max` characters, or RoutingInputError naming the field. */
export function requireText(value: unknown, field: string, max = 1024): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new RoutingInputError(
      `${field} is ${value === undefined ? 'missing' : `empty or not text (${JSON.stringify(value)})`}`,
    );
  }
  if (value.length > max) throw new RoutingInputError(`${field} is longer than ${max} characters`);
  return value;
}

/** A string matching `pattern`, or RoutingInputError naming the field and showing an example. */
export function requireMatch(value: unknown, field: string, pattern: RegExp, example: string): string {
  const text = requireText(value, field);
  if (!pattern.test(text)) {
    throw new RoutingInputError(`${field} is ${JSON.stringify(text)}, which is not of the form ${example}`);
  }
  return text;
}

/** A number in [min, max] (whole when `whole`), or RoutingInputError naming the field. */
export function requireNumber(
  value: unknown,
  field: string,
  min: number,
  max: number,
  whole: boolean,
): number {
  if (
    typeof value !== 'number' ||
    !Number.isFinite(value) ||
    value < min ||
    value > max ||
    (whole && !Number.isInteger(value))
  ) {
    throw new RoutingInputError(
      `${field} is ${JSON.stringify(value)}; it must be ${whole ? 'a whole number' : 'a number'} from ${min} to ${max}`,
    );
  }
  return value;
}

/** The entries of a non-empty record, or RoutingInputError naming the field. */
export function requireEntries<T>(
  value: Readonly<Record<string, T>> | undefined,
  field: string,
): [string, T][] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new RoutingInputError(`${field} must be an object of key to value`);
  }
  const entries = Object.entries(value);
  if (entries.length === 0) throw new RoutingInputError(`${field} is empty: name at least one`);
  return entries;
}
