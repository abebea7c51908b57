/** SageMaker's "busy" refusal, shared by the capacity writes and the variant weights (one small module, so importing it brings no SageMaker call into a bundle). */
import { errorName } from './clients.ts';

/**
 * SageMaker refuses a capacity change while the resource is updating with a ValidationException
 * ("Cannot update in-progress endpoint"): that is a deferral to the next tick, not a failure.
 */
export function isBusyError(error: unknown): boolean {
  if (errorName(error) !== 'ValidationException') return false;
  const message = error instanceof Error ? error.message : '';
  return /in-progress|in progress|updating|creating/i.test(message);
}
