/**
 * The EventBridge events the interruption handler takes, as SQS record bodies, parsed with zod
 * into one flat SpotEvent each (docs/interruptions.md lists them; tests/interruptions/fixtures/
 * holds a recorded one of each):
 *  - aws.ec2 "EC2 Spot Instance Interruption Warning": detail instance-id, instance-action
 *    (terminate, stop or hibernate), two minutes before the instance goes;
 *  - aws.ec2 "EC2 Instance Rebalance Recommendation": detail instance-id, an elevated risk;
 *  - aws.autoscaling "EC2 Instance Launch Unsuccessful": detail AutoScalingGroupName,
 *    StatusCode, StatusMessage; a spot capacity shortage is a message naming
 *    InsufficientInstanceCapacity for spot, or "no Spot capacity", of the type it names if any;
 *  - aws.health "AWS Health Event" of service EC2 with affected instance ids (scheduled
 *    retirement, maintenance): one event per affected instance.
 * Anything else, or a body that is not JSON, is a ParseProblem naming the field: recorded as
 * malformed, never retried (a redelivery would fail the same way).
 */
import * as z from 'zod';
import { clip } from '../events/bounded.ts';

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

const envelope = {
  id: z.string().min(1).max(128),
  time: IsoTime,
  account: z.string().regex(/^\d{12}$/, { message: 'must be a 12-digit account id' }),
  region: z.string().min(1),
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
    StatusCode: z.string(),
    StatusMessage: z.string().default(''),
  }),
});

const HealthSchema = z.looseObject({
  ...envelope,
  source: z.literal('aws.health'),
  'detail-type': z.literal(HEALTH_EVENT),
  detail: z.looseObject({
    service: z.string(),
    eventTypeCode: z.string(),
    eventArn: z.string().optional(),
    startTime: z.string().optional(),
    affectedEntities: z.array(z.looseObject({ entityValue: z.string() })).default([]),
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
      shortage: { instanceType: string | null } | null;
    });

export type ParsedBody = { ok: true; events: SpotEvent[] } | { ok: false; problem: string };

/** An instance type as AWS names them: g5.2xlarge, p4d.24xlarge, c7gn.metal-48xl. */
const INSTANCE_TYPE =
  /\b([a-z][a-z0-9-]*\d[a-z0-9-]*\.(?:nano|micro|small|medium|\d*x?large|metal(?:-\d+xl)?))\b/;

/**
 * Whether a failed launch's StatusMessage is a spot capacity shortage, and of which type.
 * "Could not launch Spot Instances. InsufficientInstanceCapacity - There is no Spot capacity
 * available that matches your request." -> { instanceType: null } (spot as a whole);
 * "... InsufficientInstanceCapacity - We currently do not have sufficient g5.2xlarge capacity
 * ... Spot ..." -> { instanceType: 'g5.2xlarge' }; an on-demand shortage or any other failure
 * -> null (tests/interruptions/events.test.ts pins each).
 */
export function spotShortage(message: string): { instanceType: string | null } | null {
  const noSpot = /no Spot capacity/i.test(message);
  const ice = /InsufficientInstanceCapacity/.test(message) && /\bspot\b/i.test(message);
  if (!noSpot && !ice) return null;
  return { instanceType: INSTANCE_TYPE.exec(message)?.[1] ?? null };
}

const origin = (e: { id: string; time: string; account: string; region: string }): Origin => ({
  eventId: e.id,
  at: Date.parse(e.time),
  account: e.account,
  region: e.region,
});

const SCHEMAS: Record<string, z.ZodType> = {
  [INTERRUPTION_WARNING]: WarningSchema,
  [REBALANCE_RECOMMENDATION]: RebalanceSchema,
  [LAUNCH_UNSUCCESSFUL]: LaunchSchema,
  [HEALTH_EVENT]: HealthSchema,
};

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
  const detailType = (raw as { 'detail-type'?: unknown } | null)?.['detail-type'];
  const schema = typeof detailType === 'string' ? SCHEMAS[detailType] : undefined;
  if (!schema)
    return {
      ok: false,
      problem: `detail-type ${clip(JSON.stringify(detailType ?? null), 80)} is not one this function handles`,
    };
  const parsed = schema.safeParse(raw);
  if (!parsed.success) return { ok: false, problem: problemOf(parsed.error, detailType as string) };
  return { ok: true, events: toEvents(parsed.data as Parsed) };
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
        message: clip(d.StatusMessage, 500),
        shortage: spotShortage(d.StatusMessage),
      },
    ];
  }
  const d = (e as z.infer<typeof HealthSchema>).detail;
  // Only EC2 instance events name instances to replace; other services' events are not ours.
  if (d.service !== 'EC2') return [];
  return d.affectedEntities
    .map((x) => x.entityValue)
    .filter((v) => InstanceId.safeParse(v).success)
    .map((instanceId) => ({ ...o, kind: 'retirement' as const, instanceId, eventTypeCode: d.eventTypeCode }));
}

/** The instance an event is about, or null for a group's failed launch. */
export const instanceOf = (e: SpotEvent): string | null => (e.kind === 'launch-failed' ? null : e.instanceId);
