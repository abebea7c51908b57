/**
 * Runs statemachines/failover.asl.json in aws-local-stepfunctions against scripted answers. Each
 * Task is answered by what it calls: ssm getParameters, cloudwatch putMetricData, dynamodb
 * putItem, and the act function (lambda:invoke) by its Payload's op (prescale, ready, route,
 * check). Waits and retry pauses are 0 ms.
 */
import { readFileSync } from 'node:fs';
import { ExecutionError, StateMachine } from 'aws-local-stepfunctions';
import { allStates, substitute } from '#shared/deploy/asl.ts';
import { Script } from './harness.ts';

export { Script };

export const FAILOVER_DEFINITION = 'statemachines/failover.asl.json';
export const TABLE = 'governor-state-test';
export const KILL_SWITCH = '/governor/kill-switch';
export const ENTERED_TIME = '2025-06-02T12:00:00.000Z';

export interface FailoverFakes {
  getParameters: Script;
  /** The generation check: the group's item (by default naming this execution's decision). */
  getItem: Script;
  putMetricData: Script;
  putItem: Script;
  prescale: Script;
  ready: Script;
  route: Script;
  check: Script;
}

/** The group's item as the generation check reads it: `decisionId` is the newest (null: none named). */
export const newest = (decisionId: unknown) => ({
  Item: decisionId === null ? {} : { generation: { S: String(decisionId) } },
});

const lambda = (payload: Record<string, unknown>) => ({ Payload: payload, StatusCode: 200 });
export const ready = (yes: boolean, detail = yes ? 'chat-west 12 of 12 ready' : 'chat-west 2 of 12 ready') =>
  lambda({ ready: yes, detail });
export const healthy = () =>
  lambda({ regressed: false, detail: 'us-west-2: errorRatePercent 0.2, p95LatencyMs 410' });
export const regressed = () => lambda({ regressed: true, detail: 'us-west-2: p95LatencyMs 2950 > 1500' });
export const routed = (detail = 'weights set') => lambda({ detail });

export const fakes = (overrides: Partial<FailoverFakes> = {}): FailoverFakes => ({
  getParameters: new Script({
    Parameters: [{ Name: KILL_SWITCH, Type: 'String', Value: 'off', Version: 3 }],
    InvalidParameters: [],
  }),
  getItem: new Script((_input: unknown, execution: Record<string, unknown>) => newest(execution.decisionId)),
  putMetricData: new Script({}),
  putItem: new Script({}),
  prescale: new Script(lambda({ detail: 'chat-west desired 0 -> 12' })),
  ready: new Script(ready(true)),
  route: new Script(routed()),
  check: new Script(healthy()),
  ...overrides,
});

const route53 = {
  kind: 'route53-weighted',
  hostedZoneId: 'Z0123456789ABC',
  recordName: 'chat.example.com',
  recordType: 'A',
  setIdentifiers: { 'us-east-1': 'east', 'us-west-2': 'west' },
};
const weightsAction = (east: number, west: number) => ({
  kind: 'set-weights',
  groupId: 'chat',
  weights: { 'us-east-1': east, 'us-west-2': west },
});
/** Steps from one weight of us-west-2 to the next: [0 -> 10, 10 -> 50, 50 -> 100]. */
export const stepsOf = (westWeights: number[], from: number) =>
  westWeights.map((w, i) => {
    const before = i === 0 ? from : westWeights[i - 1]!;
    return { action: weightsAction(100 - w, w), rollback: weightsAction(100 - before, before) };
  });

/** An execution input as functions/failover builds it (shared/failover/machine-input.ts). */
export const failoverInput = (extra: Record<string, unknown> = {}) => ({
  decisionId: '20250602T120000000Z-0a1b2c3d',
  groupId: 'chat',
  requestedAt: ENTERED_TIME,
  expiresAt: 1751371200,
  killSwitchValue: 'off',
  routing: route53,
  prescale: [
    {
      targetId: 'chat-west',
      region: 'us-west-2',
      desired: 12,
      target: { kind: 'sagemaker-variant', endpointName: 'chat-west', variantName: 'AllTraffic' },
    },
  ],
  prescaleDetail: 'prescale chat-west in us-west-2 to 12',
  readyPolls: 20,
  steps: stepsOf([10, 50, 100], 0),
  check: {
    regions: ['us-west-2'],
    targets: [],
    waitSeconds: 180,
    errorRatePercent: 5,
    p95LatencyMs: 1500,
    staleAfterSeconds: 180,
  },
  finishedDetail: 'traffic moved: us-east-1 0 %, us-west-2 100 %',
  ...extra,
});

export interface RunResult {
  status: 'SUCCEEDED' | 'FAILED';
  /** The outcome a succeeded execution reports (killed, halted, finished, ...), else null. */
  outcome: string | null;
  error: string | null;
  /** Every call in the order made, as 'op' names: 'prescale', 'route', 'putItem', ... */
  order: string[];
}

let machine: StateMachine | null = null;
const definition = () =>
  JSON.parse(
    substitute(readFileSync(FAILOVER_DEFINITION, 'utf8'), {
      StateTableName: TABLE,
      KillSwitchParameterName: KILL_SWITCH,
      MetricNamespace: 'Governor',
      FailoverActFunctionName: 'governor-failover-act',
    }),
  ) as Record<string, unknown>;

export const taskNames = (): string[] =>
  allStates(definition())
    .filter((s) => s.state.Type === 'Task')
    .map((s) => s.name);

/** Runs one execution; `failing` names Tasks that throw (after retries: retries are 0 ms here). */
export async function runFailover(
  input: Record<string, unknown>,
  aws: FailoverFakes,
  failing: string[] = [],
): Promise<RunResult> {
  const def = definition();
  machine ??= new StateMachine(def as never, { validationOptions: { checkArn: true, checkPaths: true } });
  const order: string[] = [];
  const handlers: Record<string, (input: unknown) => Promise<never>> = {};
  const waits: Record<string, number> = {};
  const retries: Record<string, number> = {};
  for (const { name, state } of allStates(def)) {
    if (state.Type === 'Wait') waits[name] = 0;
    if (state.Type !== 'Task') continue;
    retries[name] = 0;
    const resource = String(state.Resource);
    handlers[name] = async (taskInput) => {
      const op = resource.endsWith('lambda:invoke')
        ? String((taskInput as { Payload: { op: string } }).Payload.op)
        : resource.split(':').pop()!;
      order.push(op);
      if (failing.includes(name)) {
        const error = new Error(`scripted failure of ${name}`);
        error.name = 'Scripted.Failure';
        throw error;
      }
      const script = aws[op as keyof FailoverFakes];
      if (!script) throw new Error(`failover harness: no fake for ${op} (state "${name}")`);
      return (await script.answer(taskInput, input)) as never;
    };
  }
  const execution = machine.run(input as never, {
    overrides: {
      taskResourceLocalHandlers: handlers,
      waitTimeOverrides: waits,
      retryIntervalOverrides: retries,
    },
    context: {
      Execution: { Input: input, StartTime: ENTERED_TIME, Name: String(input.decisionId) },
      State: { EnteredTime: ENTERED_TIME, Name: 'any', RetryCount: 0 },
    } as never,
  });
  try {
    const output = (await execution.result) as { outcome?: string } | null;
    return { status: 'SUCCEEDED', outcome: output?.outcome ?? null, error: null, order };
  } catch (error) {
    if (!(error instanceof ExecutionError)) throw error;
    return { status: 'FAILED', outcome: null, error: (error.cause as Error).name, order };
  }
}

/** The phase records written, as [phase, reason] pairs. */
export const phases = (aws: FailoverFakes): [string, string][] =>
  aws.putItem.calls.map((c) => {
    const item = (c as { Item: Record<string, { S?: string }> }).Item;
    return [item.phase!.S!, item.reason!.S!];
  });

/** The weights each routing call asked for, as us-west-2's percent. */
export const westWeights = (aws: FailoverFakes): number[] =>
  aws.route.calls.map(
    (c) =>
      (c as { Payload: { action: { weights: Record<string, number> } } }).Payload.action.weights[
        'us-west-2'
      ]!,
  );
