/**
 * A target's SLO as the controller and the judges use it: the policy's slo section, or the
 * default objective (99.5 % of minutes over 30 days) for a target that has a latency signal and
 * no section. The SLI's threshold is the latency signal's sloMs (p95 first, else p99).
 */
import { isLatencySignal, type LatencySignal, type TargetPolicy } from '../policy/schema.ts';
import { type SloControl, SloSchema } from '../policy/slo-schema.ts';

export interface ResolvedSlo {
  /** Share of minutes that must be good. */
  minutes: number;
  /** Share of requests that must be good, when the policy asks for it. */
  requests?: number;
  windowMinutes: number;
  /** The SLI's threshold and the signal it reads; null: the target has no latency signal. */
  sli: { metric: LatencySignal['metric']; sloMs: number } | null;
  /** The error-budget control; null when off or when there is no SLI to drive it. */
  control: SloControl | null;
  /** Where the objective came from. */
  source: 'policy' | 'default';
}

const DEFAULT_SLO = SloSchema.parse({});

function latencySignal(t: TargetPolicy): LatencySignal | undefined {
  const latency = t.signals.filter(isLatencySignal);
  return latency.find((s) => s.metric === 'p95LatencyMs') ?? latency[0];
}

export function sloOf(t: TargetPolicy): ResolvedSlo {
  const slo = t.slo ?? DEFAULT_SLO;
  const signal = latencySignal(t);
  const sli = signal ? { metric: signal.metric, sloMs: signal.sloMs } : null;
  return {
    minutes: slo.objective.minutes,
    ...(slo.objective.requests !== undefined ? { requests: slo.objective.requests } : {}),
    windowMinutes: slo.windowDays * 1440,
    sli,
    control: sli && slo.control.enabled ? slo.control : null,
    source: t.slo ? 'policy' : 'default',
  };
}

/** "99.5 % of minutes (and 99 % of requests) over 30 days". */
export function describeObjective(slo: ResolvedSlo): string {
  const pct = (x: number) => `${Number((x * 100).toFixed(3))} %`;
  const requests = slo.requests !== undefined ? ` and ${pct(slo.requests)} of requests` : '';
  return `${pct(slo.minutes)} of minutes${requests} within the SLO over ${slo.windowMinutes / 1440} days`;
}
