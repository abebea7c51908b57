/** Every adapter the failover health evaluation uses, built from one set of SDK clients. */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ClientOptions, Clients } from '../../shared/aws/clients.ts';
import { cloudWatchMetrics, type MetricsPort } from '../../shared/aws/cloudwatch.ts';
import {
  dynamoFailoverStore,
  dynamoHeartbeats,
  type FailoverExecutionsPort,
  type FailoverStorePort,
  failoverExecutions,
  type HeartbeatPort,
} from '../../shared/aws/failover-store.ts';
// Reads only (DescribeAutoScalingGroups): the module's names kept here, the split is the grant check's.
import {
  groupReads as autoScalingAdapter,
  type GroupReadsPort as GroupsPort,
} from '../../shared/aws/group-capacity.ts';
import { type SageMakerPort, sageMakerAdapter } from '../../shared/aws/sagemaker.ts';
import { ssmParameters } from '../../shared/aws/ssm.ts';
import type { ParametersPort } from '../../shared/policy-store/parameters.ts';
import { awsRoutingReads, type RoutingReadPort } from './routing-truth.ts';

export interface FailoverPorts {
  parameters: ParametersPort;
  metrics: MetricsPort;
  sageMaker: SageMakerPort;
  groups: GroupsPort;
  store: FailoverStorePort;
  heartbeats: HeartbeatPort;
  executions: FailoverExecutionsPort;
  /** The routing as it is (reads only): the reconciliation's truth. */
  routing: RoutingReadPort;
}

/** The clients the health evaluation uses: createClients' but Application Auto Scaling. */
export type FailoverClients = Omit<Clients, 'appAutoScaling'>;

export function awsFailoverPorts(
  clients: FailoverClients,
  dynamoFor: (region: string) => DynamoDBDocumentClient,
  tableName: string,
  peerTableName: string,
  ownRegion: string,
  options: ClientOptions,
): FailoverPorts {
  return {
    parameters: ssmParameters(clients.home.ssm),
    metrics: cloudWatchMetrics(clients.cloudWatch),
    sageMaker: sageMakerAdapter(clients.sageMaker),
    groups: autoScalingAdapter(clients.autoScaling),
    store: dynamoFailoverStore(clients.home.dynamo, tableName),
    // This region's heartbeat is in this stack's own table; the other members' in the peer's.
    heartbeats: dynamoHeartbeats(dynamoFor, (region) => (region === ownRegion ? tableName : peerTableName)),
    executions: failoverExecutions(clients.home.sfn),
    routing: awsRoutingReads(options),
  };
}
