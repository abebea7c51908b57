/** Every adapter the spot-events function uses, built from one set of SDK clients. */
import type { Clients } from '../../shared/aws/clients.ts';
import { type GroupWritesPort, groupWrites } from '../../shared/aws/group-capacity-writes.ts';
import { type GroupRetirementsPort, groupRetirements } from '../../shared/aws/group-retirements.ts';
import { dynamoMixItems, type MixItemPort } from '../../shared/aws/mix-item.ts';
import { type MixedInstancesPort, mixedInstancesAdapter } from '../../shared/aws/mixed-instances.ts';
import { type SpotGroupsPort, spotGroups } from '../../shared/aws/spot-events.ts';
import { dynamoSpotStore, type SpotStorePort } from '../../shared/aws/spot-store.ts';
import { ssmParameters } from '../../shared/aws/ssm.ts';
import type { ParametersPort } from '../../shared/policy-store/parameters.ts';

export interface SpotEventsPorts {
  parameters: ParametersPort;
  groups: SpotGroupsPort;
  /** SetDesiredCapacity: a Health retirement raises the group by one per instance first. */
  capacity: GroupWritesPort;
  /** TerminateInstanceInAutoScalingGroup: a retirement the group's MaxSize leaves no room for. */
  retirements: Pick<GroupRetirementsPort, 'terminate'>;
  mixedInstances: MixedInstancesPort;
  /** The target's one versioned item (mix state and SPOT state), shared with the mix function. */
  items: MixItemPort;
  /** The SPOT items of before issue 18, read only while an item has no `spot` yet. */
  legacySpot: Pick<SpotStorePort, 'getMany'>;
}

export function awsSpotEventsPorts(clients: Clients, tableName: string): SpotEventsPorts {
  return {
    parameters: ssmParameters(clients.home.ssm),
    groups: spotGroups(clients.autoScaling),
    capacity: groupWrites(clients.autoScaling),
    retirements: groupRetirements(clients.autoScaling),
    mixedInstances: mixedInstancesAdapter(clients.autoScaling),
    items: dynamoMixItems(clients.home.dynamo, tableName),
    legacySpot: dynamoSpotStore(clients.home.dynamo, tableName),
  };
}
