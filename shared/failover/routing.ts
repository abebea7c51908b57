/**
 * Weights to the routing action of the group's routing kind. The weights travel in every action,
 * so a backtest can read them whatever the kind; the AWS shell maps regions to the identifiers in
 * the policy (record SetIdentifiers, routing control ARNs, endpoint group ARNs).
 */
import type { FailoverRoutingKind } from '../policy/failover-schema.ts';
import type { RoutingAction, Weights } from './types.ts';

/**
 * - route53-weighted: the weights as they are.
 * - arc-routing-controls: routing controls are on or off, so a region with any weight is on.
 *   Mid-shift both regions are on and the records behind the controls split the traffic; the
 *   last step turns the source off.
 * - global-accelerator: a traffic dial is the share of a region's own (nearby) traffic its
 *   endpoint group keeps; the rest goes to the other groups. The source's dial is its weight over
 *   its base weight (primary 100 -> 50 at the 50 % step: dial 50); a receiving region's dial is
 *   100; a region with weight 0 is dialled to 0.
 */
export function routingAction(
  kind: FailoverRoutingKind,
  groupId: string,
  weights: Weights,
  base: Weights,
): RoutingAction {
  const regions = Object.keys(weights).sort();
  switch (kind) {
    case 'route53-weighted':
      return { kind: 'set-weights', groupId, weights };
    case 'arc-routing-controls':
      return {
        kind: 'set-routing-controls',
        groupId,
        on: regions.filter((r) => (weights[r] ?? 0) > 0),
        off: regions.filter((r) => (weights[r] ?? 0) === 0),
        weights,
      };
    case 'global-accelerator': {
      const dials: Record<string, number> = {};
      for (const r of regions) {
        const w = weights[r] ?? 0;
        const b = base[r] ?? 0;
        dials[r] = w === 0 ? 0 : w < b ? Math.round((100 * w) / b) : 100;
      }
      return { kind: 'set-dials', groupId, dials, weights };
    }
  }
}
