/**
 * The EventBridge events the interruption handler takes, as SQS record bodies, parsed with zod
 * into one flat SpotEvent each (docs/interruptions.md lists them; tests/interruptions/fixtures/
 * holds a recorded one of each):
 *  - aws.ec2 "EC2 Spot Instance Interruption Warning": detail instance-id, instance-action
 *    (terminate, stop or hibernate), two minutes before the instance goes;
 *  - aws.ec2 "EC2 Instance Rebalance Recommendation": detail instance-id, an elevated risk;
 *  - aws.autoscaling "EC2 Instance Launch Unsuccessful": detail AutoScalingGroupName,
 *    StatusCode, StatusMessage, Details["Availability Zone"]; a spot capacity shortage is keyed
 *    by the type and zone the event itself gives (./shortage.ts);
 *  - aws.health "AWS Health Event" of service EC2, category scheduledChange, status upcoming or
 *    open, with affected instance ids (scheduled retirement, maintenance): one event per
 *    affected instance; any other Health event gives none (`skipped` says why).
 * Anything else, or a body that is not JSON, is a ParseProblem naming the field (clipped): the
 * spot-events function reports that one record as a batch item failure, so it reaches the
 * dead-letter queue after its retries. Every string is bounded before a pattern reads it, and no
 * lookup touches a plain object's prototype (tests/functions/spot-events-fuzz.test.ts).
 */
import * as z from 'zod';
import { clip } from '../events/bounded.ts';
import { type Shortage, spotShortage } from './shortage.ts';

export { spotShortage } from './shortage.ts';

export const INTERRUPTION_WARNING = 'EC2 Spot Instance Interruption Warning';
export const REBALANCE_RECOMMENDATION = 'EC2 Instance Rebalance Recommendation';
export const LAUNCH_UNSUCCESSFUL = 'EC2 Instance Launch Unsuccessful';
export const HEALTH_EVENT = 'AWS Health Event';

const IsoTime = z.string().refine((s) => /^\d{4}-\d{2}-\d{2}T/.test(s) && Number.isFinite(Date.parse(s)), {
  message: 'must be an ISO 8601 time such as "2026-01-05T12:00:00Z"',
});
const InstanceId = z
  .string()
  .regex(/^i-[0-9a-f]{8,17}$/, { message: 'must be an instance id such as i-0abc12345678' });

// Every field is bounded before a pattern runs on it: a fuzzed 400 KB region reached a log line.
const envelope = {
  id: z.string().min(1).max(128),
  time: z.string().max(40).pipe(IsoTime),
  account: z.string().regex(/^\d{12}$/, { message: 'must be a 12-digit account id' }),
  region: z
    .string()
    .max(32)
    .regex(/^[a-z]{2}(-[a-z]+)+-\d{1,2}$/, { message: 'must be a region name such as us-east-1' }),
};

const WarningSchema = z.looseObject({
  ...envelope,
  source: z.literal('aws.ec2'),
  'detail-type': z.literal(INTERRUPTION_WARNING),
  detail: z.looseObject({
    'instance-id': InstanceId,
    'instance-action': z.enum(['terminate', 'stop', 'hibernate']),
  }),
});

const RebalanceSchema = z.looseObject({
  ...envelope,
  source: z.literal('aws.ec2'),
  'detail-type': z.literal(REBALANCE_RECOMMENDATION),
  detail: z.looseObject({ 'instance-id': InstanceId }),
});

const LaunchSchema = z.looseObject({
  ...envelope,
  source: z.literal('aws.autoscaling'),
  'detail-type': z.literal(LAUNCH_UNSUCCESSFUL),
  detail: z.looseObject({
    AutoScalingGroupName: z.string().min(1).max(255),
    StatusCode: z.string().max(64),
    StatusMessage: z.string().default(''),
    Details: z.looseObject({ 'Availability Zone': z.string().max(64).optional() }).optional(),
  }),
});

const HealthSchema = z.looseObject({
  ...envelope,
  source: z.literal('aws.health'),
  'detail-type': z.literal(HEALTH_EVENT),
  // Lengths and patterns of AWS Health's own model (API_EventType: service 2-30, code 3-100).
  detail: z.looseObject({
    service: z.string().max(30),
    eventTypeCode: z.string().max(100),
    eventTypeCategory: z.string().max(255).optional(),
    statusCode: z.string().max(30).optional(),
    eventArn: z.string().max(1600).optional(),
    startTime: z.string().max(64).optional(),
    affectedEntities: z.array(z.looseObject({ entityValue: z.string().max(1224) })).default([]),
  }),
});

interface Origin {
  /** The EventBridge event id. */
  eventId: string;
  /** Epoch ms of the event's `time`. */
  at: number;
  account: string;
  region: string;
}

export type SpotEvent =
  | (Origin & { kind: 'interruption'; instanceId: string; action: string })
  | (Origin & { kind: 'rebalance'; instanceId: string })
  | (Origin & { kind: 'retirement'; instanceId: string; eventTypeCode: string })
  | (Origin & {
      kind: 'launch-failed';
      groupName: string;
      statusCode: string;
      message: string;
      /** A spot capacity shortage: in one pool (instanceType), or in spot as a whole (null). */
      shortage: Shortage | null;
    });

/**
 * A body's events; `skipped` says why a valid event gives none (a Health event of another
 * service, or one that is not an upcoming or open scheduled change).
 */
export type ParsedBody =
  | {
      ok: true;
      events: SpotEvent[];
      skipped?: { reason: 'NotEc2Instance' | 'NotActionable'; detail: string };
    }
  | { ok: false; problem: string };

const origin = (e: { id: string; time: string; account: string; region: string }): Origin => ({
  eventId: e.id,
  at: Date.parse(e.time),
  account: e.account,
  region: e.region,
});

// A Map, not an object: a detail-type of "constructor" or "__proto__" must find nothing (on a
// plain object it found Object's own members and the parse threw a TypeError).
const SCHEMAS = new Map<string, z.ZodType>([
  [INTERRUPTION_WARNING, WarningSchema],
  [REBALANCE_RECOMMENDATION, RebalanceSchema],
  [LAUNCH_UNSUCCESSFUL, LaunchSchema],
  [HEALTH_EVENT, HealthSchema],
]);

function problemOf(error: z.ZodError, detailType: string): string {
  const issue = error.issues[0];
  return `${detailType}: ${issue?.path.join('.') || 'event'} ${issue?.message ?? 'is invalid'}`;
}

/** One SQS record body to its events (a Health event gives one per affected instance). */
export function parseSpotBody(body: string): ParsedBody {
  let raw: unknown;
  try {
    raw = JSON.parse(body);
  } catch {
    return { ok: false, problem: `the body is not JSON: ${clip(body, 80)}` };
  }
  const detailType =
    typeof raw === 'object' && raw !== null && Object.hasOwn(raw, 'detail-type')
      ? (raw as { 'detail-type'?: unknown })['detail-type']
      : undefined;
  const schema = typeof detailType === 'string' ? SCHEMAS.get(detailType) : undefined;
  if (!schema)
    return {
      ok: false,
      problem: `detail-type ${clip(JSON.stringify(detailType ?? null), 80)} is not one this function handles`,
    };
  const parsed = schema.safeParse(raw);
  if (!parsed.success) return { ok: false, problem: problemOf(parsed.error, detailType as string) };
  const data = parsed.data as Parsed;
  if (data['detail-type'] === HEALTH_EVENT) return healthEvents(data as z.infer<typeof HealthSchema>);
  return { ok: true, events: toEvents(data) };
}

type Parsed =
  | z.infer<typeof WarningSchema>
  | z.infer<typeof RebalanceSchema>
  | z.infer<typeof LaunchSchema>
  | z.infer<typeof HealthSchema>;

function toEvents(e: Parsed): SpotEvent[] {
  const o = origin(e);
  if (e['detail-type'] === INTERRUPTION_WARNING) {
    const d = (e as z.infer<typeof WarningSchema>).detail;
    return [{ ...o, kind: 'interruption', instanceId: d['instance-id'], action: d['instance-action'] }];
  }
  if (e['detail-type'] === REBALANCE_RECOMMENDATION)
    return [
      { ...o, kind: 'rebalance', instanceId: (e as z.infer<typeof RebalanceSchema>).detail['instance-id'] },
    ];
  if (e['detail-type'] === LAUNCH_UNSUCCESSFUL) {
    const d = (e as z.infer<typeof LaunchSchema>).detail;
    return [
      {
        ...o,
        kind: 'launch-failed',
        groupName: d.AutoScalingGroupName,
        statusCode: d.StatusCode,
        message: clip(d.StatusMessage),
        shortage: spotShortage(d.StatusMessage, d.Details?.['Availability Zone']),
      },
    ];
  }
  return [];
}

/**
 * The statuses of a Health event that still lie ahead or are under way. AWS Health's EventBridge
 * schema (https://docs.aws.amazon.com/health/latest/ug/aws-health-events-eventbridge-schema.html)
 * gives detail.statusCode upcoming | open | closed and detail.eventTypeCategory issue |
 * accountNotification | scheduledChange | investigation (API_EventType); a scheduled retirement
 * or maintenance of an instance is a scheduledChange, upcoming until it starts. A closed event
 * (done, or cancelled) and an issue or notification replace nothing.
 */
export const HEALTH_ACTIONABLE_STATUS: ReadonlySet<string> = new Set(['upcoming', 'open']);
export const HEALTH_ACTIONABLE_CATEGORY = 'scheduledChange';

function healthEvents(e: z.infer<typeof HealthSchema>): ParsedBody {
  const d = e.detail;
  // Only EC2 instance events name instances to replace; other services' events are not ours.
  if (d.service !== 'EC2')
    return {
      ok: true,
      events: [],
      skipped: { reason: 'NotEc2Instance', detail: 'a Health event of another service' },
    };
  const category = d.eventTypeCategory ?? '';
  const status = d.statusCode ?? '';
  if (category !== HEALTH_ACTIONABLE_CATEGORY || !HEALTH_ACTIONABLE_STATUS.has(status))
    return {
      ok: true,
      events: [],
      skipped: {
        reason: 'NotActionable',
        detail: `a Health event of category ${clip(JSON.stringify(category), 40)} and status ${clip(JSON.stringify(status), 40)}: only an upcoming or open scheduledChange replaces instances`,
      },
    };
  const o = origin(e);
  const ids = [...new Set(d.affectedEntities.map((x) => x.entityValue))];
  return {
    ok: true,
    events: ids
      .filter((v) => InstanceId.safeParse(v).success)
      .map((instanceId) => ({
        ...o,
        kind: 'retirement' as const,
        instanceId,
        eventTypeCode: d.eventTypeCode,
      })),
  };
}

/** The instance an event is about, or null for a group's failed launch. */
export const instanceOf = (e: SpotEvent): string | null => (e.kind === 'launch-failed' ? null : e.instanceId);
