/** Every adapter the mix function uses, built from one set of SDK clients. */
import type { SageMakerClient } from '@aws-sdk/client-sagemaker';
import type { ForecastClients } from '../../shared/aws/clients.ts';
import { type CommitmentsStorePort, commitmentsStore } from '../../shared/aws/commitments-store.ts';
import { cloudWatchHistory, type HistoryPort } from '../../shared/aws/demand-history.ts';
import { dynamoFallbackStore, type FallbackStorePort } from '../../shared/aws/fallback-store.ts';
import { type GroupRetirementsPort, groupRetirements } from '../../shared/aws/group-retirements.ts';
import { dynamoMixItems, type MixItemPort } from '../../shared/aws/mix-item.ts';
import { dynamoMixRecords, type MixRecordsPort } from '../../shared/aws/mix-records.ts';
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
  /**
   * The targets' one item (MIX#<target>/PLAN): the planner's state and the SPOT state, written
   * by this function and the spot-events function, each on condition of the version it read.
   */
  items: MixItemPort;
  /** The SPOT items of before issue 18, read only while an item has no `spot` yet. */
  legacySpot: Pick<SpotStorePort, 'get' | 'getMany'>;
  /** The groups' MixedInstancesPolicy (Describe, and Update when it differs). */
  groups: MixedInstancesPort;
  /** Retirements in flight: their groups read back, and terminated once replaced (./retirements.ts). */
  retirements: GroupRetirementsPort;
  /** The last hour's requests, for the cost per 1,000 requests. */
  history: HistoryPort;
  records: MixRecordsPort;
  /** FALLBACK items: the variant fallback's state, written on condition of its version. */
  fallbacks: FallbackStorePort;
  /** Endpoints with a variant fallback: their variants read, weights and counts written. */
  endpoints: VariantWeightsPort;
  /** The commitments function's reads (COMMIT#<region>); absent: plan on the policy's commitment. */
  commitments?: Pick<CommitmentsStorePort, 'read'>;
}

/** The forecast function's clients and SageMaker (the variant fallback). */
export type MixClients = ForecastClients & { sageMaker: (region: string) => SageMakerClient };

export function awsMixPorts(clients: MixClients, tableName: string): MixPorts {
  return {
    parameters: ssmParameters(clients.home.ssm),
    states: stateBatchReads(clients.home.dynamo, tableName),
    items: dynamoMixItems(clients.home.dynamo, tableName),
    legacySpot: dynamoSpotStore(clients.home.dynamo, tableName),
    groups: mixedInstancesAdapter(clients.autoScaling),
    retirements: groupRetirements(clients.autoScaling),
    history: cloudWatchHistory(clients.cloudWatch),
    records: dynamoMixRecords(clients.home.dynamo, tableName),
    fallbacks: dynamoFallbackStore(clients.home.dynamo, tableName),
    endpoints: variantWeightsAdapter(clients.sageMaker),
    commitments: commitmentsStore(clients.home.dynamo, tableName),
  };
}
