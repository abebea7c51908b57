/** Every adapter the evaluate function uses, built from one set of SDK clients. */
import { appAutoScalingAdapter, type ScalersPort } from '../../shared/aws/app-autoscaling.ts';
import { autoScalingAdapter, type GroupsPort } from '../../shared/aws/autoscaling.ts';
import type { Clients } from '../../shared/aws/clients.ts';
import { cloudWatchMetrics, type MetricsPort } from '../../shared/aws/cloudwatch.ts';
import { dynamoStateStore, type StatePort } from '../../shared/aws/dynamodb.ts';
import { type SageMakerPort, sageMakerAdapter } from '../../shared/aws/sagemaker.ts';
import { type ExecutionsPort, stepFunctionsAdapter } from '../../shared/aws/sfn.ts';
import { type ParametersPort, ssmParameters } from '../../shared/aws/ssm.ts';

export interface Ports {
  metrics: MetricsPort;
  sageMaker: SageMakerPort;
  groups: GroupsPort;
  scalers: ScalersPort;
  state: StatePort;
  executions: ExecutionsPort;
  parameters: ParametersPort;
}

export function awsPorts(clients: Clients, tableName: string): Ports {
  return {
    metrics: cloudWatchMetrics(clients.cloudWatch),
    sageMaker: sageMakerAdapter(clients.sageMaker),
    groups: autoScalingAdapter(clients.autoScaling),
    scalers: appAutoScalingAdapter(clients.appAutoScaling),
    state: dynamoStateStore(clients.home.dynamo, tableName),
    executions: stepFunctionsAdapter(clients.home.sfn),
    parameters: ssmParameters(clients.home.ssm),
  };
}
