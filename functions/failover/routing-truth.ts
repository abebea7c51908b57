/**
 * The routing as it is, read every evaluation through the three routing adapters' read modules
 * (Route 53 weights, ARC routing control states, Global Accelerator dials) and mapped back to
 * regions with the policy's set identifiers, control ARNs and endpoint group ARNs (issue 18:
 * reconcile, don't remember). Reads only: the act function alone moves traffic, and the grant
 * check holds this function's role to ListResourceRecordSets, GetRoutingControlState and
 * DescribeEndpointGroup. Clients are built at first use, once per container.
 */
import type { ClientOptions } from '../../shared/aws/clients.ts';
import {
  globalAcceleratorClient,
  globalAcceleratorDialReads,
} from '../../shared/aws/routing-accelerator-read.ts';
import { arcClusterClients, arcControlReads } from '../../shared/aws/routing-arc-read.ts';
import { route53Client, route53WeightReads } from '../../shared/aws/routing-route53-read.ts';
import type { RoutingTruth } from '../../shared/failover/truth.ts';
import type { FailoverRouting } from '../../shared/policy/failover-schema.ts';

export interface RoutingReadPort {
  /** The routing of `regions` as it is now; throws when it cannot be read. */
  read(routing: FailoverRouting, regions: readonly string[]): Promise<RoutingTruth>;
}

/** Values keyed by the routing's identifiers -> by region (a region whose identifier is absent is left out). Pure. */
export function byRegion<T>(
  ids: Readonly<Record<string, string>>,
  regions: readonly string[],
  values: Readonly<Record<string, T>>,
): Record<string, T> {
  const out: Record<string, T> = {};
  for (const r of regions) {
    const id = ids[r];
    if (id !== undefined && Object.hasOwn(values, id)) out[r] = values[id]!;
  }
  return out;
}

const idsOf = (ids: Readonly<Record<string, string>>, regions: readonly string[]) =>
  regions.flatMap((r) => (ids[r] === undefined ? [] : [ids[r]]));

export function awsRoutingReads(options: ClientOptions): RoutingReadPort {
  let route53: ReturnType<typeof route53WeightReads> | undefined;
  let dials: ReturnType<typeof globalAcceleratorDialReads> | undefined;
  let arc: ReturnType<typeof arcClusterClients> | undefined;
  return {
    async read(routing, regions) {
      if (routing.kind === 'route53-weighted') {
        route53 ??= route53WeightReads(route53Client(options));
        const weights = await route53.weights({
          hostedZoneId: routing.hostedZoneId,
          name: routing.recordName,
          type: routing.recordType,
        });
        return { kind: routing.kind, weights: byRegion(routing.setIdentifiers, regions, weights) };
      }
      if (routing.kind === 'arc-routing-controls') {
        arc ??= arcClusterClients(options);
        const endpoints = routing.clusterEndpoints.map((e) => ({ url: e.endpoint, region: e.region }));
        const states = await arcControlReads(arc, endpoints).states(idsOf(routing.routingControls, regions));
        const on = byRegion(routing.routingControls, regions, states);
        return {
          kind: routing.kind,
          on: Object.fromEntries(Object.entries(on).map(([r, s]) => [r, s === 'On'])),
        };
      }
      dials ??= globalAcceleratorDialReads(globalAcceleratorClient(options));
      const read = await dials.dials(idsOf(routing.endpointGroups, regions));
      return { kind: routing.kind, dials: byRegion(routing.endpointGroups, regions, read) };
    },
  };
}
