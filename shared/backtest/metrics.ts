/**
 * The metrics pipeline: the signals a CloudWatch-like service would publish for each simulated
 * minute, and the view a policy gets of them (only what would have been delivered by then).
 *
 * Everything here is in the reference scenario's units (requests per minute); a policy that
 * works in its own units (the governor policy, through instanceCapacity) rescales on read.
 */

/** One minute's datapoint, as published after the minute ends. */
export interface Datapoint {
  minute: number;
  /** Epoch ms of the period's start, as CloudWatch stamps a one-minute datapoint. */
  timestamp: number;
  /** Requests counted in the minute (what SageMaker's Invocations counts). */
  requests: number;
  /** Ready instances during the minute: the basis of every per-instance value below. */
  ready: number;
  /** requests / ready (SageMaker's InvocationsPerInstance); NaN when nothing was ready. */
  invocationsPerInstance: number;
  /** 100 x min(1, (work + backlog in) / (ready x muSat)): GPU utilization in percent. */
  gpuUtilization: number;
  /** Work waiting at the end of the minute (the backlog), in requests. */
  queueDepth: number;
  queueDepthPerInstance: number;
  /** Requests in flight per instance, by Little's law: arrival rate x mean time in system. */
  concurrencyPerInstance: number;
  p95LatencyMs: number;
  p99LatencyMs: number;
}

/**
 * The latency curve. Each instance is an M/M/1 server: time in system is exponential with rate
 * muSat x (1 - u), so its q-quantile is -ln(1 - q) / (muSat x (1 - u)), proportional to
 * 1 / (1 - u). Scaled so that p95 equals the SLO at u = sloUtilization:
 *
 *   p95(u) = sloMs x (1 - sloUtilization) / (1 - u)
 *
 * With sloMs 2000 and sloUtilization 0.8: 400 ms idle, 1000 ms at u 0.6, 2000 ms at 0.8,
 * 8000 ms at 0.95, and without bound towards 1 (u is capped at 0.99, 40000 ms, so the value
 * stays finite once the fleet saturates). p99 is p95 x ln(100) / ln(20) = 1.537 x p95, the
 * same exponential's ratio. The backlog's waiting time is added to both.
 */
export const UTILIZATION_CAP = 0.99;
export const P99_OVER_P95 = Math.log(100) / Math.log(20);

export function p95CurveMs(utilization: number, sloMs: number, sloUtilization: number): number {
  const u = Math.min(Math.max(utilization, 0), UTILIZATION_CAP);
  return (sloMs * (1 - sloUtilization)) / (1 - u);
}

export interface MinuteState {
  minute: number;
  requests: number;
  /** Work arriving in the minute, in requests (requests unless token-aware work is on). */
  work: number;
  ready: number;
  backlogIn: number;
  backlogOut: number;
}

export interface CurveParams {
  muSat: number;
  sloMs: number;
  sloUtilization: number;
}

/**
 * Writes one minute's datapoint into `out`, field by field in FIELDS order: the simulator's
 * feed calls this every simulated minute with a scratch array, so no object is built per
 * minute (datapointFor builds one from it).
 */
export function datapointInto(s: MinuteState, p: CurveParams, out: Float64Array): void {
  out[0] = s.minute;
  out[1] = s.minute * 60_000;
  out[2] = s.requests;
  out[6] = s.backlogOut;
  if (s.ready <= 0) {
    out[3] = 0;
    out.fill(Number.NaN, 4, 6);
    out.fill(Number.NaN, 7, 11);
    return;
  }
  const service = s.ready * p.muSat;
  const curve = p95CurveMs(s.work / service, p.sloMs, p.sloUtilization);
  // A request that finds the queue waits for it to drain: the worse of the minute's two ends.
  const waitMs = (Math.max(s.backlogIn, s.backlogOut) / service) * 60_000;
  const meanSeconds = (curve / Math.log(20) + waitMs) / 1000;
  out[3] = s.ready;
  out[4] = s.requests / s.ready;
  out[5] = 100 * Math.min(1, (s.work + s.backlogIn) / service);
  out[7] = s.backlogOut / s.ready;
  out[8] = (s.requests / s.ready / 60) * meanSeconds;
  out[9] = curve + waitMs;
  out[10] = curve * P99_OVER_P95 + waitMs;
}

/** Derives one minute's datapoint from the fleet and the demand it met. */
export function datapointFor(s: MinuteState, p: CurveParams): Datapoint {
  const row = new Float64Array(FIELDS.length);
  datapointInto(s, p, row);
  return fromRow((c) => row[c]!);
}

/**
 * What a policy may read: the datapoints delivered so far, oldest first. A run's view only grows:
 * a datapoint once delivered never changes and count never falls, so a policy may count what it
 * has read instead of reading it again (target tracking's alarms do).
 */
export interface MetricsView {
  /** How many datapoints are visible now. */
  readonly count: number;
  /** The i-th visible datapoint (0 = the trace's first minute). */
  at(i: number): Datapoint;
  /** One field of the i-th visible datapoint, without building the datapoint (alarm windows read 15 a minute). */
  valueAt(i: number, field: keyof Datapoint): number;
  /** The newest visible datapoint, if any. */
  latest(): Datapoint | undefined;
}

/**
 * Datapoints the feed keeps: the newest 7 days (10,080). A policy reads the newest few (alarm
 * windows of 1 to 15 points, the failover monitor's 30-minute demand window) or each point once
 * as it arrives (governor's SLI ledger, the look-ahead's demand copy). Kept as one Float64Array
 * per field, not as objects: a year of minutes held 525,600 datapoint objects per run, promoted
 * to the old generation, and the backtest's 27 runs took its peak to 1.6 GB (issue 18; pinned
 * by tests/backtest/metrics.test.ts).
 */
export const FEED_KEEP_MINUTES = 7 * 1440;

const FIELDS = [
  'minute',
  'timestamp',
  'requests',
  'ready',
  'invocationsPerInstance',
  'gpuUtilization',
  'queueDepth',
  'queueDepthPerInstance',
  'concurrencyPerInstance',
  'p95LatencyMs',
  'p99LatencyMs',
] as const satisfies readonly (keyof Datapoint)[];
const COLUMN = Object.fromEntries(FIELDS.map((f, c) => [f, c])) as Record<keyof Datapoint, number>;

function fromRow(v: (column: number) => number): Datapoint {
  return {
    minute: v(0),
    timestamp: v(1),
    requests: v(2),
    ready: v(3),
    invocationsPerInstance: v(4),
    gpuUtilization: v(5),
    queueDepth: v(6),
    queueDepthPerInstance: v(7),
    concurrencyPerInstance: v(8),
    p95LatencyMs: v(9),
    p99LatencyMs: v(10),
  };
}

/**
 * The feed: every datapoint is recorded when its minute ends; at minute m the visible ones are
 * those of minutes 0 .. m - 1 - metricDelayMinutes (BACKTEST.md: the datapoint of minute j is
 * visible at the start of minute j + 1 + delay). With delay 1, the policy deciding at minute 10
 * sees minutes 0..8 (pinned by tests/backtest/tick.test.ts). Only the newest FEED_KEEP_MINUTES
 * recorded can be read, from a ring; at() builds the datapoint it returns.
 */
export class MetricsFeed implements MetricsView {
  readonly #columns = FIELDS.map(() => new Float64Array(FEED_KEEP_MINUTES));
  readonly #row = new Float64Array(FIELDS.length);
  #recorded = 0;
  readonly #delay: number;
  #count = 0;
  /** The datapoint at() built last, and its index: policies read the newest one several times a minute. */
  #built: Datapoint | undefined;
  #builtAt = -1;

  constructor(metricDelayMinutes: number) {
    this.#delay = metricDelayMinutes;
  }

  get count(): number {
    return this.#count;
  }

  /** Makes the feed show what is visible at the start of `minute`. */
  advanceTo(minute: number): void {
    this.#count = Math.min(this.#recorded, Math.max(0, minute - this.#delay));
  }

  record(point: Datapoint): void {
    const slot = this.#recorded % FEED_KEEP_MINUTES;
    FIELDS.forEach((f, c) => {
      this.#columns[c]![slot] = point[f];
    });
    this.#recorded++;
  }

  /** Records the datapoint of a minute the simulator ran (datapointFor's values, no object built). */
  recordMinute(s: MinuteState, p: CurveParams): void {
    const slot = this.#recorded % FEED_KEEP_MINUTES;
    const row = this.#row;
    datapointInto(s, p, row);
    for (let c = 0; c < row.length; c++) this.#columns[c]![slot] = row[c]!;
    this.#recorded++;
  }

  #slot(i: number): number {
    if (!Number.isInteger(i) || i < 0 || i >= this.#count) {
      throw new RangeError(`datapoint ${i} is not visible (only 0..${this.#count - 1} are)`);
    }
    if (i < this.#recorded - FEED_KEEP_MINUTES) {
      throw new RangeError(
        `datapoint ${i} was dropped: the feed keeps the newest ${FEED_KEEP_MINUTES} minutes (from ${this.#recorded - FEED_KEEP_MINUTES})`,
      );
    }
    return i % FEED_KEEP_MINUTES;
  }

  at(i: number): Datapoint {
    const slot = this.#slot(i);
    if (i === this.#builtAt) return this.#built!;
    const c = this.#columns;
    this.#built = fromRow((column) => c[column]![slot]!);
    this.#builtAt = i;
    return this.#built;
  }

  valueAt(i: number, field: keyof Datapoint): number {
    return this.#columns[COLUMN[field]]![this.#slot(i)]!;
  }

  latest(): Datapoint | undefined {
    return this.#count > 0 ? this.at(this.#count - 1) : undefined;
  }
}
