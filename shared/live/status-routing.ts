/**
 * What the routing service of a failover group says now, by region, for `governor status`: the
 * truth beside the planner's intent (the weights it last applied). Read through the failover act
 * function's own adapters (shared/aws/routing-*.ts), reads only: Route 53 weights by set
 * identifier, Global Accelerator traffic dials by endpoint group, ARC routing controls On/Off.
 */
import type { TrafficDialsPort } from '../aws/routing-accelerator.ts';
import type { ClusterEndpoint, RoutingControlsPort } from '../aws/routing-arc.ts';
import type { WeightedRecordsPort } from '../aws/routing-route53.ts';
import type { FailoverGroup } from '../policy/failover-schema.ts';

export interface RoutingReaders {
  weightedRecords(): WeightedRecordsPort;
  trafficDials(): TrafficDialsPort;
  routingControls(endpoints: readonly ClusterEndpoint[]): RoutingControlsPort;
}

/** Values keyed by the service's ids, keyed back by region (an id read but not mapped is left out). */
function byRegion<T>(ids: Readonly<Record<string, string>>, values: Readonly<Record<string, T>>) {
  const out: Record<string, T> = {};
  for (const [region, id] of Object.entries(ids)) if (values[id] !== undefined) out[region] = values[id];
  return out;
}

export async function routingTruth(
  readers: RoutingReaders,
  routing: FailoverGroup['routing'],
): Promise<Record<string, number | string>> {
  switch (routing.kind) {
    case 'route53-weighted': {
      const group = {
        hostedZoneId: routing.hostedZoneId,
        name: routing.recordName,
        type: routing.recordType,
      };
      return byRegion(routing.setIdentifiers, await readers.weightedRecords().weights(group));
    }
    case 'global-accelerator':
      return byRegion(
        routing.endpointGroups,
        await readers.trafficDials().dials(Object.values(routing.endpointGroups)),
      );
    case 'arc-routing-controls': {
      const endpoints = routing.clusterEndpoints.map((e) => ({ url: e.endpoint, region: e.region }));
      const states = await readers.routingControls(endpoints).states(Object.values(routing.routingControls));
      return byRegion(routing.routingControls, states);
    }
  }
}
