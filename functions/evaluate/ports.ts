/** Every adapter the evaluate function uses, built from one set of SDK clients. */
import { appAutoScalingAdapter, type ScalersPort } from '../../shared/aws/app-autoscaling.ts';
import { autoScalingAdapter, type GroupsPort } from '../../shared/aws/autoscaling.ts';
import type { Clients } from '../../shared/aws/clients.ts';
import { cloudWatchMetrics, type MetricsPort } from '../../shared/aws/cloudwatch.ts';
import { dynamoStateStore, type StatePort } from '../../shared/aws/dynamodb.ts';
import { type GroupPoliciesPort, groupPoliciesAdapter } from '../../shared/aws/group-policies.ts';
import { type HandBackPort, handBackAdapter } from '../../shared/aws/hand-back.ts';
import {
  type EndpointsPort,
  endpointReads,
  type SageMakerPort,
  sageMakerAdapter,
} from '../../shared/aws/sagemaker.ts';
import { type ExecutionsPort, stepFunctionsAdapter } from '../../shared/aws/sfn.ts';
import { ssmParameters } from '../../shared/aws/ssm.ts';
import {
  type FailoverStatesPort,
  failoverStateReads,
  type StateBatchPort,
  stateBatchReads,
} from '../../shared/aws/state-batch.ts';
import type { ParametersPort } from '../../shared/policy-store/parameters.ts';

export interface Ports {
  metrics: MetricsPort;
  sageMaker: SageMakerPort;
  /** One DescribeEndpoint per endpoint for all its variants (observe.ts); without it, one per variant. */
  endpoints?: EndpointsPort;
  groups: GroupsPort;
  /** The region-wide DescribePolicies sweep (observe.ts); without it, groups are asked one by one. */
  groupPolicies?: GroupPoliciesPort;
  scalers: ScalersPort;
  state: StatePort;
  /** State items in batches of 100 (observe.ts); without it, each target reads its own. */
  stateBatch?: StateBatchPort;
  /** The FAILOVER#<group> items of the tick's failover groups (observe.ts); without it, no failover floor. */
  failoverStates?: FailoverStatesPort;
  executions: ExecutionsPort;
  parameters: ParametersPort;
  /** Resumes what Governor suspended when the kill switch says release (./release.ts); fakes may omit it. */
  handBack?: HandBackPort;
}

export function awsPorts(clients: Clients, tableName: string): Ports {
  return {
    metrics: cloudWatchMetrics(clients.cloudWatch),
    sageMaker: sageMakerAdapter(clients.sageMaker),
    endpoints: endpointReads(clients.sageMaker),
    groups: autoScalingAdapter(clients.autoScaling),
    groupPolicies: groupPoliciesAdapter(clients.autoScaling),
    scalers: appAutoScalingAdapter(clients.appAutoScaling),
    state: dynamoStateStore(clients.home.dynamo, tableName),
    stateBatch: stateBatchReads(clients.home.dynamo, tableName),
    failoverStates: failoverStateReads(clients.home.dynamo, tableName),
    executions: stepFunctionsAdapter(clients.home.sfn),
    parameters: ssmParameters(clients.home.ssm),
    handBack: handBackAdapter(clients.appAutoScaling, clients.autoScaling),
  };
}
