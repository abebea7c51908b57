/**
 * The two events that wake the evaluate function, parsed with zod at the boundary:
 * - the minute tick from EventBridge Scheduler, in the shape of an EventBridge "Scheduled Event"
 *   (the schedule's Input template fills `id` and `time`, and the template `source`, `account`
 *   and `region`, see docs/operations.md);
 * - a CloudWatch "Alarm State Change" event from EventBridge.
 * A malformed event throws EventError naming the field and the fix; nothing else is called.
 * Where an event comes from (source, account, region) is parsed here and judged by
 * screenOrigin (routing.ts), which needs the deployment's own account and region.
 *
 * Every event string that can reach a log line is bounded: ids and alarm names longer than AWS
 * ever sends are malformed, and error messages quote event text clipped (bounded.ts).
 */
import * as z from 'zod';
import { clip, clipJson } from './bounded.ts';

export const TICK_DETAIL_TYPE = 'Scheduled Event';
export const ALARM_DETAIL_TYPE = 'CloudWatch Alarm State Change';

const IsoTime = z
  .string({ message: 'must be an ISO 8601 time such as "2025-01-01T12:00:00Z"' })
  .refine((s) => /^\d{4}-\d{2}-\d{2}T/.test(s) && Number.isFinite(Date.parse(s)), {
    message: 'must be an ISO 8601 time such as "2025-01-01T12:00:00Z"',
  });

/**
 * EventBridge event ids are UUIDs (36 characters), EventBridge Scheduler execution ids shorter:
 * 128 leaves room for any sender Governor serves and keeps a fuzzed id out of the logs.
 */
export const MAX_EVENT_ID = 128;
/** CloudWatch's own limit on an alarm name. */
export const MAX_ALARM_NAME = 255;

const EventId = z
  .string({ message: 'is required: the event id (used to drop duplicates)' })
  .min(1, 'is required: the event id (used to drop duplicates)')
  .max(MAX_EVENT_ID, `is longer than ${MAX_EVENT_ID} characters: not an EventBridge event id`);

/** Where the event says it comes from; screenOrigin (routing.ts) compares them with the deployment. */
const Origin = {
  source: z.string().optional(),
  account: z.string().optional(),
  region: z.string().optional(),
};

export const TickEventSchema = z.looseObject({
  'detail-type': z.literal(TICK_DETAIL_TYPE),
  id: EventId,
  time: IsoTime,
  ...Origin,
});

const AlarmMetricSchema = z.looseObject({
  id: z.string().optional(),
  metricStat: z
    .looseObject({
      metric: z.looseObject({
        namespace: z.string().optional(),
        name: z.string().optional(),
        dimensions: z.record(z.string(), z.string()).default({}),
      }),
    })
    .optional(),
});

export const AlarmEventSchema = z.looseObject({
  'detail-type': z.literal(ALARM_DETAIL_TYPE),
  id: EventId,
  time: IsoTime,
  ...Origin,
  detail: z.looseObject({
    alarmName: z
      .string({ message: 'is required: the name of the alarm that changed state' })
      .min(1, 'is required: the name of the alarm that changed state')
      .max(
        MAX_ALARM_NAME,
        `is longer than ${MAX_ALARM_NAME} characters, CloudWatch's limit for an alarm name`,
      ),
    state: z.looseObject({
      value: z.enum(['OK', 'ALARM', 'INSUFFICIENT_DATA'], {
        message: 'must be "OK", "ALARM" or "INSUFFICIENT_DATA"',
      }),
    }),
    configuration: z.looseObject({ metrics: z.array(AlarmMetricSchema).default([]) }).optional(),
  }),
});

export type AlarmState = 'OK' | 'ALARM' | 'INSUFFICIENT_DATA';

/** Where an event says it comes from (each undefined when the event has no such field). */
export interface EventOrigin {
  source: string | undefined;
  account: string | undefined;
  region: string | undefined;
}

export type GovernorEvent =
  | ({ kind: 'tick'; id: string; time: number } & EventOrigin)
  | ({
      kind: 'alarm';
      id: string;
      time: number;
      alarmName: string;
      state: AlarmState;
      /** The dimensions of each metric the alarm watches (empty for metric-math-only alarms). */
      dimensions: Record<string, string>[];
    } & EventOrigin);

export class EventError extends Error {
  override name = 'EventError';
}

/** A field path for messages; keys come from the event (a dimension name), so each is clipped. */
const pathOf = (path: readonly PropertyKey[]) =>
  clip(
    path
      .map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i === 0 ? '' : '.'}${clip(String(p), 64)}`))
      .join(''),
  );

function fail(error: z.ZodError): never {
  const issue = error.issues[0]!;
  const message =
    issue.code === 'invalid_type' && issue.message.startsWith('Invalid input')
      ? `is missing or not a ${issue.expected}`
      : issue.message;
  throw new EventError(`event field ${pathOf(issue.path) || '(event)'} ${clip(message)}`);
}

const originOf = (e: { source?: string; account?: string; region?: string }): EventOrigin => ({
  source: e.source,
  account: e.account,
  region: e.region,
});

/** Raw Lambda input to a GovernorEvent, or EventError naming the field. */
export function parseEvent(raw: unknown): GovernorEvent {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new EventError('event is not a JSON object: expected an EventBridge event');
  }
  const detailType = (raw as Record<string, unknown>)['detail-type'];
  if (detailType === TICK_DETAIL_TYPE) {
    const r = TickEventSchema.safeParse(raw);
    if (!r.success) fail(r.error);
    return { kind: 'tick', id: r.data.id, time: Date.parse(r.data.time), ...originOf(r.data) };
  }
  if (detailType === ALARM_DETAIL_TYPE) {
    const r = AlarmEventSchema.safeParse(raw);
    if (!r.success) fail(r.error);
    const { detail } = r.data;
    return {
      kind: 'alarm',
      id: r.data.id,
      time: Date.parse(r.data.time),
      ...originOf(r.data),
      alarmName: detail.alarmName,
      state: detail.state.value,
      dimensions: (detail.configuration?.metrics ?? []).flatMap((m) =>
        m.metricStat ? [m.metricStat.metric.dimensions] : [],
      ),
    };
  }
  throw new EventError(
    `event field detail-type is ${clipJson(detailType ?? null, 80)}: expected "${TICK_DETAIL_TYPE}" or "${ALARM_DETAIL_TYPE}"`,
  );
}
