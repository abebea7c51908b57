/**
 * `governor decisions`: the decision records of one target (the audit items the evaluate
 * function writes, shared/apply/records.ts) as a timeline, oldest first, like the events of
 * `kubectl describe`. Raw items are decoded with zod; an item that does not decode is shown as
 * such, never dropped. Pure: time comes in as `now`.
 */
import * as z from 'zod';

const RecordSchema = z.looseObject({
  sk: z.string(),
  at: z.string(),
  decisionId: z.string().optional(),
  outcome: z.string(),
  detail: z.string().default(''),
  mode: z.string().optional(),
  resumed: z.string().nullable().optional(),
  suspended: z.string().nullable().optional(),
  decision: z
    .looseObject({
      currentCapacity: z.number(),
      desiredCapacity: z.number(),
      reasons: z.array(z.string()),
      message: z.string(),
    })
    .nullable()
    .optional(),
});

export interface TimelineRow {
  sk: string;
  at: string;
  from: number | null;
  to: number | null;
  reasons: string[];
  sentence: string;
  outcome: string;
  detail: string;
  /** What the kill switch's release resumed (absent: not a release). */
  resumed?: string | null;
  suspended?: string | null;
}

/** One audit item to a row; an item that does not decode is a row that says so. */
export function timelineRow(item: Record<string, unknown>): TimelineRow {
  const parsed = RecordSchema.safeParse(item);
  if (!parsed.success) {
    const sk = typeof item.sk === 'string' ? item.sk : '?';
    return {
      sk,
      at: sk.split('#')[1] ?? '?',
      from: null,
      to: null,
      reasons: [],
      sentence: '',
      outcome: 'unreadable',
      detail: `the record does not decode: ${parsed.error.issues[0]?.path.join('.')} ${parsed.error.issues[0]?.message}`,
    };
  }
  const r = parsed.data;
  return {
    sk: r.sk,
    at: r.at,
    from: r.decision?.currentCapacity ?? null,
    to: r.decision?.desiredCapacity ?? null,
    reasons: r.decision?.reasons ?? [],
    sentence: r.decision?.message ?? '',
    outcome: r.outcome,
    detail: r.detail,
    ...(r.resumed !== undefined ? { resumed: r.resumed } : {}),
    ...(r.suspended ? { suspended: r.suspended } : {}),
  };
}

/** `2025-06-02 03:12:30Z`: the record's time to the second. */
const shortTime = (iso: string) => iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z');

/**
 * Two lines per record: time, from -> to, outcome, reasons; then the sentence and, when it says
 * more than the outcome, the detail.
 *   2025-06-02 03:12:30Z  2 -> 6  started  PanicScaleOut, ClampedToStep
 *       Panic: 250 requests per instance ... | scale-target state machine started for 2 -> 6
 */
export function timelineLines(row: TimelineRow): string[] {
  const change = row.from === null ? '  -   ' : `${row.from} -> ${row.to}`;
  const head = [shortTime(row.at), change.padEnd(8), row.outcome.padEnd(8), row.reasons.join(', ')].join(
    '  ',
  );
  const said = [row.sentence, row.detail].filter((s) => s !== '').join(' | ');
  return said === '' ? [head.trimEnd()] : [head.trimEnd(), `    ${said}`];
}

const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
/** How far back decisions are kept: the audit items' TTL (AUDIT_TTL_DAYS, 30 by default). */
export const MAX_SINCE_DAYS = 30;

/** --since: 30m, 6h, 2d, or an ISO time with its zone; the start of the window (epoch ms), or a problem. */
export function sinceFrom(raw: string, now: number): { at: number } | { problem: string } {
  const relative = /^(\d+)([mhd])$/.exec(raw);
  const at = relative
    ? now - Number(relative[1]) * UNIT_MS[relative[2] as keyof typeof UNIT_MS]
    : /T.*(Z|[+-]\d\d:\d\d)$/.test(raw)
      ? Date.parse(raw)
      : Number.NaN;
  if (!Number.isFinite(at))
    return {
      problem: `--since must be a duration such as 30m, 6h or 2d, or an ISO time such as 2025-06-02T03:00Z, got ${JSON.stringify(raw)}`,
    };
  if (at > now) return { problem: `--since ${raw} is in the future: decisions can only be read back` };
  if (now - at > MAX_SINCE_DAYS * UNIT_MS.d)
    return {
      problem: `--since ${raw} is more than ${MAX_SINCE_DAYS} days back: the records expire after ${MAX_SINCE_DAYS} days (AUDIT_TTL_DAYS)`,
    };
  return { at };
}
