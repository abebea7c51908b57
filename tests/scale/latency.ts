/**
 * SDK clients that answer after a modeled round trip, for bench/tick.bench.ts: the mocks answer
 * at once, so without this a tick measures CPU only. Each call waits latencyOf("Service.Op") ms
 * before the (mocked) send, so calls in flight overlap as they would against AWS.
 */
import type { Clients } from '#shared/aws/clients.ts';

type Sendable = { send: (...args: never[]) => Promise<unknown> };

const SERVICE: Record<string, string> = {
  CloudWatchClient: 'CloudWatch',
  SageMakerClient: 'SageMaker',
  ApplicationAutoScalingClient: 'ApplicationAutoScaling',
  AutoScalingClient: 'AutoScaling',
  DynamoDBDocumentClient: 'DynamoDB',
  SFNClient: 'StepFunctions',
  SSMClient: 'SSM',
};

function delayed<C extends Sendable>(client: C, latencyOf: (call: string) => number): C {
  const send = client.send.bind(client) as (...args: unknown[]) => Promise<unknown>;
  const service = SERVICE[client.constructor.name] ?? client.constructor.name;
  const wrapped = async (command: object, ...rest: unknown[]) => {
    const call = `${service}.${command.constructor.name.replace(/Command$/, '')}`;
    await new Promise((r) => setTimeout(r, latencyOf(call)));
    return send(command, ...rest);
  };
  Object.defineProperty(client, 'send', { value: wrapped, configurable: true, writable: true });
  return client;
}

const perRegion = <C extends Sendable>(make: (region: string) => C, latencyOf: (call: string) => number) => {
  const made = new Map<string, C>();
  return (region: string) => {
    if (!made.has(region)) made.set(region, delayed(make(region), latencyOf));
    return made.get(region)!;
  };
};

export function withLatency(clients: Clients, latencyOf: (call: string) => number): Clients {
  return {
    home: {
      dynamo: delayed(clients.home.dynamo, latencyOf),
      ssm: delayed(clients.home.ssm, latencyOf),
      sfn: delayed(clients.home.sfn, latencyOf),
    },
    cloudWatch: perRegion(clients.cloudWatch, latencyOf),
    sageMaker: perRegion(clients.sageMaker, latencyOf),
    appAutoScaling: perRegion(clients.appAutoScaling, latencyOf),
    autoScaling: perRegion(clients.autoScaling, latencyOf),
  };
}
