/** Every adapter the forecast function uses, built from one set of SDK clients. */

import type { ForecastClients } from '../../shared/aws/clients.ts';
import { cloudWatchHistory, type HistoryPort } from '../../shared/aws/demand-history.ts';
import { dynamoFloorStore, type FloorStorePort } from '../../shared/aws/forecast-store.ts';
import { type ScheduledActionsPort, scheduledActionsAdapter } from '../../shared/aws/scheduled-actions.ts';
import { ssmParameters } from '../../shared/aws/ssm.ts';
import { type WarmPoolsPort, warmPoolsAdapter } from '../../shared/aws/warm-pools.ts';
import type { ParametersPort } from '../../shared/policy-store/parameters.ts';

export interface ForecastPorts {
  history: HistoryPort;
  floors: FloorStorePort;
  actions: ScheduledActionsPort;
  parameters: ParametersPort;
  warmPools: WarmPoolsPort;
}

export function awsForecastPorts(clients: ForecastClients, tableName: string): ForecastPorts {
  return {
    history: cloudWatchHistory(clients.cloudWatch),
    floors: dynamoFloorStore(clients.home.dynamo, tableName),
    actions: scheduledActionsAdapter(clients.appAutoScaling),
    parameters: ssmParameters(clients.home.ssm),
    warmPools: warmPoolsAdapter(clients.autoScaling),
  };
}
