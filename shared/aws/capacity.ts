/** What the capacity adapters (SageMaker, Auto Scaling) return, and their shared checks. */

export interface Capacity {
  /** DesiredInstanceCount / DesiredCopyCount / DesiredCapacity. */
  desired: number;
  /** CurrentInstanceCount / CurrentCopyCount / instances InService. */
  ready: number;
  /** EndpointStatus / InferenceComponentStatus; 'InService' when a change may be applied now. */
  status: string;
}

/** 'busy': the service refused the change because the resource is updating; retry next tick. */
export type ApplyResult = { status: 'applied' } | { status: 'busy'; message: string };

/** An SDK response without a field Governor needs: never read as zero. */
export class MalformedResponseError extends Error {
  override name = 'MalformedResponseError';
}

/** A whole count of 0 or more, or MalformedResponseError naming the field. */
export function countField(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw new MalformedResponseError(
      `${field} is ${value === undefined ? 'missing' : JSON.stringify(value)}`,
    );
  }
  return value;
}
