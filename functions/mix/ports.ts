/** Every adapter the mix function uses, built from one set of SDK clients. */
import type { ForecastClients } from '../../shared/aws/clients.ts';
import { cloudWatchHistory, type HistoryPort } from '../../shared/aws/demand-history.ts';
import { dynamoMixRecords, type MixRecordsPort } from '../../shared/aws/mix-records.ts';
import { dynamoMixStore, type MixStorePort } from '../../shared/aws/mix-store.ts';
import { type MixedInstancesPort, mixedInstancesAdapter } from '../../shared/aws/mixed-instances.ts';
import { dynamoSpotStore, type SpotStorePort } from '../../shared/aws/spot-store.ts';
import { type ParametersPort, ssmParameters } from '../../shared/aws/ssm.ts';
import { type StateBatchPort, stateBatchReads } from '../../shared/aws/state-batch.ts';

export interface MixPorts {
  parameters: ParametersPort;
  /** The targets' state items, for the forecast function's floor schedule (forecastFloor). */
  states: StateBatchPort;
  /** PLAN items: the planner's state, written on condition of its version. */
  plans: MixStorePort;
  /** SPOT items, written by the spot-events function: read only. */
  spot: Pick<SpotStorePort, 'get' | 'getMany'>;
  /** The groups' MixedInstancesPolicy (Describe, and Update when it differs). */
  groups: MixedInstancesPort;
  /** The last hour's requests, for the cost per 1,000 requests. */
  history: HistoryPort;
  records: MixRecordsPort;
}

export function awsMixPorts(clients: ForecastClients, tableName: string): MixPorts {
  return {
    parameters: ssmParameters(clients.home.ssm),
    states: stateBatchReads(clients.home.dynamo, tableName),
    plans: dynamoMixStore(clients.home.dynamo, tableName),
    spot: dynamoSpotStore(clients.home.dynamo, tableName),
    groups: mixedInstancesAdapter(clients.autoScaling),
    history: cloudWatchHistory(clients.cloudWatch),
    records: dynamoMixRecords(clients.home.dynamo, tableName),
  };
}
