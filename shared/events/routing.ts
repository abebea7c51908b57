/**
 * Which targets an event asks to evaluate, or why it asks for none. Events are hints: the
 * evaluation re-reads live metrics and capacity, so an ignored event loses nothing that the
 * next minute tick does not see.
 *
 * How an alarm names a target (docs/operations.md, "Alarms"): its name starts with
 * `governor-`; then either `governor-<targetId>-<anything>` (or exactly `governor-<targetId>`)
 * names the target, or the dimensions of the metric it watches do: EndpointName (+ VariantName)
 * for endpoint variants, InferenceComponentName for inference components, AutoScalingGroupName
 * for Auto Scaling groups.
 */
import type { PolicyFile, TargetPolicy } from '../policy/schema.ts';
import { clip, clipJson } from './bounded.ts';
import { EventError, type GovernorEvent, parseEvent } from './parse.ts';

export const ALARM_PREFIX = 'governor-';

export type IgnoreReason =
  | 'StaleEvent'
  | 'FutureEvent'
  | 'AlarmNotInAlarm'
  | 'ForeignAlarm'
  | 'UnmanagedTarget'
  | 'DuplicateEvent'
  | 'ForeignSource'
  | 'ForeignAccount'
  | 'ForeignRegion';

/** The deployment an event must come from: the function's own account (when known) and region. */
export interface Home {
  /** From the Lambda context's invokedFunctionArn; undefined in local runs, where it is not checked. */
  account?: string | undefined;
  region: string;
}

/** The source each kind of event must carry: the template's scheduler Input, and CloudWatch's alarms. */
export const EXPECTED_SOURCE = { tick: 'aws.scheduler', alarm: 'aws.cloudwatch' } as const;

/** The account of a Lambda function ARN (arn:aws:lambda:us-east-1:123456789012:function:f), or undefined. */
export function accountOfArn(arn: string | undefined): string | undefined {
  const account = arn?.split(':')[4];
  return account && /^\d{12}$/.test(account) ? account : undefined;
}

const shown = (v: string | undefined) => (v === undefined ? 'none' : clipJson(v, 40));

/**
 * Where the event comes from, against the deployment (no AWS call): its source must be the one
 * its kind is sent by, its account the function's own (when known), its region the function's.
 * A tick from another source or account, an alarm from another account or region, is refused:
 * a shape is not a sender.
 */
export function screenOrigin(event: GovernorEvent, home: Home): Ignored | null {
  const what = `${event.kind} ${clip(event.id, 64)}`;
  const source = EXPECTED_SOURCE[event.kind];
  if (event.source !== source) {
    return {
      reason: 'ForeignSource',
      message: `${what} has source ${shown(event.source)}, not "${source}": Governor acts only on its own schedule and CloudWatch alarms`,
    };
  }
  if (home.account !== undefined && event.account !== home.account) {
    return {
      reason: 'ForeignAccount',
      message: `${what} comes from account ${shown(event.account)}, not this deployment's ${home.account}`,
    };
  }
  if (event.region !== home.region) {
    return {
      reason: 'ForeignRegion',
      message: `${what} comes from region ${shown(event.region)}, not this deployment's ${home.region}`,
    };
  }
  return null;
}

export interface Ignored {
  reason: IgnoreReason;
  message: string;
}

/**
 * Checks that need no policy and no AWS call: age and alarm state and name. An event more than
 * maxAgeSeconds old (or that far in the future: a wrong clock) is ignored; an alarm that left
 * ALARM is ignored, since scale-in waits for many periods and the tick covers it.
 */
export function screenEvent(event: GovernorEvent, now: number, maxAgeSeconds: number): Ignored | null {
  const age = (now - event.time) / 1000;
  const id = clip(event.id, 64);
  if (age > maxAgeSeconds) {
    return {
      reason: 'StaleEvent',
      message: `event ${id} is ${Math.round(age)} s old, more than MAX_EVENT_AGE_SECONDS (${maxAgeSeconds})`,
    };
  }
  if (-age > maxAgeSeconds) {
    return {
      reason: 'FutureEvent',
      message: `event ${id} is dated ${Math.round(-age)} s in the future: check the sender's clock`,
    };
  }
  if (event.kind === 'tick') return null;
  if (!event.alarmName.startsWith(ALARM_PREFIX)) {
    return {
      reason: 'ForeignAlarm',
      message: `alarm "${clip(event.alarmName)}" does not start with "${ALARM_PREFIX}", so Governor does not manage it`,
    };
  }
  if (event.state !== 'ALARM') {
    return {
      reason: 'AlarmNotInAlarm',
      message: `alarm "${clip(event.alarmName)}" changed to ${event.state}; only ALARM triggers an evaluation (the minute tick handles the rest)`,
    };
  }
  return null;
}

/**
 * The forecast function's tick: at most maxAgeSeconds old and at most futureSeconds ahead (a
 * wrong clock), so a replayed or forged tick (one dated 1970 ran in full before) is refused.
 * Its id is checked against the state table by the shell (DuplicateEvent).
 */
export function screenTick(
  event: GovernorEvent,
  now: number,
  limits: { maxAgeSeconds: number; futureSeconds: number },
): Ignored | null {
  const age = (now - event.time) / 1000;
  const id = clip(event.id, 64);
  if (age > limits.maxAgeSeconds) {
    return {
      reason: 'StaleEvent',
      message: `tick ${id} is ${Math.round(age)} s old, more than ${limits.maxAgeSeconds} s: the next hourly tick runs the forecast`,
    };
  }
  if (-age > limits.futureSeconds) {
    return {
      reason: 'FutureEvent',
      message: `tick ${id} is dated ${Math.round(-age)} s in the future (more than ${limits.futureSeconds} s of clock skew): check the sender's clock`,
    };
  }
  return null;
}

/** Seconds a scheduled tick may be dated ahead of the function's clock (skew), for every scheduled function. */
export const TICK_FUTURE_SECONDS = 60;

/**
 * A scheduled function's event, parsed and screened the one way (the forecast, mix and failover
 * functions): an alarm is an EventError with `notATick` as its message; a tick from another
 * account or region, or too old or too far ahead, is ignored with its reason; else null.
 */
export function screenScheduledTick(
  raw: unknown,
  now: number,
  home: Home,
  maxAgeSeconds: number,
  notATick: string,
): { event: GovernorEvent; ignored: Ignored | null } {
  const event = parseEvent(raw);
  if (event.kind !== 'tick') throw new EventError(notATick);
  const ignored =
    screenOrigin(event, home) ??
    screenTick(event, now, { maxAgeSeconds, futureSeconds: TICK_FUTURE_SECONDS });
  return { event, ignored };
}

function dimensionsName(t: TargetPolicy, dims: Record<string, string>): boolean {
  switch (t.kind) {
    case 'sagemaker-variant':
      return (
        dims.EndpointName === t.endpointName &&
        dims.InferenceComponentName === undefined &&
        (dims.VariantName === undefined || dims.VariantName === t.variantName)
      );
    case 'sagemaker-inference-component':
      return dims.InferenceComponentName === t.inferenceComponentName;
    case 'ec2-asg':
      return dims.AutoScalingGroupName === t.autoScalingGroupName;
  }
}

/** The targets an ALARM names: by name first (the longest matching id), else by dimensions. */
export function targetsForAlarm(
  alarmName: string,
  dimensions: Record<string, string>[],
  policy: PolicyFile,
  region: string | undefined,
): TargetPolicy[] {
  const rest = alarmName.slice(ALARM_PREFIX.length);
  const byName = policy.targets
    .filter((t) => rest === t.id || rest.startsWith(`${t.id}-`))
    .sort((a, b) => b.id.length - a.id.length);
  if (byName[0]) return [byName[0]];
  return policy.targets.filter(
    (t) => (region === undefined || t.region === region) && dimensions.some((d) => dimensionsName(t, d)),
  );
}

export type Route = { targets: TargetPolicy[] } | Ignored;

/** Every target for a tick; the named targets for an alarm, or UnmanagedTarget. */
export function routeEvent(event: GovernorEvent, policy: PolicyFile): Route {
  if (event.kind === 'tick') return { targets: policy.targets };
  const targets = targetsForAlarm(event.alarmName, event.dimensions, policy, event.region);
  if (targets.length > 0) return { targets };
  return {
    reason: 'UnmanagedTarget',
    message: `alarm "${clip(event.alarmName)}" names no target of the policy (by "${ALARM_PREFIX}<targetId>-" or by its metric's dimensions)`,
  };
}

/**
 * Event ids seen recently by this container, to drop EventBridge's at-least-once duplicates
 * without an AWS call. A duplicate that reaches another container is still harmless: an extra
 * evaluation within a period does not advance breach counts, and state writes are conditional.
 */
export class RecentIds {
  readonly #ids = new Set<string>();
  readonly #limit: number;
  constructor(limit = 1000) {
    this.#limit = limit;
  }
  /** True the first time an id is seen; false for a repeat. Forgets the oldest past the limit. */
  firstTime(id: string): boolean {
    if (this.#ids.has(id)) return false;
    this.#ids.add(id);
    if (this.#ids.size > this.#limit) this.#ids.delete(this.#ids.values().next().value!);
    return true;
  }
  /** Forgets an id, so a retry of a failed invocation is evaluated again. */
  forget(id: string): void {
    this.#ids.delete(id);
  }
}
