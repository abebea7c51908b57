/**
 * Whether a failed Auto Scaling launch is a spot capacity shortage, and where: read from the
 * event's own fields (EventBridge "EC2 Instance Launch Unsuccessful", documented at
 * https://docs.aws.amazon.com/autoscaling/ec2/userguide/ec2-auto-scaling-event-reference.html,
 * "Unsuccessful scaling events"): `detail.Details["Availability Zone"]` for the zone, and
 * `detail.StatusMessage` for the error code. Real spot messages name the code and usually no
 * instance type, for example "Could not launch Spot Instances. InsufficientInstanceCapacity -
 * There is no Spot capacity available that matches your request. Launching EC2 instance failed."
 * or "Could not launch Spot Instances. UnfulfillableCapacity - Unable to fulfill capacity due to
 * your request configuration. ...". The key is (instance type or null: every pool, zone or null:
 * every zone); tests/interruptions/shortage.test.ts pins each case.
 */

/** The codes that mean "spot cannot be had here now" (EC2 error codes, in the message). */
export const SHORTAGE_CODES = ['InsufficientInstanceCapacity', 'UnfulfillableCapacity'] as const;
export type ShortageCode = (typeof SHORTAGE_CODES)[number] | 'NoSpotCapacity';

export interface Shortage {
  /** The pool short of capacity; null: spot as a whole (the message names no type). */
  instanceType: string | null;
  /** The zone of the failed launch (Details["Availability Zone"]); absent or null: unknown. */
  availabilityZone?: string | null;
  code?: ShortageCode;
}

/**
 * The longest message read: real ones are a few hundred characters; a fuzzed 400 KB one costs
 * no more than this (the type pattern below is linear, but a log line is not free).
 */
export const MAX_MESSAGE_READ = 2_000;

/** An instance type as AWS names them: g5.2xlarge, p4d.24xlarge, c7gn.metal-48xl. */
const INSTANCE_TYPE =
  /\b([a-z][a-z0-9]{0,8}-?[a-z0-9]{0,8}\.(?:nano|micro|small|medium|\d{0,2}x?large|metal(?:-\d{1,3}xl)?))\b/;
/** An Availability Zone name: us-east-1a, us-gov-west-1b, us-west-2-lax-1a (Local Zones). */
export const AVAILABILITY_ZONE = /^[a-z]{2}(?:-[a-z0-9]{1,12}){2,5}[a-z]?$/;

const codeOf = (message: string): ShortageCode | null => {
  for (const c of SHORTAGE_CODES) if (message.includes(c)) return c;
  return /no Spot capacity/i.test(message) ? 'NoSpotCapacity' : null;
};

/**
 * "Could not launch Spot Instances. InsufficientInstanceCapacity - There is no Spot capacity
 * available ..." in us-east-1b -> { instanceType: null, availabilityZone: 'us-east-1b', code:
 * 'InsufficientInstanceCapacity' }; a spot message naming g5.2xlarge -> that pool; an on-demand
 * shortage (no "Spot" in the message) or any other failure -> null.
 */
export function spotShortage(statusMessage: string, zone?: unknown): Shortage | null {
  const message = statusMessage.slice(0, MAX_MESSAGE_READ);
  const code = codeOf(message);
  if (code === null || !/\bspot\b/i.test(message)) return null;
  const az = typeof zone === 'string' && AVAILABILITY_ZONE.test(zone) ? zone : null;
  return { instanceType: INSTANCE_TYPE.exec(message)?.[1] ?? null, availabilityZone: az, code };
}

/** The shortage's key in records and sentences: "g5.2xlarge in us-east-1b", "spot in us-east-1b". */
export const shortageKey = (s: Shortage): string =>
  `${s.instanceType ?? 'spot'}${s.availabilityZone ? ` in ${s.availabilityZone}` : ''}`;
