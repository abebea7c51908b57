/**
 * moto_server (the AWS API emulator on the machine image) on a free loopback port, one per test
 * file: start it in `beforeAll`, stop it in `afterAll`. No vitest import here, so
 * `scripts/local.ts` uses the same start/stop code.
 *
 * Usage in a test file:
 *   const gate = motoGate();                    // throws when moto_server is missing and CI is set
 *   describe.skipIf(!gate.available)('...', () => {
 *     let moto: MotoServer;
 *     beforeAll(async () => { moto = await startMoto(); });
 *     afterAll(() => moto.stop());
 *     ... new SageMakerClient(awsTestConfig(moto.endpoint)) ...
 *   });
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { createServer } from 'node:net';
import { delimiter, join } from 'node:path';
import {
  type AutoScalingClient,
  CreateAutoScalingGroupCommand,
  CreateLaunchConfigurationCommand,
} from '@aws-sdk/client-auto-scaling';
import { type CloudWatchClient, type MetricDatum, PutMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { CreateTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  CreateEndpointCommand,
  CreateEndpointConfigCommand,
  CreateModelCommand,
  type SageMakerClient,
} from '@aws-sdk/client-sagemaker';
import { PutParameterCommand, type SSMClient } from '@aws-sdk/client-ssm';

export const TEST_REGION = 'us-east-1';
/** moto's own placeholder account; any 12 digits work, this one matches its ARNs. */
export const TEST_ACCOUNT = '123456789012';
export const TEST_CREDENTIALS = { accessKeyId: 'testing', secretAccessKey: 'testing' } as const;

/** Client configuration aimed at a local endpoint: fake credentials, a region, never real AWS. */
export const awsTestConfig = (endpoint: string) => ({
  region: TEST_REGION,
  endpoint,
  credentials: TEST_CREDENTIALS,
  maxAttempts: 2,
});

export interface MotoServer {
  /** http://127.0.0.1:PORT */
  endpoint: string;
  port: number;
  /** POST /moto-api/config, e.g. { stepfunctions: { execute_state_machine: true } }. */
  configure: (config: unknown) => Promise<void>;
  /** Forget every resource (POST /moto-api/reset). */
  reset: () => Promise<void>;
  stop: () => Promise<void>;
}

/** The moto_server executable on the PATH, or null. */
export function motoBinary(path = process.env.PATH ?? ''): string | null {
  for (const dir of path.split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, 'moto_server');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this folder
    }
  }
  return null;
}

export interface MotoGate {
  available: boolean;
  /** Why the moto tests are skipped (printed once), or '' when they run. */
  message: string;
}

/**
 * Whether moto-backed tests can run. Missing moto_server skips them with a plain message on a
 * developer machine and fails them in CI (CI set), where the image must provide it.
 */
export function motoGate(env: NodeJS.ProcessEnv = process.env): MotoGate {
  if (motoBinary(env.PATH) !== null) return { available: true, message: '' };
  const message =
    'moto_server is not on the PATH: skipping the moto integration tests (pip install "moto[server]")';
  if (env.CI) throw new Error(`${message.split(':')[0]}, and CI is set: the CI image must provide moto 5.2`);
  console.log(message);
  return { available: false, message };
}

/** A port the OS says is free on 127.0.0.1 right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('no free port'))));
    });
  });
}

const post = async (url: string, body?: unknown): Promise<void> => {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? '' : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`moto: POST ${url} answered ${response.status}`);
};

async function waitUntilReady(endpoint: string, child: ChildProcess, log: () => string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`moto_server exited with ${child.exitCode}: ${log()}`);
    try {
      await post(`${endpoint}/moto-api/reset`);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  child.kill('SIGKILL');
  throw new Error(`moto_server did not answer within ${timeoutMs} ms: ${log()}`);
}

/** Starts `moto_server -H 127.0.0.1 -p <free port>` and waits until it answers (about 1 s). */
export async function startMoto(options: { timeoutMs?: number } = {}): Promise<MotoServer> {
  const binary = motoBinary();
  if (binary === null) throw new Error('moto_server is not on the PATH (pip install "moto[server]")');
  const port = await freePort();
  const child = spawn(binary, ['-H', '127.0.0.1', '-p', String(port)], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-2000);
  });
  // A crashed test file must not leave moto running.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const endpoint = `http://127.0.0.1:${port}`;
  await waitUntilReady(
    endpoint,
    child,
    () => stderr.trim().split('\n').slice(-3).join(' | '),
    options.timeoutMs ?? 20_000,
  );
  const stop = async () => {
    process.removeListener('exit', killOnExit);
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
    await exited;
    clearTimeout(timer);
  };
  return {
    endpoint,
    port,
    configure: (config) => post(`${endpoint}/moto-api/config`, config),
    reset: () => post(`${endpoint}/moto-api/reset`),
    stop,
  };
}

// ---- Seeding: what a deployed stack would have, created on a local endpoint (moto or dynalite).

/** The state table as template.yaml defines it: pk/sk strings, on demand. */
export async function createStateTable(client: DynamoDBClient, tableName: string): Promise<void> {
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
      ],
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
}

export async function putStringParameter(client: SSMClient, name: string, value: string): Promise<void> {
  await client.send(new PutParameterCommand({ Name: name, Value: value, Type: 'String', Overwrite: true }));
}

/**
 * A real-time endpoint with one variant: model, endpoint config, endpoint. ml.g4dn.xlarge because
 * moto validates instance types against an older list (no g5/g6).
 */
export async function createDemoEndpoint(
  client: SageMakerClient,
  endpointName: string,
  instances: number,
  variantName = 'AllTraffic',
): Promise<void> {
  const modelName = `${endpointName}-model`;
  await client.send(
    new CreateModelCommand({
      ModelName: modelName,
      ExecutionRoleArn: `arn:aws:iam::${TEST_ACCOUNT}:role/governor-demo-sagemaker`,
      PrimaryContainer: { Image: `${TEST_ACCOUNT}.dkr.ecr.us-east-1.amazonaws.com/demo-llm:latest` },
    }),
  );
  await client.send(
    new CreateEndpointConfigCommand({
      EndpointConfigName: `${endpointName}-config`,
      ProductionVariants: [
        {
          VariantName: variantName,
          ModelName: modelName,
          InitialInstanceCount: instances,
          InstanceType: 'ml.g4dn.xlarge',
        },
      ],
    }),
  );
  await client.send(
    new CreateEndpointCommand({ EndpointName: endpointName, EndpointConfigName: `${endpointName}-config` }),
  );
}

/**
 * An Auto Scaling group of g4dn instances in us-east-1a, from a launch configuration of its own
 * (moto takes any AMI id), at `desired` instances between 1 and `max`.
 */
export async function createDemoGroup(
  client: AutoScalingClient,
  name: string,
  desired: number,
  max = 20,
): Promise<void> {
  await client.send(
    new CreateLaunchConfigurationCommand({
      LaunchConfigurationName: `${name}-lc`,
      ImageId: 'ami-12c6146b',
      InstanceType: 'g4dn.xlarge',
    }),
  );
  await client.send(
    new CreateAutoScalingGroupCommand({
      AutoScalingGroupName: name,
      LaunchConfigurationName: `${name}-lc`,
      MinSize: 1,
      MaxSize: max,
      DesiredCapacity: desired,
      AvailabilityZones: ['us-east-1a'],
    }),
  );
}

/**
 * One minute of a variant's metrics as SageMaker would publish them: InvocationsPerInstance
 * (AWS/SageMaker, requests per instance in the minute), Invocations (the requests, the basis of
 * the per-instance values) and GPUUtilization (/aws/sagemaker/Endpoints, percent), stamped inside
 * the minute that starts at minuteStart.
 */
export async function putVariantMinute(
  client: CloudWatchClient,
  endpointName: string,
  minuteStart: number,
  values: { invocationsPerInstance?: number; invocations?: number; gpuUtilization?: number },
  variantName = 'AllTraffic',
): Promise<void> {
  const Dimensions = [
    { Name: 'EndpointName', Value: endpointName },
    { Name: 'VariantName', Value: variantName },
  ];
  const Timestamp = new Date(minuteStart + 30_000);
  if (values.invocations !== undefined) {
    await client.send(
      new PutMetricDataCommand({
        Namespace: 'AWS/SageMaker',
        MetricData: [
          { MetricName: 'Invocations', Dimensions, Timestamp, Value: values.invocations, Unit: 'None' },
        ],
      }),
    );
  }
  if (values.invocationsPerInstance !== undefined) {
    await client.send(
      new PutMetricDataCommand({
        Namespace: 'AWS/SageMaker',
        MetricData: [
          {
            MetricName: 'InvocationsPerInstance',
            Dimensions,
            Timestamp,
            Value: values.invocationsPerInstance,
            Unit: 'None',
          },
        ],
      }),
    );
  }
  if (values.gpuUtilization !== undefined) {
    await client.send(
      new PutMetricDataCommand({
        Namespace: '/aws/sagemaker/Endpoints',
        MetricData: [
          {
            MetricName: 'GPUUtilization',
            Dimensions,
            Timestamp,
            Value: values.gpuUtilization,
            Unit: 'Percent',
          },
        ],
      }),
    );
  }
}

/** Datapoints into moto's CloudWatch, 20 a call: moto 5.2 answers 500 to 100 (AWS takes 1,000). */
export async function putDatapoints(
  cw: CloudWatchClient,
  namespace: string,
  data: readonly MetricDatum[],
): Promise<void> {
  for (let i = 0; i < data.length; i += 20)
    await cw.send(new PutMetricDataCommand({ Namespace: namespace, MetricData: data.slice(i, i + 20) }));
}

/**
 * A handler module imported fresh with its environment pointed at moto: the given variables,
 * the test region, the emulator's endpoint and fake credentials (never real AWS). Undo with
 * vi.unstubAllEnvs() in afterAll.
 */
export async function importHandlerOnMoto<M>(
  moto: MotoServer,
  variables: Record<string, string>,
  load: () => Promise<M>,
): Promise<M> {
  const { vi } = await import('vitest');
  for (const [k, v] of Object.entries({
    ...variables,
    AWS_REGION: TEST_REGION,
    AWS_ENDPOINT_URL: moto.endpoint,
    AWS_ACCESS_KEY_ID: TEST_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: TEST_CREDENTIALS.secretAccessKey,
  }))
    vi.stubEnv(k, v);
  vi.resetModules();
  return load();
}

/**
 * The MixedInstancesPolicy DescribeAutoScalingGroups reads back after a plan was written to a
 * group made from `launchTemplate` (moto, as AWS, names the template next to its id).
 */
export const expectedMixedInstancesPolicy = (
  launchTemplate: unknown,
  plan: {
    mixedInstancesPolicy: {
      overrides: { instanceType: string }[];
      onDemandBaseCapacity: number;
      onDemandPercentageAboveBaseCapacity: number;
    };
  },
) => ({
  LaunchTemplate: {
    LaunchTemplateSpecification: launchTemplate,
    Overrides: plan.mixedInstancesPolicy.overrides.map((o) => ({ InstanceType: o.instanceType })),
  },
  InstancesDistribution: {
    OnDemandAllocationStrategy: 'prioritized',
    OnDemandBaseCapacity: plan.mixedInstancesPolicy.onDemandBaseCapacity,
    OnDemandPercentageAboveBaseCapacity: plan.mixedInstancesPolicy.onDemandPercentageAboveBaseCapacity,
    SpotAllocationStrategy: 'price-capacity-optimized',
  },
});

/**
 * CreateLaunchTemplate as one EC2 query request (the project has no EC2 client; moto checks no
 * signature): a g5.2xlarge template named `name`; its id.
 */
export async function createLaunchTemplate(endpoint: string, name: string): Promise<string> {
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `AWS4-HMAC-SHA256 Credential=testing/20260105/${TEST_REGION}/ec2/aws4_request, SignedHeaders=host, Signature=0`,
    },
    body: new URLSearchParams({
      Action: 'CreateLaunchTemplate',
      Version: '2016-11-15',
      LaunchTemplateName: name,
      'LaunchTemplateData.ImageId': 'ami-12c6146b',
      'LaunchTemplateData.InstanceType': 'g5.2xlarge',
    }),
  });
  const text = await response.text();
  const id = /<launchTemplateId>([^<]+)</.exec(text)?.[1];
  if (!response.ok || !id) throw new Error(`moto CreateLaunchTemplate answered ${response.status}: ${text}`);
  return id;
}
