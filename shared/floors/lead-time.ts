/**
 * The provisioning lead time, measured: how long the target's own scale-outs took from being
 * asked for to serving, and the lead the forecast floor must then cover. Pure; times are epoch
 * milliseconds, durations minutes. The AWS side records samples (the evaluator and the
 * scale-target state machine, shared/state/lead-samples.ts); the backtest imports this too.
 *
 * Worked example (configured 10, metric delay 1, at least 3 samples):
 *   measured 12.0 13.0 13.0 14.0 13.5 minutes -> p90 (linear between order statistics) 13.8
 *   -> ceil(13.8) + 1 = 15 > 10: lead 15, source 'measured'
 *   measured 6 7 -> 2 samples, fewer than 3: lead 10, source 'configured'
 *   measured 6 7 8 -> p90 7.8 -> ceil + 1 = 9 <= 10: lead 10, source 'configured'
 * Pinned by tests/control/lead-time.test.ts.
 */
import { quantileOfSorted, sortedFinite } from '../forecast/stats.ts';

/** One observed scale-out: when it was asked for and when the capacity served (epoch ms). */
export interface LeadSample {
  requestedAt: number;
  servingAt: number;
}

export interface EffectiveLead {
  /** Minutes the floor must cover: max(configured, ceil(p90 of measured provisioning minutes) + metric delay). */
  minutes: number;
  configuredMinutes: number;
  /** p90 of the measured request-to-serving minutes, null with fewer than minSamples samples. */
  measuredP90Minutes: number | null;
  samples: number;
  source: 'configured' | 'measured';
  /** One sentence with the numbers, e.g. "lead time 16 min: p90 of 12 measured scale-outs is 14.8 min + 1 min metric delay, above the configured 10". */
  message: string;
}

/** Minutes from a scale-out serving to the metrics showing it (CloudWatch publishes a minute late). */
export const LEAD_METRIC_DELAY_MINUTES = 1;
/** Fewer measured scale-outs than this and the configured lead stands: one slow start is not a trend. */
export const LEAD_MIN_SAMPLES = 3;
/** The newest scale-outs kept and measured: about a week of a daily ramp, so drift shows within days. */
export const LEAD_MAX_SAMPLES = 20; // the newest ones are kept

const MINUTE_MS = 60_000;
const QUANTILE = 0.9;

const valid = (s: LeadSample): boolean =>
  Number.isFinite(s.requestedAt) && Number.isFinite(s.servingAt) && s.servingAt >= s.requestedAt;

/** The valid samples, oldest first (by requestedAt; ties keep their order), at most the newest `max`. */
function newestValid(samples: readonly LeadSample[], max: number): LeadSample[] {
  return samples
    .filter(valid)
    .map((s, i) => ({ s, i }))
    .sort((a, b) => a.s.requestedAt - b.s.requestedAt || a.i - b.i)
    .map(({ s }) => s)
    .slice(-max);
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * The lead the floor must cover. Never below the configured lead: a fleet that starts faster
 * than configured keeps the operator's margin. The ceiling is taken before the delay is added,
 * so 13.0 measured minutes are 14 and 13.01 are 15 (the 1e-9 keeps 13 from becoming 14 through
 * floating point).
 */
export function effectiveLead(
  configuredMinutes: number,
  samples: readonly LeadSample[],
  options: { metricDelayMinutes?: number; minSamples?: number } = {},
): EffectiveLead {
  const delay = options.metricDelayMinutes ?? LEAD_METRIC_DELAY_MINUTES;
  const minSamples = Math.max(1, options.minSamples ?? LEAD_MIN_SAMPLES);
  const kept = newestValid(samples, LEAD_MAX_SAMPLES);
  const base = { configuredMinutes, samples: kept.length };
  const configured = `lead time ${configuredMinutes} min (configured)`;
  if (kept.length < minSamples) {
    const why =
      kept.length === 0
        ? 'no measured scale-out yet'
        : `${plural(kept.length, 'measured scale-out')}, fewer than the ${minSamples} needed`;
    return {
      ...base,
      minutes: configuredMinutes,
      measuredP90Minutes: null,
      source: 'configured',
      message: `${configured}: ${why}`,
    };
  }
  const p90 = quantileOfSorted(
    sortedFinite(kept.map((s) => (s.servingAt - s.requestedAt) / MINUTE_MS)),
    QUANTILE,
  );
  const measured = Math.ceil(p90 - 1e-9) + delay;
  const evidence = `p90 of ${plural(kept.length, 'measured scale-out')} is ${p90.toFixed(1)} min + ${delay} min metric delay`;
  if (measured > configuredMinutes) {
    return {
      ...base,
      minutes: measured,
      measuredP90Minutes: p90,
      source: 'measured',
      message: `lead time ${measured} min: ${evidence}, above the configured ${configuredMinutes}`,
    };
  }
  return {
    ...base,
    minutes: configuredMinutes,
    measuredP90Minutes: p90,
    source: 'configured',
    message: `${configured}: ${evidence}, within the configured ${configuredMinutes}`,
  };
}

/**
 * Appends a sample, drops malformed ones (servingAt before requestedAt, non-finite) and keeps
 * the newest LEAD_MAX_SAMPLES, oldest first. One sample per scale-out: a sample whose
 * requestedAt is already kept is not added again (of the two, the earlier servingAt stays).
 */
export function addLeadSample(samples: readonly LeadSample[], sample: LeadSample): LeadSample[] {
  const byRequest = new Map<number, LeadSample>();
  for (const s of [...samples, sample].filter(valid)) {
    const seen = byRequest.get(s.requestedAt);
    if (!seen || s.servingAt < seen.servingAt)
      byRequest.set(s.requestedAt, { requestedAt: s.requestedAt, servingAt: s.servingAt });
  }
  return newestValid([...byRequest.values()], LEAD_MAX_SAMPLES);
}
