/**
 * The forecast function wired to the real adapters over aws-sdk-client-mock: CloudWatch answers
 * GetMetricData from a synthetic daily demand (paged by NextToken), a small table keeps state
 * items, and Application Auto Scaling keeps registered targets and scheduled actions, so tests
 * assert the calls a run makes and what it leaves behind. No network.
 */
import { readFileSync } from 'node:fs';
import {
  ApplicationAutoScalingClient,
  DeleteScheduledActionCommand,
  DescribeScalableTargetsCommand,
  DescribeScheduledActionsCommand,
  PutScheduledActionCommand,
  type ScheduledAction,
} from '@aws-sdk/client-application-auto-scaling';
import {
  AutoScalingClient,
  DescribeWarmPoolCommand,
  PutWarmPoolCommand,
  type WarmPoolConfiguration,
} from '@aws-sdk/client-auto-scaling';
import {
  CloudWatchClient,
  GetMetricDataCommand,
  type MetricDataQuery,
  type MetricDataResult,
} from '@aws-sdk/client-cloudwatch';
import { GetParameterCommand, GetParametersByPathCommand, SSMClient } from '@aws-sdk/client-ssm';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { MetadataBearer } from '@smithy/types';
import { type AwsStub, mockClient } from 'aws-sdk-client-mock';
import { parseForecastConfig } from '#functions/forecast/config.ts';
import type { TargetOutcome } from '#functions/forecast/outcomes.ts';
import { awsForecastPorts, type ForecastPorts } from '#functions/forecast/ports.ts';
import { createForecaster } from '#functions/forecast/run.ts';
import type { ForecastTelemetry } from '#functions/forecast/telemetry.ts';
import { createClients } from '#shared/aws/clients.ts';
import type { BandPoint } from '#shared/floors/forecast.ts';
import type { ForecastFloor } from '#shared/floors/stored.ts';
import { parametersByPath } from '../functions/parameters-by-path.ts';

type Stub = AwsStub<object, MetadataBearer, unknown>;

/** Active: most tests are about what the function writes; shadow and the kill switch have their own. */
export const CONFIG = parseForecastConfig({
  POLICY_PARAMETER_NAME: '/governor/policy',
  STATE_TABLE_NAME: 'governor-state',
  KILL_SWITCH_PARAMETER_NAME: '/governor/kill-switch',
  GOVERNOR_MODE: 'active',
  AWS_REGION: 'us-east-1',
});
export const NOW = Date.parse('2025-06-09T12:00:10Z');
const DAY = 86_400_000;

/**
 * Requests per minute at a time: 90 at night, rising from 08:00 to 1000 at 14:00 and back by
 * 20:00 (UTC). With 100 requests per instance: 1 instance at night, 10 at the peak.
 */
export function dailyDemand(t: number): number {
  const minute = (((t % DAY) + DAY) % DAY) / 60_000;
  return 90 + 910 * Math.max(0, Math.sin((Math.PI * (minute - 480)) / 720));
}

/**
 * A minute's request count as CloudWatch's one-minute Invocations Sum would have it: a
 * Poisson-like draw around dailyDemand (mean m, standard deviation sqrt(m): normal, rounded),
 * the same for the same minute on every call, so pages and runs agree. Fitted, it gives a ~ 1, b ~ 0.
 */
export function minuteCount(t: number): number {
  const m = dailyDemand(t);
  const u = (k: number) => {
    // A hash of the minute to (0, 1): mulberry32's finaliser.
    let x = (Math.floor(t / 60_000) * 2 + k + 0x6d2b79f5) | 0;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return (((x ^ (x >>> 14)) >>> 0) + 0.5) / 4_294_967_296;
  };
  const z = Math.sqrt(-2 * Math.log(u(0))) * Math.cos(2 * Math.PI * u(1));
  return Math.max(0, Math.round(m + Math.sqrt(m) * z));
}

export const POLICY = (over: { forecast?: string; extra?: string } = {}) => `version: 1
targets:
  - id: chat-llm
    kind: sagemaker-variant
    region: us-east-1
    endpointName: chat-llm-prod
    scaling: { minCapacity: 1, maxCapacity: 20 }
    signals: [{ metric: invocationsPerInstance, target: 100 }]
    forecast: ${over.forecast ?? '{ quantile: p90, requestsPerInstance: 100, leadTimeMinutes: 10, historyDays: 7 }'}
${over.extra ?? ''}`;

export interface CapturedForecastTelemetry extends ForecastTelemetry {
  lines: { level: string; message: string }[];
  outcomes: TargetOutcome[];
  bands: Map<string, BandPoint[]>;
}

export function captureForecastTelemetry(): CapturedForecastTelemetry {
  const t: CapturedForecastTelemetry = {
    lines: [],
    outcomes: [],
    bands: new Map(),
    info: (message) => t.lines.push({ level: 'info', message }),
    warn: (message) => t.lines.push({ level: 'warn', message }),
    error: (message) => t.lines.push({ level: 'error', message }),
    outcome: (o) => t.outcomes.push(o),
    band: (id, points) => t.bands.set(id, [...points]),
  };
  return t;
}

export interface World {
  /** Per dimension value (EndpointName, InferenceComponentName, AutoScalingGroupName): data since this time. */
  historySince: Map<string, number>;
  /** Points per query per GetMetricData page. */
  pageSize: number;
  items: Map<string, Record<string, unknown>>;
  /** Registered scalable targets: resource id -> MinCapacity. */
  registered: Map<string, number>;
  actions: Map<string, ScheduledAction>;
  parameters: Map<string, string>;
  /** Auto Scaling groups' warm pools (absent: the group has none). */
  warmPools: Map<string, WarmPoolConfiguration>;
}

type Key = 'cw' | 'aas' | 'ddb' | 'ssm' | 'asg';
const CLASSES = {
  cw: CloudWatchClient,
  aas: ApplicationAutoScalingClient,
  ddb: DynamoDBDocumentClient,
  ssm: SSMClient,
  asg: AutoScalingClient,
} as const;
const stubs: Partial<Record<Key, Stub>> = {};
/**
 * The mock of one client class, created on first use and kept for the test file (mockClient
 * stubs the class prototype, so every instance answers from it). A file that never asks for
 * 'cw' keeps the real CloudWatchClient.send, and its retry middleware, for a scripted HTTP layer.
 */
export const mockOf = (k: Key): Stub => {
  stubs[k] ??= mockClient(CLASSES[k] as never) as unknown as Stub;
  return stubs[k];
};

function fakeMetrics(world: World) {
  mockOf('cw')
    .on(GetMetricDataCommand)
    .callsFake(async (input) => {
      const start = (input.StartTime as Date).getTime();
      const end = (input.EndTime as Date).getTime();
      const page = input.NextToken ? Number(String(input.NextToken).slice(1)) : 0;
      let more = false;
      const results: MetricDataResult[] = (input.MetricDataQueries as MetricDataQuery[]).map((q) => {
        const metric = q.MetricStat!.Metric!;
        const dims = metric.Dimensions as { Value: string }[];
        const since = world.historySince.get(dims[0]!.Value);
        const points: [Date, number][] = [];
        // SageMaker's Invocations, or the Governor/Demand Requests an Auto Scaling group publishes:
        // smooth five-minute sums for the forecast, Poisson-like minutes for the noise.
        if (
          since !== undefined &&
          (metric.MetricName === 'Invocations' || metric.MetricName === 'Requests')
        ) {
          const period = (q.MetricStat!.Period ?? 300) * 1000;
          for (let t = Math.max(start, since); t < end; t += period)
            points.push([new Date(t), period === 60_000 ? minuteCount(t) : 5 * dailyDemand(t)]);
        }
        const slice = points.slice(page * world.pageSize, (page + 1) * world.pageSize);
        if (points.length > (page + 1) * world.pageSize) more = true;
        return {
          Id: q.Id,
          Timestamps: slice.map(([t]) => t),
          Values: slice.map(([, v]) => v),
          StatusCode: more ? 'PartialData' : 'Complete',
        };
      });
      return { MetricDataResults: results, ...(more ? { NextToken: `p${page + 1}` } : {}) };
    });
}

function fakeTable(world: World) {
  const key = (k: { pk: string; sk: string }) => `${k.pk}|${k.sk}`;
  mockOf('ddb')
    .on(GetCommand)
    .callsFake(async (input) => {
      // The attributes the ProjectionExpression names (forecastFloor, leadTimes, leadTimesSfn, noise).
      const item = world.items.get(key(input.Key));
      const names = Object.values(input.ExpressionAttributeNames ?? {}) as string[];
      return { Item: item ? structuredClone(Object.fromEntries(names.map((n) => [n, item[n]]))) : undefined };
    });
  mockOf('ddb')
    .on(UpdateCommand)
    .callsFake(async (input) => {
      // SET #a = :a, #b = :b: the attributes the forecast function writes (forecastFloor, noise,
      // and the tick ledger's status). The ledger's claim is conditional, as in DynamoDB: refused
      // while the tick is done (however long ago), or running since after :stale.
      const item = world.items.get(key(input.Key)) ?? { ...input.Key };
      if (input.ConditionExpression) {
        const v = input.ExpressionAttributeValues as Record<string, string>;
        const status = item.status as string | undefined;
        const open =
          status === undefined ||
          status === 'failed' ||
          (status === 'running' && String(item.startedAt) < v[':stale']!);
        if (!open)
          throw Object.assign(new Error('The conditional request failed'), {
            name: 'ConditionalCheckFailedException',
            Item: { status: { S: status }, startedAt: { S: String(item.startedAt) } },
          });
      }
      for (const [, name, value] of String(input.UpdateExpression).matchAll(/(#\w+) = (:\w+)/g))
        item[input.ExpressionAttributeNames![name!]!] = structuredClone(
          input.ExpressionAttributeValues![value!],
        );
      world.items.set(key(input.Key), item);
      return {};
    });
}

function fakeScaling(world: World) {
  mockOf('aas')
    .on(DescribeScalableTargetsCommand)
    .callsFake(async (input) => ({
      ScalableTargets: (input.ResourceIds as string[])
        .filter((id) => world.registered.has(id))
        .map((id) => ({
          ResourceId: id,
          ScalableDimension: input.ScalableDimension,
          MinCapacity: world.registered.get(id),
          MaxCapacity: 20,
        })),
    }));
  mockOf('aas')
    .on(DescribeScheduledActionsCommand)
    .callsFake(async (input) => {
      const all = [...world.actions.values()].filter((a) => a.ResourceId === input.ResourceId);
      // Two a page, so the adapter's NextToken loop runs.
      const from = input.NextToken ? Number(input.NextToken) : 0;
      return {
        ScheduledActions: all.slice(from, from + 2),
        ...(from + 2 < all.length ? { NextToken: String(from + 2) } : {}),
      };
    });
  mockOf('aas')
    .on(PutScheduledActionCommand)
    .callsFake(async (input) => {
      world.actions.set(input.ScheduledActionName, { ...input, CreationTime: new Date() });
      return {};
    });
  mockOf('aas')
    .on(DeleteScheduledActionCommand)
    .callsFake(async (input) => {
      world.actions.delete(input.ScheduledActionName);
      return {};
    });
}

function fakeGroups(world: World) {
  mockOf('asg')
    .on(DescribeWarmPoolCommand)
    .callsFake(async (input) => {
      const pool = world.warmPools.get(input.AutoScalingGroupName);
      return { Instances: [], ...(pool ? { WarmPoolConfiguration: structuredClone(pool) } : {}) };
    });
  mockOf('asg')
    .on(PutWarmPoolCommand)
    .callsFake(async (input) => {
      const { AutoScalingGroupName, ...config } = input;
      world.warmPools.set(AutoScalingGroupName, { ...config, Status: undefined });
      return {};
    });
}

export interface Rig {
  run: ReturnType<typeof createForecaster>;
  world: World;
  /** The mocks this rig set up (no 'cw' when the history port was given). */
  mocks: Partial<Record<Key, Stub>> & Record<'aas' | 'ddb' | 'ssm' | 'asg', Stub>;
  telemetry: CapturedForecastTelemetry;
  ports: ForecastPorts;
  /** The stored floor of a target (undefined when none). */
  floor: (targetId: string) => ForecastFloor | undefined;
}

export function rig(
  policy = POLICY(),
  over: Partial<ForecastPorts> = {},
  config: Partial<typeof CONFIG> = {},
): Rig {
  const keys: Key[] = over.history ? ['aas', 'ddb', 'ssm', 'asg'] : ['cw', 'aas', 'ddb', 'ssm', 'asg'];
  for (const k of keys) mockOf(k).reset();
  const world: World = {
    historySince: new Map([['chat-llm-prod', NOW - 8 * DAY]]),
    pageSize: 100_000,
    items: new Map(),
    registered: new Map([['endpoint/chat-llm-prod/variant/AllTraffic', 1]]),
    actions: new Map(),
    parameters: new Map([
      [CONFIG.POLICY_PARAMETER_NAME, policy],
      [CONFIG.KILL_SWITCH_PARAMETER_NAME, 'off'],
    ]),
    warmPools: new Map(),
  };
  mockOf('ssm')
    .on(GetParameterCommand)
    .callsFake(async (input) => {
      const value = world.parameters.get(input.Name);
      if (value === undefined) throw Object.assign(new Error('not found'), { name: 'ParameterNotFound' });
      return { Parameter: { Name: input.Name, Value: value } };
    });
  mockOf('ssm')
    .on(GetParametersByPathCommand)
    .callsFake(async (input) => parametersByPath(world.parameters, input));
  if (!over.history) fakeMetrics(world);
  fakeTable(world);
  fakeScaling(world);
  fakeGroups(world);
  const ports = {
    ...awsForecastPorts(
      createClients({
        region: 'us-east-1',
        credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' },
      }),
      CONFIG.STATE_TABLE_NAME,
    ),
    ...over,
  };
  const telemetry = captureForecastTelemetry();
  return {
    run: createForecaster({ config: { ...CONFIG, ...config }, ports, telemetry }),
    world,
    mocks: Object.fromEntries(keys.map((k) => [k, mockOf(k)])) as Rig['mocks'],
    telemetry,
    ports,
    floor: (id) => world.items.get(`TARGET#${id}|STATE`)?.forecastFloor as ForecastFloor | undefined,
  };
}

/** The schedule's event as it arrives (the fixture `sam local invoke` uses too). */
export const eventFile = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(`events/${name}.json`, 'utf8'));
export const TICK = eventFile('forecast-tick');

/**
 * A tick the schedule would send for a run at `now`: 10 s earlier, with an id of its own, so a
 * test that runs the function several times is not refused as stale or as a duplicate.
 */
export const tickAt = (now: number, id = `tick-${new Date(now).toISOString()}`) => ({
  ...TICK,
  id,
  time: new Date(now - 10_000).toISOString(),
});

/** The UpdateItem calls on state items (TARGET#...), leaving out the tick ledger's (pk FORECAST). */
export const stateUpdates = (r: Pick<Rig, 'mocks'>) =>
  r.mocks.ddb
    .commandCalls(UpdateCommand)
    .filter((c) => (c.args[0].input.Key as { pk: string }).pk !== 'FORECAST');

/** The DynamoDB commands sent for state items, in order (the tick ledger's left out). */
export const sentToState = (r: Pick<Rig, 'mocks'>) =>
  r.mocks.ddb
    .calls()
    .filter((c) => ((c.args[0] as { input: { Key?: { pk?: string } } }).input.Key?.pk ?? '') !== 'FORECAST')
    .map((c) => (c.args[0] as object).constructor.name.replace(/Command$/, ''));

/** Names of the SDK commands sent to one mock, in order. */
export const sent = (stub: Stub) =>
  stub.calls().map((c) => (c.args[0] as object).constructor.name.replace(/Command$/, ''));
