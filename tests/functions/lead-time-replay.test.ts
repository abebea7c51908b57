/**
 * Replays for the measured lead time: the recorded minute tick (events/scheduler-tick.json, its id
 * and time moved along a timeline) through the evaluate function with the real adapters over
 * aws-sdk-client-mock (./harness.ts), against a SageMaker endpoint whose instances serve 13
 * minutes after they are asked for. Then the hourly forecast run over the state item the
 * evaluations left, and the evaluation after it.
 *
 * The timeline of one scale-out (t0 = 12:00:30):
 *   t0          250 requests per instance on 2: scale out to 5 (the state machine asks SageMaker)
 *   t0 + 1 min  desired 5, ready 2: waiting, nothing recorded
 *   t0 + 12 min ready 2: waiting
 *   t0 + 13 min ready 5: one sample {t0, t0 + 13 min} in leadTimes, in the claim's UpdateItem
 *   t0 + 14 min ready 5: already recorded, nothing added
 */
import {
  DescribeAutoScalingGroupsCommand,
  DescribePoliciesCommand,
  SetDesiredCapacityCommand,
} from '@aws-sdk/client-auto-scaling';
import { DescribeEndpointCommand } from '@aws-sdk/client-sagemaker';
import { StartExecutionCommand } from '@aws-sdk/client-sfn';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ForecastPorts } from '#functions/forecast/ports.ts';
import { createForecaster } from '#functions/forecast/run.ts';
import type { HistoryPort } from '#shared/aws/demand-history.ts';
import type { StoredForecastInputs } from '#shared/aws/forecast-store.ts';
import { ForecastFloorSchema } from '#shared/floors/stored.ts';
import {
  captureForecastTelemetry,
  dailyDemand,
  CONFIG as FORECAST_CONFIG,
  tickAt as forecastTickAt,
} from '../forecast-aws/fakes.ts';
import { CONFIG, eventFile, harness } from './harness.ts';

const MIN = 60_000;
const T0 = Date.parse('2025-06-02T12:00:30Z');
const KEY = 'TARGET#chat-llm|STATE';

/** One target, one load signal, scale-out after one breaching minute, scale-in only after 30. */
const POLICY = (
  damping = '{ scaleOutBreaches: 1, scaleInBreaches: 30, scaleInStabilizationSeconds: 1800 }',
) => `version: 1
targets:
  - id: chat-llm
    kind: sagemaker-variant
    region: us-east-1
    endpointName: chat-llm-prod
    variantName: AllTraffic
    scaling: { minCapacity: 1, maxCapacity: 20 }
    signals: [{ metric: invocationsPerInstance, target: 100 }]
    damping: ${damping}
    panic: { enabled: false }
    forecast: { quantile: p90, requestsPerInstance: 100, leadTimeMinutes: 10, historyDays: 7, scheduledActions: false }
`;

/** The recorded tick, moved to `at` (the scheduler fires on the minute; the function runs 30 s later). */
const tickAt = (at: number) => ({
  ...(eventFile('scheduler-tick') as Record<string, unknown>),
  id: `tick-${new Date(at).toISOString()}`,
  time: new Date(at - 30_000).toISOString().replace('.000', ''),
});

/**
 * The evaluate function against an endpoint that serves `startMinutes` after it is asked: a
 * started execution sets the desired count at once (the state machine's update), and the
 * current count follows when the instances serve.
 */
function world(policy = POLICY()) {
  const h = harness();
  h.parameters.set(CONFIG.POLICY_PARAMETER_NAME, policy);
  const fleet = { desired: 2, current: 2 };
  h.mocks.sm.on(DescribeEndpointCommand).callsFake(async () => ({
    EndpointStatus: fleet.desired === fleet.current ? 'InService' : 'Updating',
    ProductionVariants: [
      { VariantName: 'AllTraffic', CurrentInstanceCount: fleet.current, DesiredInstanceCount: fleet.desired },
    ],
  }));
  h.mocks.sfn.on(StartExecutionCommand).callsFake(async (input) => {
    fleet.desired = JSON.parse(input.input).desiredCapacity;
    return {
      executionArn: `arn:aws:states:us-east-1:123456789012:execution:x:${input.name}`,
      startDate: new Date(),
    };
  });
  /** One evaluation at `at` with `perInstance` requests a minute per instance in the last minute. */
  const tick = async (at: number, perInstance: number) => {
    h.setMetricMinute(new Date(at - 90_000).toISOString());
    h.metricValues.InvocationsPerInstance = perInstance;
    const report = await h.evaluate(tickAt(at), at);
    return { record: report.records[0]!, calls: h.takeCalls() };
  };
  return { h, fleet, tick, state: () => h.table.items.get(KEY) };
}

/** Reads and the one conditional write of every evaluation, and the audit item: nothing more for a sample. */
const TICK_CALLS = [
  'CloudWatch.GetMetricData',
  'SageMaker.DescribeEndpoint',
  'ApplicationAutoScaling.DescribeScalableTargets',
  'DynamoDB.Get',
  'DynamoDB.Update',
];

type World = ReturnType<typeof world>;

describe('a scale-out asked for at t0 that serves at t0 + 13 min', () => {
  // The SDK mocks are shared by the file: a world is made when its describe runs, not when it is collected.
  let w: World;
  beforeAll(() => {
    w = world();
  });
  const steps: { at: number; perInstance: number; ready?: number }[] = [
    { at: T0, perInstance: 250 },
    { at: T0 + 1 * MIN, perInstance: 100 },
    { at: T0 + 12 * MIN, perInstance: 100 },
    { at: T0 + 13 * MIN, perInstance: 100, ready: 5 },
    { at: T0 + 14 * MIN, perInstance: 100 },
  ];
  const seen: Awaited<ReturnType<World['tick']>>[] = [];

  it('is started once at t0, and every tick after it makes the same calls: one Get and one Update of the state item', async () => {
    for (const s of steps) {
      if (s.ready !== undefined) w.fleet.current = s.ready;
      seen.push(await w.tick(s.at, s.perInstance));
    }
    expect(seen.map((s) => s.record.outcome)).toEqual(['started', 'held', 'held', 'held', 'held']);
    expect(seen[0]!.record.decision).toMatchObject({
      action: 'scale-out',
      currentCapacity: 2,
      desiredCapacity: 5,
    });
    expect(seen[0]!.calls.filter((c) => c.startsWith('DynamoDB.'))).toEqual([
      'DynamoDB.Get',
      'DynamoDB.Update',
      'DynamoDB.Put',
    ]);
    for (const { calls } of seen.slice(1)) {
      expect(calls.filter((c) => !c.startsWith('SSM.'))).toEqual([...TICK_CALLS, 'DynamoDB.Put']);
    }
  });

  it('records one sample, {t0, t0 + 13 min}, at t0 + 13 min and never again', () => {
    expect(seen.map((s) => s.record.leadSample ?? null)).toEqual([
      null,
      null,
      null,
      { requestedAt: T0, servingAt: T0 + 13 * MIN, minutes: 13 },
      null,
    ]);
    expect(w.state()!.leadTimes).toEqual([{ requestedAt: T0, servingAt: T0 + 13 * MIN }]);
    expect(w.h.telemetry.lines).toContainEqual({
      level: 'info',
      message:
        'lead time of chat-llm: the scale-out asked for at 2025-06-02T12:00:30.000Z served after 13.0 min (recorded in leadTimes)',
    });
  });
});

describe('three scale-outs of 13 minutes, then the hourly forecast and the next evaluation', () => {
  let w: World;
  beforeAll(() => {
    w = world();
  });
  const HOUR = 60 * MIN;
  // 2 -> 5, then 5 -> 10 (a step of +5: 100 % of 5), then 10 -> 20 (the max): each serves 13 min later.
  const cycles = [
    { at: T0, to: 5 },
    { at: T0 + HOUR, to: 10 },
    { at: T0 + 2 * HOUR, to: 20 },
  ];
  /** The forecast function's ports over the same table (its own adapter has tests of its own). */
  const ports = (): ForecastPorts => {
    const floors = {
      read: async (id: string): Promise<StoredForecastInputs> => {
        const item = w.h.table.items.get(`TARGET#${id}|STATE`);
        return { floor: item?.forecastFloor, leadTimes: item?.leadTimes, leadTimesSfn: item?.leadTimesSfn };
      },
      write: async (id: string, attributes: { forecastFloor?: unknown }) => {
        const item = w.h.table.items.get(`TARGET#${id}|STATE`)!;
        item.forecastFloor = structuredClone(attributes.forecastFloor);
      },
      claimTick: async () => ({ claimed: true as const }),
      finishTick: async () => {},
    };
    const history: HistoryPort = {
      demand: async (_region, queries, window) =>
        queries.map((q) => {
          const at = Array.from(
            { length: (window.end - window.start) / 300_000 },
            (_, i) => window.start + i * 300_000,
          );
          return {
            Id: q.id,
            Timestamps: at.map((t) => new Date(t)),
            Values: at.map((t) => 5 * dailyDemand(t)),
            StatusCode: 'Complete',
          };
        }),
    };
    const none = async () => {
      throw new Error('not called with scheduledActions: false and no warmPool');
    };
    return {
      history,
      floors: floors as ForecastPorts['floors'],
      actions: { list: async () => [], put: none, remove: none, minCapacity: none },
      parameters: { get: async (name) => w.h.parameters.get(name) ?? null, under: async () => [] },
      warmPools: { read: none, resize: none },
    };
  };
  const forecastAt = T0 + 3 * HOUR - 20_000; // 15:00:10
  const telemetry = captureForecastTelemetry();

  it('are recorded once each, 13 minutes apiece', async () => {
    for (const c of cycles) {
      const { record } = await w.tick(c.at, 250);
      expect(record.decision).toMatchObject({ action: 'scale-out', desiredCapacity: c.to });
      await w.tick(c.at + MIN, 100);
      w.fleet.current = c.to;
      await w.tick(c.at + 13 * MIN, 100);
      await w.tick(c.at + 14 * MIN, 100);
    }
    expect(w.state()!.leadTimes).toEqual(
      cycles.map((c) => ({ requestedAt: c.at, servingAt: c.at + 13 * MIN })),
    );
  });

  it('make the next forecast run plan the floor over 14 minutes (p90 13 + 1), and say why', async () => {
    const run = createForecaster({ config: FORECAST_CONFIG, ports: ports(), telemetry });
    const report = await run(forecastTickAt(forecastAt), forecastAt);
    expect(report.outcomes[0]).toMatchObject({
      outcome: 'written',
      lead: {
        minutes: 14,
        configuredMinutes: 10,
        measuredP90Minutes: 13,
        samples: 3,
        source: 'measured',
        previousMinutes: null,
      },
    });
    const floor = ForecastFloorSchema.parse(w.state()!.forecastFloor);
    expect(floor).toMatchObject({
      leadTimeMinutes: 14,
      leadSource: 'measured',
      configuredLeadTimeMinutes: 10,
      leadSamples: 3,
    });
    const { describeOutcome } = await import('#functions/forecast/telemetry.ts');
    expect(describeOutcome(report.outcomes[0]!).message).toContain(
      '; lead time 14 min: p90 of 3 measured scale-outs is 13.0 min + 1 min metric delay, above the configured 10;',
    );
  });

  it('then the evaluator passes the floor’s lead to the engine and records it with its source', async () => {
    const { record } = await w.tick(T0 + 3 * HOUR, 100);
    expect(record.inputs.leadTime).toEqual({
      minutes: 14,
      configuredMinutes: 10,
      samples: 3,
      source: 'measured',
    });
    expect(record.inputs.forecastFloor).not.toBeNull();
  });
});

describe('a scale-out superseded by a scale-in before it served', () => {
  // A SageMaker endpoint is Updating until the scale-out is done, so the evaluator defers any
  // scale-in until then; an Auto Scaling group takes SetDesiredCapacity while instances start.
  const GROUP_POLICY = `version: 1
targets:
  - id: batch-gpu
    kind: ec2-asg
    region: us-east-1
    autoScalingGroupName: batch-gpu-asg
    scaling: { minCapacity: 1, maxCapacity: 20 }
    signals: [{ metric: gpuUtilization, target: 50 }]
    damping: { scaleOutBreaches: 1, scaleInBreaches: 2, scaleInStabilizationSeconds: 60, scaleInCooldownSeconds: 0 }
    panic: { enabled: false }
`;

  it('records nothing, even when the capacity it asked for serves later', async () => {
    const h = harness();
    h.parameters.set(CONFIG.POLICY_PARAMETER_NAME, GROUP_POLICY);
    const group = { desired: 2, inService: 2 };
    h.mocks.asg.on(DescribeAutoScalingGroupsCommand).callsFake(async () => ({
      AutoScalingGroups: [
        {
          AutoScalingGroupName: 'batch-gpu-asg',
          DesiredCapacity: group.desired,
          Instances: Array.from({ length: group.inService }, (_, i) => ({
            InstanceId: `i-${i}`,
            LifecycleState: 'InService',
          })),
          SuspendedProcesses: [],
        },
      ],
    }));
    h.mocks.asg.on(DescribePoliciesCommand).resolves({ ScalingPolicies: [] });
    h.mocks.asg.on(SetDesiredCapacityCommand).callsFake(async (input) => {
      group.desired = input.DesiredCapacity;
      return {};
    });
    const tick = async (at: number, gpu: number) => {
      h.setMetricMinute(new Date(at - 90_000).toISOString());
      h.metricValues.nvidia_smi_utilization_gpu = gpu;
      return (await h.evaluate(tickAt(at), at)).records[0]!;
    };
    expect((await tick(T0, 100)).decision).toMatchObject({ action: 'scale-out', desiredCapacity: 4 });
    await tick(T0 + MIN, 5); // almost idle: the scale-in streak starts
    const scaleIn = await tick(T0 + 2 * MIN, 5);
    expect(scaleIn).toMatchObject({
      outcome: 'applied',
      decision: { action: 'scale-in', currentCapacity: 4 },
    });
    group.inService = 4; // the 4 asked for at t0 serve anyway, before the group terminates one
    const late = await tick(T0 + 13 * MIN, 5);
    expect(late.leadSample).toBeUndefined();
    expect(h.table.items.get('TARGET#batch-gpu|STATE')!.leadTimes).toBeUndefined();
  });
});

describe('a malformed leadTimes attribute', () => {
  // The recorded item holds ISO strings where the evaluator keeps epoch ms; its last scale-out
  // (to 2 at 11:47:30) has 2 instances serving at 12:00:30.
  const seeded = () => {
    const w = world();
    w.h.table.items.set(
      KEY,
      structuredClone(eventFile('state/malformed-lead-times') as Record<string, unknown>),
    );
    return w;
  };

  it('is set aside with a problem line, never fatal: the tick decides and writes as usual', async () => {
    const w = seeded();
    w.fleet.desired = 3; // the evaluator waits for a scale-out to 3 that does not serve yet
    const engine = w.state()!.engine as Record<string, unknown>;
    engine.lastScaleOutTo = 3;
    const { record, calls } = await w.tick(T0, 100);
    expect(record.outcome).toBe('held');
    expect(calls.filter((c) => !c.startsWith('SSM.'))).toEqual([...TICK_CALLS, 'DynamoDB.Put']);
    expect(w.h.telemetry.lines).toContainEqual({
      level: 'warn',
      message: expect.stringMatching(
        /^state of chat-llm: leadTimes set aside \(measuring starts again\): 0\.requestedAt Invalid input: expected number, received string/,
      ),
    });
    // Left as it was until a sample replaces it.
    expect(w.state()!.leadTimes).toEqual(
      (eventFile('state/malformed-lead-times') as { leadTimes: unknown }).leadTimes,
    );
  });

  it('is replaced by the next sample: the scale-out of 11:47:30 served at 12:00:30, 13 minutes', async () => {
    const w = seeded();
    const { record } = await w.tick(T0, 100);
    expect(record.leadSample).toEqual({ requestedAt: T0 - 13 * MIN, servingAt: T0, minutes: 13 });
    expect(w.state()!.leadTimes).toEqual([{ requestedAt: T0 - 13 * MIN, servingAt: T0 }]);
  });
});

describe("the state machine's samples", () => {
  it('are trimmed to the newest 20 by the claim the evaluator writes anyway', async () => {
    const w = world();
    const entries = Array.from({ length: 23 }, (_, i) => ({
      requestedAt: new Date(T0 - (30 - i) * 60 * MIN).toISOString(),
      servingAt: new Date(T0 - (30 - i) * 60 * MIN + 12 * MIN).toISOString(),
    }));
    w.h.table.items.set(KEY, { pk: 'TARGET#chat-llm', sk: 'STATE', leadTimesSfn: entries });
    const { calls } = await w.tick(T0, 100);
    expect(calls.filter((c) => c.startsWith('DynamoDB.'))).toEqual([
      'DynamoDB.Get',
      'DynamoDB.Update',
      'DynamoDB.Put',
    ]);
    expect(w.state()!.leadTimesSfn).toEqual(entries.slice(3));
  });

  it('in shadow mode nothing was started, so nothing is measured', async () => {
    const h = harness({ deps: { mode: 'shadow' } });
    h.parameters.set(CONFIG.POLICY_PARAMETER_NAME, POLICY());
    const item = structuredClone(eventFile('state/malformed-lead-times') as Record<string, unknown>);
    delete item.leadTimes;
    h.table.items.set(KEY, item);
    h.setMetricMinute('2025-06-02T11:59:00Z');
    const [record] = (await h.evaluate(tickAt(T0), T0)).records;
    expect(record!.outcome).toBe('shadow');
    expect(record!.leadSample).toBeUndefined();
    expect(h.table.items.get(KEY)!.leadTimes).toBeUndefined();
  });
});
