/** Traces and policies the backtest's tests share. */
import type { Trace } from '#shared/backtest/trace.ts';
import { parsePolicyText } from '#shared/policy/load.ts';
import type { TargetPolicy } from '#shared/policy/schema.ts';

export const DAY = 1440;

/**
 * Days of a business-hours service: 40 requests a minute at night, a one-hour ramp from 07:30,
 * 400 until 20:00. With `wobble`, a few requests of deterministic wobble on each level.
 */
export function dailySteps(days: number, wobble = false): Trace {
  const requests = Array.from({ length: days * DAY }, (_, m) => {
    const hour = (m % DAY) / 60;
    if (hour < 7.5 || hour >= 20) return 40 + (wobble ? m % 7 : 0);
    return hour < 8.5 ? Math.round(40 + 360 * (hour - 7.5)) : 400 + (wobble ? m % 11 : 0);
  });
  return { name: 'daily-steps', resolution: 'minute', requests, inputTokens: null, outputTokens: null };
}

/** A per-minute trace of these requests, without tokens. */
export const minuteTrace = (name: string, requests: number[]): Trace => ({
  name,
  resolution: 'minute',
  requests,
  inputTokens: null,
  outputTokens: null,
});

/** One SageMaker variant target t with the given body lines (signals, scaling and more), parsed. */
export function variantTarget(body: string): TargetPolicy {
  const result = parsePolicyText(`
version: 1
targets:
  - id: t
    kind: sagemaker-variant
    region: us-east-1
    endpointName: e
${body}`);
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.policy.targets[0]!;
}
