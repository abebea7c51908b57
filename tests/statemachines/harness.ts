/**
 * Runs statemachines/scale-target.asl.json in aws-local-stepfunctions against a scripted fake of
 * the AWS APIs its Tasks call. Each Task's Resource (aws-sdk:sagemaker:describeEndpoint, ...)
 * is answered by the fake method of that API, so every Task of the definition is covered
 * without naming states here. Waits and retry pauses are overridden to 0 ms: a run takes
 * milliseconds even when it polls sixty times.
 */
import { readFileSync } from 'node:fs';
import { ExecutionError, StateMachine } from 'aws-local-stepfunctions';
import { allStates, substitute } from '#shared/deploy/asl.ts';

export const DEFINITION_PATH = 'statemachines/scale-target.asl.json';
export const TABLE = 'governor-state-test';
export const KILL_SWITCH = '/governor/kill-switch';
/** What `at` is in every outcome item: the Context Object's State.EnteredTime, fixed here. */
export const ENTERED_TIME = '2025-06-01T12:00:00.000Z';

export const definition = (): Record<string, unknown> =>
  JSON.parse(
    substitute(readFileSync(DEFINITION_PATH, 'utf8'), {
      StateTableName: TABLE,
      KillSwitchParameterName: KILL_SWITCH,
      MetricNamespace: 'Governor',
    }),
  );

/** An AWS error as Step Functions names it for aws-sdk integrations: Service.ErrorException. */
export function awsError(name: string, message: string): Error {
  const error = new Error(message);
  error.name = name;
  return error;
}

type Value = Record<string, unknown> | Error;
/** An answer, or a function of the Task's input and the execution's input that gives one (may wait). */
type Answer = Value | ((task: unknown, execution: Record<string, unknown>) => Value | Promise<Value>);

/** A scripted API: answers in order, the last one repeating. */
export class Script {
  readonly calls: unknown[] = [];
  private readonly answers: Answer[];
  constructor(...answers: Answer[]) {
    this.answers = answers.length > 0 ? answers : [{}];
  }
  async answer(input: unknown, execution: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    this.calls.push(input);
    const scripted = this.answers[Math.min(this.calls.length - 1, this.answers.length - 1)]!;
    const next = typeof scripted === 'function' ? await scripted(input, execution) : scripted;
    if (next instanceof Error) throw next;
    return structuredClone(next);
  }
}

export interface FakeAws {
  getParameters: Script;
  describeEndpoint: Script;
  updateEndpointWeightsAndCapacities: Script;
  describeInferenceComponent: Script;
  updateInferenceComponentRuntimeConfig: Script;
  /** The generation check: the target's state item (by default waiting for this execution's decision). */
  getItem: Script;
  registerScalableTarget: Script;
  putItem: Script;
  updateItem: Script;
  putMetricData: Script;
}

export const fakeAws = (overrides: Partial<FakeAws> = {}): FakeAws => ({
  getParameters: new Script(killSwitch('off')),
  describeEndpoint: new Script(endpoint('InService', 1)),
  updateEndpointWeightsAndCapacities: new Script({}),
  describeInferenceComponent: new Script(component('InService', 1)),
  updateInferenceComponentRuntimeConfig: new Script({}),
  getItem: new Script(waitingFor()),
  registerScalableTarget: new Script({}),
  putItem: new Script({}),
  updateItem: new Script({}),
  putMetricData: new Script({}),
  ...overrides,
});

/**
 * A GetItem answer for the target's state item, as the dynamodb:getItem integration returns it:
 * its pending change was started by decision `id` (the execution's own when omitted), or, with
 * null, no change is pending.
 */
export function waitingFor(id?: string | null) {
  return (_task: unknown, execution: Record<string, unknown>): Record<string, unknown> =>
    id === null
      ? { Item: { pk: { S: 'TARGET#x' }, sk: { S: 'STATE' } } }
      : {
          Item: {
            pending: {
              M: {
                decisionId: { S: id ?? String(execution.decisionId) },
                desiredCapacity: { N: String(execution.desiredCapacity) },
              },
            },
          },
        };
}

/** A GetParameters answer for the kill switch: its value, or null when the parameter does not exist. */
export function killSwitch(value: string | null): Record<string, unknown> {
  return value === null
    ? { Parameters: [], InvalidParameters: [KILL_SWITCH] }
    : {
        Parameters: [{ Name: KILL_SWITCH, Type: 'String', Value: value, Version: 3 }],
        InvalidParameters: [],
      };
}

/** A DescribeEndpoint answer with one variant AllTraffic at `count` instances (and a second variant). */
export function endpoint(status: string, count: number, failureReason?: string): Record<string, unknown> {
  return {
    EndpointName: 'chat-llm-prod',
    EndpointStatus: status,
    ProductionVariants: [
      { VariantName: 'Shadow', CurrentInstanceCount: 1, DesiredInstanceCount: 1 },
      { VariantName: 'AllTraffic', CurrentInstanceCount: count, DesiredInstanceCount: count },
    ],
    ...(failureReason ? { FailureReason: failureReason } : {}),
  };
}

export function component(status: string, copies: number, failureReason?: string): Record<string, unknown> {
  return {
    InferenceComponentName: 'chat-ic',
    InferenceComponentStatus: status,
    RuntimeConfig: { DesiredCopyCount: copies, CurrentCopyCount: copies },
    ...(failureReason ? { FailureReason: failureReason } : {}),
  };
}

export const variantInput = (extra: Record<string, unknown> = {}) => ({
  decisionId: '20250601T120000000Z-0a1b2c3d',
  targetId: 'chat-llm',
  kind: 'sagemaker-variant',
  endpointName: 'chat-llm-prod',
  variantName: 'AllTraffic',
  desiredCapacity: 3,
  previousCapacity: 1,
  requestedAt: '2025-06-01T12:00:00.000Z',
  expiresAt: 1751371200,
  killSwitchValue: 'off',
  ...extra,
});

export const componentInput = (extra: Record<string, unknown> = {}) => ({
  decisionId: '20250601T120000000Z-99999999',
  targetId: 'chat-ic',
  kind: 'sagemaker-inference-component',
  endpointName: 'chat-llm-prod',
  inferenceComponentName: 'chat-ic',
  desiredCapacity: 4,
  previousCapacity: 2,
  requestedAt: '2025-06-01T12:00:00.000Z',
  expiresAt: 1751371200,
  killSwitchValue: 'off',
  ...extra,
});

export interface RunResult {
  status: 'SUCCEEDED' | 'FAILED';
  output: unknown;
  error: string | null;
  cause: string | null;
}

/** `arn:aws:states:::aws-sdk:sagemaker:describeEndpoint` and `...:::dynamodb:putItem` to the fake's method. */
const methodOf = (resource: string): keyof FakeAws =>
  resource.split(':').pop()!.split('.')[0] as keyof FakeAws;

let machine: { def: Record<string, unknown>; sm: StateMachine } | null = null;

/** The definition is parsed and validated once per test file (asl-validator takes ~0.3 s). */
function loaded() {
  if (!machine) {
    const def = definition();
    machine = {
      def,
      sm: new StateMachine(def as never, { validationOptions: { checkArn: true, checkPaths: true } }),
    };
  }
  return machine;
}

/** Runs one execution to its end. */
export async function run(input: Record<string, unknown>, aws: FakeAws): Promise<RunResult> {
  const { def, sm } = loaded();
  const states = allStates(def);
  const handlers: Record<string, (input: unknown) => Promise<never>> = {};
  const waits: Record<string, number> = {};
  const retries: Record<string, number> = {};
  for (const { name, state } of states) {
    if (state.Type === 'Task') {
      const method = methodOf(String(state.Resource));
      if (!(method in aws))
        throw new Error(`harness: no fake for ${String(state.Resource)} (state "${name}")`);
      handlers[name] = async (taskInput) => (await aws[method].answer(taskInput, input)) as never;
      retries[name] = 0;
    }
    if (state.Type === 'Wait') waits[name] = 0;
  }
  const execution = sm.run(input as never, {
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
    return { status: 'SUCCEEDED', output: await execution.result, error: null, cause: null };
  } catch (error) {
    if (!(error instanceof ExecutionError)) throw error;
    const failure = error.cause as Error;
    return { status: 'FAILED', output: null, error: failure.name, cause: failure.message };
  }
}

/** The lead-time samples the run appended to leadTimesSfn (UpdateItem), as plain values. */
export function appendedLeadTimes(
  aws: FakeAws,
): { key: Record<string, string>; samples: Record<string, string>[] }[] {
  return aws.updateItem.calls.map((call) => {
    const c = call as {
      Key: Record<string, { S: string }>;
      ExpressionAttributeValues: { ':sample': { L: { M: Record<string, { S: string }> }[] } };
    };
    return {
      key: Object.fromEntries(Object.entries(c.Key).map(([k, v]) => [k, v.S])),
      samples: c.ExpressionAttributeValues[':sample'].L.map((e) =>
        Object.fromEntries(Object.entries(e.M).map(([k, v]) => [k, v.S])),
      ),
    };
  });
}

/** The DynamoDB item the run wrote, as plain values. */
export function writtenItem(aws: FakeAws): Record<string, string> {
  const call = aws.putItem.calls.at(-1) as {
    TableName: string;
    Item: Record<string, Record<string, string>>;
  };
  return Object.fromEntries(Object.entries(call.Item).map(([k, v]) => [k, Object.values(v)[0]!]));
}
