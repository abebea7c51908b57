/** Every adapter the spot-events function uses, built from one set of SDK clients. */
import type { Clients } from '../../shared/aws/clients.ts';
import { dynamoMixStore, type MixStorePort } from '../../shared/aws/mix-store.ts';
import { type MixedInstancesPort, mixedInstancesAdapter } from '../../shared/aws/mixed-instances.ts';
import { type SpotGroupsPort, spotGroups } from '../../shared/aws/spot-events.ts';
import { dynamoSpotStore, type SpotStorePort } from '../../shared/aws/spot-store.ts';
import { ssmParameters } from '../../shared/aws/ssm.ts';
import type { ParametersPort } from '../../shared/policy-store/parameters.ts';

export interface SpotEventsPorts {
  parameters: ParametersPort;
  groups: SpotGroupsPort;
  mixedInstances: MixedInstancesPort;
  plans: MixStorePort;
  spot: SpotStorePort;
}

export function awsSpotEventsPorts(clients: Clients, tableName: string): SpotEventsPorts {
  return {
    parameters: ssmParameters(clients.home.ssm),
    groups: spotGroups(clients.autoScaling),
    mixedInstances: mixedInstancesAdapter(clients.autoScaling),
    plans: dynamoMixStore(clients.home.dynamo, tableName),
    spot: dynamoSpotStore(clients.home.dynamo, tableName),
  };
}
