/**
 * The routing as it is, by region, and how it compares with the planner's intent (issue 18,
 * item 1: reconcile, don't remember). The shell reads it every evaluation through the routing
 * adapters (functions/failover/routing-truth.ts) and maps set identifiers, routing control ARNs and
 * endpoint group ARNs back to regions; this module only compares. Pure.
 *
 * Compared in each kind's own terms, since that is all the routing holds:
 * - route53-weighted: every region's record weight equals its intended percent;
 * - arc-routing-controls: a region's control is On exactly when its intended weight is above 0
 *   (mid-shift both are On: ARC cannot tell 90/10 from 50/50, the records behind it do);
 * - global-accelerator: every region's dial equals the dial `routingAction` derives (./routing.ts).
 */
import type { FailoverRoutingKind } from '../policy/failover-schema.ts';
import { routingAction } from './routing.ts';
import type { Weights } from './types.ts';

export type RoutingTruth =
  | { kind: 'route53-weighted'; weights: Record<string, number> }
  | { kind: 'arc-routing-controls'; on: Record<string, boolean> }
  | { kind: 'global-accelerator'; dials: Record<string, number> };

/** Each region's routing value as the kind holds it: a weight, 1/0 for On/Off, or a dial. */
function values(truth: RoutingTruth): Record<string, number> {
  if (truth.kind === 'route53-weighted') return truth.weights;
  if (truth.kind === 'global-accelerator') return truth.dials;
  return Object.fromEntries(Object.entries(truth.on).map(([r, on]) => [r, on ? 1 : 0]));
}

/** The intent in the same terms as `values(truth)`. */
function intended(kind: FailoverRoutingKind, intent: Weights, base: Weights): Record<string, number> {
  const a = routingAction(kind, '', intent, base);
  if (a.kind === 'set-weights') return a.weights;
  if (a.kind === 'set-dials') return a.dials;
  return Object.fromEntries(Object.keys(intent).map((r) => [r, a.on.includes(r) ? 1 : 0]));
}

/** The regions where the routing differs from the intent (a region missing from the truth differs). */
export function driftedRegions(intent: Weights, base: Weights, truth: RoutingTruth): string[] {
  const want = intended(truth.kind, intent, base);
  const have = values(truth);
  return Object.keys(want)
    .sort()
    .filter((r) => have[r] !== want[r]);
}

export const inSync = (intent: Weights, base: Weights, truth: RoutingTruth): boolean =>
  driftedRegions(intent, base, truth).length === 0;

/** Regions the intent sends more than the routing does now: the ones a redo must check. */
export function risingRegions(intent: Weights, base: Weights, truth: RoutingTruth): string[] {
  const want = intended(truth.kind, intent, base);
  const have = values(truth);
  return Object.keys(want)
    .sort()
    .filter((r) => (want[r] ?? 0) > (have[r] ?? 0));
}

/** 'us-east-1 50, us-west-2 50' (weights), 'us-east-1 On, us-west-2 Off' or '... dial 100 %'. */
export function describeTruth(truth: RoutingTruth): string {
  const v = values(truth);
  const unit = (n: number) =>
    truth.kind === 'arc-routing-controls'
      ? n
        ? 'On'
        : 'Off'
      : truth.kind === 'global-accelerator'
        ? `dial ${n} %`
        : `${n}`;
  return Object.keys(v)
    .sort()
    .map((r) => `${r} ${unit(v[r]!)}`)
    .join(', ');
}
