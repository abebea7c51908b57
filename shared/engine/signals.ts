/**
 * Reads each configured signal against its target: fresh or missing, above, within or below
 * its band, and the capacity it alone would ask for.
 */

import {
  isLatencySignal,
  type LatencySignal,
  type ProportionalSignal,
  type TargetPolicy,
} from '../policy/schema.ts';
import { relativeNoise } from '../sizing/noise-model.ts';
import type { Reading, SignalAssessment, SignalSnapshot } from './types.ts';

/** Rounds up, ignoring float noise: 3 x (100 / 100) must stay 3, not become 4. */
export const ceilCapacity = (x: number): number => Math.max(0, Math.ceil(x - 1e-9));

function freshValue(reading: Reading | undefined, staleAfterSeconds: number, now: number): number | null {
  if (!reading || !Number.isFinite(reading.value) || reading.value < 0) return null;
  if (now - reading.timestamp > staleAfterSeconds * 1000) return null;
  return reading.value;
}

const ageSeconds = (reading: Reading | undefined, now: number): number | null =>
  reading ? Math.max(0, (now - reading.timestamp) / 1000) : null;

/** Instances the per-instance value describes (see Reading.basis). */
export function basisOf(reading: Reading | undefined, snap: SignalSnapshot): number {
  if (reading?.basis !== undefined && reading.basis > 0) return reading.basis;
  return snap.capacity.ready > 0 ? snap.capacity.ready : snap.capacity.desired;
}

/** A band this wide leaves nothing to act on: 0.9 is the schema's largest tolerance too. */
const MAX_BAND = 0.9;

/**
 * The dead band of a proportional signal: its tolerance, widened for invocationsPerInstance to
 * noise.bandSigmas of the load's measured relative noise where that is wider. Worked example:
 * 20 requests a minute of count noise (a = 1, b = 0) have a relative deviation of 0.22, so with
 * bandSigmas 1 a 10 % tolerance becomes 22 % at that load, and stays 10 % at 2,000 (0.02).
 */
export function bandFor(
  policy: TargetPolicy,
  s: ProportionalSignal,
  load: number,
  snap: SignalSnapshot,
): number {
  const noise = snap.noise;
  const sigmas = policy.noise?.enabled ? policy.noise.bandSigmas : 0;
  if (!noise || sigmas === 0 || s.metric !== 'invocationsPerInstance') return s.tolerance;
  return Math.min(MAX_BAND, Math.max(s.tolerance, sigmas * relativeNoise(noise, load)));
}

/**
 * A signal at or above the panic threshold breaches even inside a wider band: with panic at
 * 1.5x and tolerance 0.6, a ratio of 1.55 would otherwise fire panic (blocking scale-in) yet
 * never scale out.
 */
function assessProportional(
  policy: TargetPolicy,
  s: ProportionalSignal,
  snap: SignalSnapshot,
  now: number,
  panicAt: number,
): SignalAssessment {
  const kind = 'load' as const;
  const reading = snap.readings[s.metric];
  const value = freshValue(reading, s.staleAfterSeconds, now);
  const age = ageSeconds(reading, now);
  if (value === null) {
    return {
      metric: s.metric,
      kind,
      status: 'missing',
      value: null,
      target: s.target,
      ratio: null,
      proposal: null,
      ageSeconds: age,
    };
  }
  const ratio = value / s.target;
  const tolerance = bandFor(policy, s, value * basisOf(reading, snap), snap);
  // Above the target the band widens only while a forecast floor covers the lead time: that
  // floor then moves with the level and holds its noise. Before a forecast (a level floor is an
  // hour old at worst) a sustained rise must scale out as the tolerance says, as soon as target
  // tracking would.
  const above =
    snap.forecastFloor && (snap.forecastFloor.kind ?? 'forecast') === 'forecast' ? tolerance : s.tolerance;
  const status = ratio > 1 + above || ratio >= panicAt ? 'high' : ratio < 1 - tolerance ? 'low' : 'within';
  const proposal = ceilCapacity(basisOf(reading, snap) * ratio);
  const assessed: SignalAssessment = {
    metric: s.metric,
    kind,
    status,
    value,
    target: s.target,
    ratio,
    proposal,
    ageSeconds: age,
  };
  // Set, not spread into a copy (every simulated minute); the key comes last either way.
  if (tolerance > s.tolerance) assessed.noiseBand = tolerance;
  return assessed;
}

/**
 * Latency is not proportional to load (it is flat, then climbs steeply near saturation), so it
 * guards instead of tracking: above sloMs x (1 + tolerance) it asks for capacity in proportion
 * to the excess, capped at maxScaleOutFactor; above scaleInBlockFraction x sloMs it blocks
 * scale-in ('guarding'); below that it agrees to scale in but never says by how much.
 */
function assessLatency(s: LatencySignal, snap: SignalSnapshot, now: number): SignalAssessment {
  const kind = 'latency' as const;
  const reading = snap.readings[s.metric];
  const value = freshValue(reading, s.staleAfterSeconds, now);
  const age = ageSeconds(reading, now);
  if (value === null) {
    return {
      metric: s.metric,
      kind,
      status: 'missing',
      value: null,
      target: s.sloMs,
      ratio: null,
      proposal: null,
      ageSeconds: age,
    };
  }
  const ratio = value / s.sloMs;
  if (ratio > 1 + s.tolerance) {
    const proposal = ceilCapacity(basisOf(reading, snap) * Math.min(s.maxScaleOutFactor, ratio));
    return {
      metric: s.metric,
      kind,
      status: 'high',
      value,
      target: s.sloMs,
      ratio,
      proposal,
      ageSeconds: age,
    };
  }
  const status = ratio > s.scaleInBlockFraction ? 'guarding' : 'low';
  return { metric: s.metric, kind, status, value, target: s.sloMs, ratio, proposal: null, ageSeconds: age };
}

export function assessSignals(policy: TargetPolicy, snap: SignalSnapshot, now: number): SignalAssessment[] {
  const panicAt = policy.panic.enabled ? policy.panic.threshold : Number.POSITIVE_INFINITY;
  return policy.signals.map((s) =>
    isLatencySignal(s) ? assessLatency(s, snap, now) : assessProportional(policy, s, snap, now, panicAt),
  );
}

/** Whether the target may go to zero now: its activation total is fresh and at or below threshold. */
export function activationIdle(policy: TargetPolicy, snap: SignalSnapshot, now: number): boolean | null {
  const a = policy.scaling.activation;
  if (!a) return null;
  const value = freshValue(snap.activation?.[a.metric], a.staleAfterSeconds, now);
  if (value === null) return null;
  return value <= a.threshold;
}
