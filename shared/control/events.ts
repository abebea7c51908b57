/**
 * The two events that wake the evaluate function, parsed with zod at the boundary:
 * - the minute tick from EventBridge Scheduler, in the shape of an EventBridge "Scheduled Event"
 *   (the schedule's Input template fills `id` and `time`, see docs/operations.md);
 * - a CloudWatch "Alarm State Change" event from EventBridge.
 * A malformed event throws EventError naming the field and the fix; nothing else is called.
 */
import { z } from 'zod';

export const TICK_DETAIL_TYPE = 'Scheduled Event';
export const ALARM_DETAIL_TYPE = 'CloudWatch Alarm State Change';

const IsoTime = z
  .string({ message: 'must be an ISO 8601 time such as "2025-01-01T12:00:00Z"' })
  .refine((s) => /^\d{4}-\d{2}-\d{2}T/.test(s) && Number.isFinite(Date.parse(s)), {
    message: 'must be an ISO 8601 time such as "2025-01-01T12:00:00Z"',
  });

const EventId = z.string({ message: 'is required: the event id (used to drop duplicates)' }).min(1);

export const TickEventSchema = z.looseObject({
  'detail-type': z.literal(TICK_DETAIL_TYPE),
  id: EventId,
  time: IsoTime,
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
  source: z.literal('aws.cloudwatch', { message: 'must be "aws.cloudwatch"' }),
  id: EventId,
  time: IsoTime,
  region: z.string().min(1).optional(),
  detail: z.looseObject({
    alarmName: z.string({ message: 'is required: the name of the alarm that changed state' }).min(1),
    state: z.looseObject({
      value: z.enum(['OK', 'ALARM', 'INSUFFICIENT_DATA'], {
        message: 'must be "OK", "ALARM" or "INSUFFICIENT_DATA"',
      }),
    }),
    configuration: z.looseObject({ metrics: z.array(AlarmMetricSchema).default([]) }).optional(),
  }),
});

export type AlarmState = 'OK' | 'ALARM' | 'INSUFFICIENT_DATA';

export type GovernorEvent =
  | { kind: 'tick'; id: string; time: number }
  | {
      kind: 'alarm';
      id: string;
      time: number;
      region: string | undefined;
      alarmName: string;
      state: AlarmState;
      /** The dimensions of each metric the alarm watches (empty for metric-math-only alarms). */
      dimensions: Record<string, string>[];
    };

export class EventError extends Error {
  override name = 'EventError';
}

const pathOf = (path: readonly PropertyKey[]) =>
  path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i === 0 ? '' : '.'}${String(p)}`)).join('');

function fail(error: z.ZodError): never {
  const issue = error.issues[0]!;
  const message =
    issue.code === 'invalid_type' && issue.message.startsWith('Invalid input')
      ? `is missing or not a ${issue.expected}`
      : issue.message;
  throw new EventError(`event field ${pathOf(issue.path) || '(event)'} ${message}`);
}

/** Raw Lambda input to a GovernorEvent, or EventError naming the field. */
export function parseEvent(raw: unknown): GovernorEvent {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new EventError('event is not a JSON object: expected an EventBridge event');
  }
  const detailType = (raw as Record<string, unknown>)['detail-type'];
  if (detailType === TICK_DETAIL_TYPE) {
    const r = TickEventSchema.safeParse(raw);
    if (!r.success) fail(r.error);
    return { kind: 'tick', id: r.data.id, time: Date.parse(r.data.time) };
  }
  if (detailType === ALARM_DETAIL_TYPE) {
    const r = AlarmEventSchema.safeParse(raw);
    if (!r.success) fail(r.error);
    const { detail } = r.data;
    return {
      kind: 'alarm',
      id: r.data.id,
      time: Date.parse(r.data.time),
      region: r.data.region,
      alarmName: detail.alarmName,
      state: detail.state.value,
      dimensions: (detail.configuration?.metrics ?? []).flatMap((m) =>
        m.metricStat ? [m.metricStat.metric.dimensions] : [],
      ),
    };
  }
  throw new EventError(
    `event field detail-type is ${JSON.stringify(detailType ?? null)}: expected "${TICK_DETAIL_TYPE}" or "${ALARM_DETAIL_TYPE}"`,
  );
}
