/**
 * What `governor tune` may change in a target, and the values it tries: the parameters the
 * issue names (bands, breach counts, windows, cooldowns, headroom, forecast quantile and margin,
 * standby), each a path into the policy file and a short list of values an operator would
 * consider. Headroom values are fractions of the instance's SLO capacity when the target has
 * instanceCapacity, so the grid means the same for a 120-request and a 4,000-request instance.
 * Only knobs the target can use are offered: no forecast knobs without a forecast section, no
 * error-budget bounds without the SLO control.
 */
import { appendAll } from '../arrays/extent.ts';
import type { TargetPolicy } from '../policy/schema.ts';
import { sloOf } from '../slo/objective.ts';

export type KnobValue = number | string;

export interface Knob {
  /** Short name, as the report shows it: `target`, `scaleInBreaches`. */
  name: string;
  /** Path inside the target (as in the policy file): ['damping', 'scaleInBreaches']. */
  path: (string | number)[];
  /** Values tried, in order. */
  values: readonly KnobValue[];
  /** The value the target runs with when the path is absent (a section left to its defaults). */
  fallback?: KnobValue;
}

const round = (x: number) => Math.round(x * 10) / 10;

/** The values with the target's own among them (sorted), so the starting policy is on the grid. */
const withCurrent = (values: number[], current: number) =>
  values.includes(current) ? values : [...values, current].sort((a, b) => a - b);

/**
 * The error-budget control's bounds (shared/slo/): how far it may tighten the load targets while
 * the budget burns (minTargetFactor: 0.3 holds a target of 75 at 22.5) and loosen them while it
 * is spare (maxTargetFactor: 1.3 runs 75 at 97.5). A lower floor buys the budget back faster
 * after a burst (Twitter's bursts need about 0.33, docs/slo.md); a higher ceiling spends a spare
 * budget on cost. freshStepShare: how gently a fresh budget's first bad minutes tighten (0.4 of a
 * step by default; 1, full steps always). The policy's own value (or the default) is always among
 * the values.
 */
function sloKnobs(t: TargetPolicy): Knob[] {
  const control = sloOf(t).control;
  if (!control) return [];
  return [
    {
      name: 'minTargetFactor',
      path: ['slo', 'control', 'minTargetFactor'],
      values: withCurrent([0.2, 0.3, 0.4, 0.5, 0.6, 0.8], control.minTargetFactor),
      fallback: control.minTargetFactor,
    },
    {
      name: 'maxTargetFactor',
      path: ['slo', 'control', 'maxTargetFactor'],
      values: withCurrent([1, 1.1, 1.2, 1.3, 1.5], control.maxTargetFactor),
      fallback: control.maxTargetFactor,
    },
    {
      name: 'freshStepShare',
      path: ['slo', 'control', 'freshStepShare'],
      values: withCurrent([0.2, 0.3, 0.4, 0.6, 1], control.freshStepShare),
      fallback: control.freshStepShare,
    },
  ];
}

/** The knobs for one target, with values scaled to its instance capacity. */
export function knobsFor(t: TargetPolicy): Knob[] {
  const knobs: Knob[] = [];
  const capacity = t.instanceCapacity?.requestsPerMinuteAtSlo;
  const inv = t.signals.findIndex((s) => s.metric === 'invocationsPerInstance');
  if (inv >= 0) {
    const current = (t.signals[inv] as { target: number }).target;
    const targets = capacity
      ? [0.5, 0.55, 0.6, 0.625, 0.65, 0.7, 0.75, 0.8, 0.85].map((f) => round(f * capacity))
      : [0.7, 0.8, 0.9, 1, 1.1, 1.2].map((f) => round(f * current));
    knobs.push({ name: 'target', path: ['signals', inv, 'target'], values: targets });
    knobs.push({
      name: 'tolerance',
      path: ['signals', inv, 'tolerance'],
      values: [0.03, 0.05, 0.1, 0.15, 0.2, 0.3],
    });
  }
  knobs.push(
    { name: 'scaleOutBreaches', path: ['damping', 'scaleOutBreaches'], values: [1, 2, 3, 4, 5] },
    { name: 'scaleInBreaches', path: ['damping', 'scaleInBreaches'], values: [3, 5, 6, 8, 10, 15] },
    {
      name: 'scaleInStabilizationSeconds',
      path: ['damping', 'scaleInStabilizationSeconds'],
      values: [120, 300, 600, 900, 1800],
    },
    {
      name: 'scaleInCooldownSeconds',
      path: ['damping', 'scaleInCooldownSeconds'],
      values: [60, 180, 300, 600, 900],
    },
    {
      name: 'scaleOutCooldownSeconds',
      path: ['damping', 'scaleOutCooldownSeconds'],
      values: [0, 60, 120, 300],
    },
    { name: 'panicThreshold', path: ['panic', 'threshold'], values: [1.5, 2, 3] },
    { name: 'panicStableWindowSeconds', path: ['panic', 'stableWindowSeconds'], values: [60, 300, 600] },
  );
  if (t.forecast?.enabled) {
    knobs.push({ name: 'forecastQuantile', path: ['forecast', 'quantile'], values: ['p50', 'p90'] });
    if (capacity) {
      knobs.push({
        name: 'forecastRequestsPerInstance',
        path: ['forecast', 'requestsPerInstance'],
        values: [0.5, 0.6, 0.625, 0.7, 0.8, 0.9, 1].map((f) => round(f * capacity)),
      });
    }
  }
  if (t.noise?.enabled && capacity) {
    knobs.push(
      { name: 'floorSigmas', path: ['noise', 'floorSigmas'], values: [0, 1.65, 2, 2.33, 2.6, 3] },
      { name: 'bandSigmas', path: ['noise', 'bandSigmas'], values: [0, 0.5, 1, 1.5, 2] },
    );
  }
  if (t.warmPool?.enabled) {
    knobs.push({ name: 'standby', path: ['warmPool', 'maxSize'], values: [0, 1, 2, 4] });
  }
  appendAll(knobs, sloKnobs(t));
  return knobs;
}

/** The value at a knob's path in a target (raw JSON or parsed), or undefined. */
export function readKnob(target: unknown, knob: Knob): KnobValue | undefined {
  let at: unknown = target;
  for (const key of knob.path) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Record<string | number, unknown>)[key];
  }
  return typeof at === 'number' || typeof at === 'string' ? at : undefined;
}

/** The value a target runs with at a knob: written, or the default it falls back to. */
export const startValue = (target: TargetPolicy, knob: Knob): KnobValue | undefined =>
  readKnob(target, knob) ?? knob.fallback;

/** A copy of the raw target with each knob set (parents created as needed). */
export function applyKnobs(
  raw: Record<string, unknown>,
  settings: ReadonlyMap<string, KnobValue>,
  knobs: readonly Knob[],
) {
  const out = structuredClone(raw);
  for (const knob of knobs) {
    const value = settings.get(knob.name);
    if (value === undefined) continue;
    let at: Record<string | number, unknown> = out;
    knob.path.slice(0, -1).forEach((key, i) => {
      const next = at[key];
      if (next === null || typeof next !== 'object') at[key] = typeof knob.path[i + 1] === 'number' ? [] : {};
      at = at[key] as Record<string | number, unknown>;
    });
    at[knob.path.at(-1)!] = value;
  }
  // Scale-in must wait at least as long as scale-out (a cross-field rule): keep the pair valid.
  const damping = out.damping as Record<string, number> | undefined;
  if (damping && damping.scaleInBreaches !== undefined && damping.scaleOutBreaches !== undefined)
    damping.scaleInBreaches = Math.max(damping.scaleInBreaches, damping.scaleOutBreaches);
  return out;
}
