/**
 * A failed AWS call of a live command, in one line with the fix. Credentials, endpoint and
 * network wording is `governor history`'s (shared/history/aws-errors.ts); permission and other
 * failures name the call that failed. Credentials, permission and region are the operator's to
 * fix: exit 2, as bad input (`usage`). Pure.
 */
import { errorName } from '../aws/clients.ts';
import { explainAwsError } from '../history/aws-errors.ts';

export interface LiveProblem {
  usage: boolean;
  message: string;
}

export interface LiveCall {
  /** The IAM action that failed, such as dynamodb:Query. */
  action: string;
  region: string;
  endpoint?: string;
}

export function liveProblem(error: unknown, call: LiveCall): LiveProblem {
  const seen = explainAwsError(error, {
    region: call.region,
    ...(call.endpoint ? { endpoint: call.endpoint } : {}),
  });
  const said = (error instanceof Error ? error.message : String(error)).split('\n')[0]!.trim();
  switch (seen.kind) {
    case 'credentials':
      return { usage: true, message: seen.message };
    case 'endpoint':
      return { usage: false, message: seen.message };
    case 'permission':
      return {
        usage: true,
        message: `these credentials may not call ${call.action} in ${call.region} (${errorName(error)}): grant it, or use the operator role (docs/operations.md)`,
      };
    case 'region':
      return {
        usage: true,
        message: `cannot reach AWS in region ${call.region} (${said}): check --region and the network`,
      };
    default:
      return { usage: false, message: `${call.action} failed: ${errorName(error) || 'Error'}: ${said}` };
  }
}
