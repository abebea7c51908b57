/**
 * Region health from readings, with hysteresis: a period breaches when any fresh signal of the
 * application (error rate, p95, capacity errors) is past its threshold; Governor's own heartbeat
 * past its threshold alone makes the period unknown (it gates a failover, never triggers one: a
 * stale control plane beside a healthy endpoint is our blind spot, not an outage); a region
 * fails when N of its last M periods breached; it has recovered only
 * after R consecutive healthy periods (R > M). Missing or stale data makes a period unknown,
 * never breaching, so our own blind spot is never read as a region's outage.
 *
 * Idle: a region the weights send nothing has no requests to measure, so its error rate and p95
 * are missing for that reason alone (SageMaker publishes no Invocations datapoint for an idle
 * endpoint). When its other signals (capacity errors, Governor's heartbeat there) are fresh and
 * within, the period is `idle`, not unknown: nothing wrong is seen and nothing can be. An idle
 * region may take a failover's first step once its ready capacity serves that step (./plan.ts);
 * its real health is then judged by the checks between steps. An idle period is not `ok`: it never
 * counts toward `recovered` (a failed region taken out of traffic cannot prove it is fixed).
 *
 * Pure: history goes in (the verdicts of past periods) and comes out.
 */
import type { Reading } from '../engine/types.ts';
import type { FailoverHealthPolicy } from '../policy/failover-schema.ts';
import type {
  HealthStatus,
  PeriodVerdict,
  RegionHealth,
  RegionObservation,
  RegionReasonCode,
} from './types.ts';

export type VerdictHistory = [number, PeriodVerdict][];

export const fresh = (r: Reading | undefined, now: number, staleMs: number): r is Reading =>
  r !== undefined && Number.isFinite(r.value) && r.value >= 0 && now - r.timestamp <= staleMs;

const HEARTBEAT = 'heartbeatAgeSeconds';

/** Signals measured on the region's own requests: a region sent none has none to report. */
const TRAFFIC_SIGNALS: readonly string[] = ['errorRatePercent', 'p95LatencyMs'];

/**
 * This period's verdict and why: `breaching` and `missing` name the signals. `noTraffic`: the
 * weights last applied send the region nothing (weight 0), so missing traffic signals are idle.
 */
export function periodVerdict(
  obs: RegionObservation | undefined,
  h: FailoverHealthPolicy,
  now: number,
  noTraffic = false,
): { verdict: PeriodVerdict; breaching: string[]; missing: string[] } {
  const staleMs = h.staleAfterSeconds * 1000;
  const breaching: string[] = [];
  const missing: string[] = [];
  const check = (name: string, r: Reading | undefined, breaches: (v: number) => boolean, limit: string) => {
    if (!fresh(r, now, staleMs)) missing.push(name);
    else if (breaches(r.value)) breaching.push(`${name} ${round(r.value)} ${limit}`);
  };
  check('errorRatePercent', obs?.errorRatePercent, (v) => v > h.errorRatePercent, `> ${h.errorRatePercent}`);
  if (h.p95LatencyMs !== undefined) {
    const slo = h.p95LatencyMs;
    check('p95LatencyMs', obs?.p95LatencyMs, (v) => v > slo, `> ${slo}`);
  }
  check('capacityErrors', obs?.capacityErrors, (v) => v >= h.capacityErrors, `>= ${h.capacityErrors}`);
  const beat = obs?.heartbeat;
  const age = beat ? { value: (now - beat.lastBeatAt) / 1000, timestamp: beat.readAt } : undefined;
  check(HEARTBEAT, age, (v) => v > h.heartbeatAgeSeconds, `> ${h.heartbeatAgeSeconds}`);
  const idle = noTraffic && missing.length > 0 && missing.every((m) => TRAFFIC_SIGNALS.includes(m));
  // Governor's own heartbeat gates, never triggers (issue 18): stale alone, the period is unknown.
  const application = breaching.some((b) => !b.startsWith(HEARTBEAT));
  const verdict = application
    ? 'breach'
    : breaching.length > 0
      ? 'unknown'
      : missing.length === 0
        ? 'ok'
        : idle
          ? 'idle'
          : 'unknown';
  return { verdict, breaching, missing };
}

const round = (x: number) => (Number.isInteger(x) ? x : Math.round(x * 10) / 10);

/** Two looks within one period: a breach stands, then ok, then idle, then unknown. */
const RANK: Record<PeriodVerdict, number> = { breach: 3, ok: 2, idle: 1, unknown: 0 };
const merge = (a: PeriodVerdict, b: PeriodVerdict): PeriodVerdict => (RANK[a] >= RANK[b] ? a : b);

/**
 * Records this period's verdict. Periods are aligned to the epoch (start = floor(now / period));
 * a skipped period stays absent and reads as unknown.
 */
export function recordVerdict(
  history: VerdictHistory,
  verdict: PeriodVerdict,
  h: FailoverHealthPolicy,
  now: number,
): VerdictHistory {
  const periodMs = h.periodSeconds * 1000;
  const start = Math.floor(now / periodMs) * periodMs;
  const keepFrom = start - (Math.max(h.failWindowPeriods, h.recoverPeriods) - 1) * periodMs;
  const kept = history.filter(([t]) => t >= keepFrom && t <= start);
  const last = kept.at(-1);
  if (last && last[0] === start) return [...kept.slice(0, -1), [start, merge(last[1], verdict)]];
  return [...kept, [start, verdict]];
}

/** Status from the recorded periods, this one last. */
export function statusOf(
  history: VerdictHistory,
  h: FailoverHealthPolicy,
  now: number,
): { status: HealthStatus; recovered: boolean; breaches: number; okStreak: number; verdict: PeriodVerdict } {
  const periodMs = h.periodSeconds * 1000;
  const start = Math.floor(now / periodMs) * periodMs;
  const byStart = new Map(history);
  const at = (k: number): PeriodVerdict => byStart.get(start - k * periodMs) ?? 'unknown';
  let breaches = 0;
  for (let k = 0; k < h.failWindowPeriods; k++) if (at(k) === 'breach') breaches++;
  let okStreak = 0;
  while (okStreak < h.recoverPeriods && at(okStreak) === 'ok') okStreak++;
  const verdict = at(0);
  const status: HealthStatus =
    breaches >= h.failPeriods
      ? 'failed'
      : verdict === 'unknown'
        ? 'unknown'
        : breaches > 0
          ? 'degraded'
          : verdict === 'idle'
            ? 'idle'
            : 'healthy';
  return { status, recovered: okStreak >= h.recoverPeriods, breaches, okStreak, verdict };
}

const REASON: Record<HealthStatus, RegionReasonCode> = {
  healthy: 'RegionHealthy',
  degraded: 'RegionDegraded',
  failed: 'RegionFailed',
  unknown: 'RegionUnknown',
  idle: 'RegionIdle',
};

/** One region's health this period and its next verdict history. */
export function assessRegion(
  region: string,
  history: VerdictHistory,
  obs: RegionObservation | undefined,
  h: FailoverHealthPolicy,
  now: number,
  noTraffic = false,
): { health: RegionHealth; history: VerdictHistory } {
  const { verdict, breaching, missing } = periodVerdict(obs, h, now, noTraffic);
  const next = recordVerdict(history, verdict, h, now);
  const s = statusOf(next, h, now);
  const reasons: RegionReasonCode[] = [REASON[s.status]];
  if (s.recovered) reasons.push('RegionRecovered');
  const health: RegionHealth = { region, ...s, breaching, missing, reasons, message: '' };
  health.message = describeRegion(health, h);
  return { health, history: next };
}

function describeRegion(r: RegionHealth, h: FailoverHealthPolicy): string {
  const why =
    r.breaching.length > 0
      ? ` (this period: ${r.breaching.join(', ')})`
      : r.missing.length > 0
        ? ` (no fresh data for ${r.missing.join(', ')})`
        : '';
  const window = `${r.breaches} of the last ${h.failWindowPeriods} periods breached`;
  switch (r.status) {
    case 'failed':
      return `${r.region} has failed: ${window}, at least ${h.failPeriods}${why}.`;
    case 'unknown':
      return r.breaching.length > 0
        ? `${r.region} is unknown: only Governor's own heartbeat is stale there${why}, which holds a failover back but never starts one.`
        : `${r.region} is unknown: missing data is never read as a failure${why}.`;
    case 'idle':
      return `${r.region} is idle: it has no traffic, so ${r.missing.join(' and ')} cannot be measured; its other signals are fresh and within.`;
    case 'degraded':
      return `${r.region} is degraded: ${window}, fewer than ${h.failPeriods}${why}.`;
    case 'healthy':
      return r.recovered
        ? `${r.region} is healthy and has recovered: ${r.okStreak} healthy periods in a row.`
        : `${r.region} is healthy: ${r.okStreak} of ${h.recoverPeriods} healthy periods in a row needed to count as recovered.`;
  }
}

/**
 * The region serves nothing: it has no ready instance (capacity read, ready 0), or a fresh error
 * rate of 100 % (every request it was sent failed). Missing readings never say so: a region we
 * cannot see may still serve, and is stepped off with checks as usual.
 */
export function servesNothing(
  obs: RegionObservation | undefined,
  h: FailoverHealthPolicy,
  now: number,
): boolean {
  const errors = obs?.errorRatePercent;
  return (
    obs?.capacity?.ready === 0 || (fresh(errors, now, h.staleAfterSeconds * 1000) && errors.value >= 100)
  );
}
