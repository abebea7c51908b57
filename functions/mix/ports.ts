/** Every adapter the mix function uses, built from one set of SDK clients. */
import type { SageMakerClient } from '@aws-sdk/client-sagemaker';
import type { ForecastClients } from '../../shared/aws/clients.ts';
import { cloudWatchHistory, type HistoryPort } from '../../shared/aws/demand-history.ts';
import { dynamoFallbackStore, type FallbackStorePort } from '../../shared/aws/fallback-store.ts';
import { dynamoMixRecords, type MixRecordsPort } from '../../shared/aws/mix-records.ts';
import { dynamoMixStore, type MixStorePort } from '../../shared/aws/mix-store.ts';
import { type MixedInstancesPort, mixedInstancesAdapter } from '../../shared/aws/mixed-instances.ts';
import { dynamoSpotStore, type SpotStorePort } from '../../shared/aws/spot-store.ts';
import { ssmParameters } from '../../shared/aws/ssm.ts';
import { type StateBatchPort, stateBatchReads } from '../../shared/aws/state-batch.ts';
import { type VariantWeightsPort, variantWeightsAdapter } from '../../shared/aws/variant-weights.ts';
import type { ParametersPort } from '../../shared/policy-store/parameters.ts';

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
  /** FALLBACK items: the variant fallback's state, written on condition of its version. */
  fallbacks: FallbackStorePort;
  /** Endpoints with a variant fallback: their variants read, weights and counts written. */
  endpoints: VariantWeightsPort;
}

/** The forecast function's clients and SageMaker (the variant fallback). */
export type MixClients = ForecastClients & { sageMaker: (region: string) => SageMakerClient };

export function awsMixPorts(clients: MixClients, tableName: string): MixPorts {
  return {
    parameters: ssmParameters(clients.home.ssm),
    states: stateBatchReads(clients.home.dynamo, tableName),
    plans: dynamoMixStore(clients.home.dynamo, tableName),
    spot: dynamoSpotStore(clients.home.dynamo, tableName),
    groups: mixedInstancesAdapter(clients.autoScaling),
    history: cloudWatchHistory(clients.cloudWatch),
    records: dynamoMixRecords(clients.home.dynamo, tableName),
    fallbacks: dynamoFallbackStore(clients.home.dynamo, tableName),
    endpoints: variantWeightsAdapter(clients.sageMaker),
  };
}
