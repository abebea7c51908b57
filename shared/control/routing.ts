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
import type { GovernorEvent } from './events.ts';

export const ALARM_PREFIX = 'governor-';

export type IgnoreReason =
  | 'StaleEvent'
  | 'FutureEvent'
  | 'AlarmNotInAlarm'
  | 'ForeignAlarm'
  | 'UnmanagedTarget'
  | 'DuplicateEvent';

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
  if (age > maxAgeSeconds) {
    return {
      reason: 'StaleEvent',
      message: `event ${event.id} is ${Math.round(age)} s old, more than MAX_EVENT_AGE_SECONDS (${maxAgeSeconds})`,
    };
  }
  if (-age > maxAgeSeconds) {
    return {
      reason: 'FutureEvent',
      message: `event ${event.id} is dated ${Math.round(-age)} s in the future: check the sender's clock`,
    };
  }
  if (event.kind === 'tick') return null;
  if (!event.alarmName.startsWith(ALARM_PREFIX)) {
    return {
      reason: 'ForeignAlarm',
      message: `alarm "${event.alarmName}" does not start with "${ALARM_PREFIX}", so Governor does not manage it`,
    };
  }
  if (event.state !== 'ALARM') {
    return {
      reason: 'AlarmNotInAlarm',
      message: `alarm "${event.alarmName}" changed to ${event.state}; only ALARM triggers an evaluation (the minute tick handles the rest)`,
    };
  }
  return null;
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
    message: `alarm "${event.alarmName}" names no target of the policy (by "${ALARM_PREFIX}<targetId>-" or by its metric's dimensions)`,
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
