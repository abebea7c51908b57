/**
 * Replays for the measured noise: the recorded minute tick (events/scheduler-tick.json) through
 * the evaluate function with the real adapters over aws-sdk-client-mock (./harness.ts), with the
 * forecast function's `noise` attribute in the state item (events/state/noise.json: a = 1.2,
 * b = 0.002, fitted at 11:00:10, an hour before the tick).
 *
 * The target is small and noisy: 1 instance, 20 requests a minute per instance as its target,
 * a 10 % tolerance. The tick reads 23: a ratio of 1.15, above the plain band (1.1), so without
 * noise it scales out after one breaching minute. With the model, 23 requests a minute stray by
 * sqrt(1.2 x 23 + 0.002 x 23^2) = 5.35, a relative 0.233, so with bandSigmas 1 the band is
 * +-23 % and 1.15 is within it: the target holds.
 */
import { StartExecutionCommand } from '@aws-sdk/client-sfn';
import { describe, expect, it } from 'vitest';
import { CONFIG, eventFile, harness } from './harness.ts';

const NOW = Date.parse('2025-06-02T12:00:30Z');
const MIN = 60_000;
const KEY = 'TARGET#chat-llm|STATE';

const POLICY = (noise = '{ floorSigmas: 2.33, bandSigmas: 1 }') => `version: 1
targets:
  - id: chat-llm
    kind: sagemaker-variant
    region: us-east-1
    endpointName: chat-llm-prod
    variantName: AllTraffic
    instanceCapacity: { requestsPerMinuteAtSlo: 40 }
    scaling: { minCapacity: 1, maxCapacity: 10 }
    signals: [{ metric: invocationsPerInstance, target: 20, tolerance: 0.1 }]
    damping: { scaleOutBreaches: 1 }
    forecast: { quantile: p50, requestsPerInstance: 20, leadTimeMinutes: 10, refreshMinutes: 180 }
    noise: ${noise}
`;

const stateFile = (name: string) => structuredClone(eventFile(`state/${name}`) as Record<string, unknown>);

/** The tick against 1 instance at `perInstance` requests a minute, with the state item given. */
async function replay(item: Record<string, unknown> | undefined, policy = POLICY(), perInstance = 23) {
  const h = harness({ endpoint: { current: 1, desired: 1 } });
  h.parameters.set(CONFIG.POLICY_PARAMETER_NAME, policy);
  h.metricValues.InvocationsPerInstance = perInstance;
  if (item) h.table.items.set(KEY, item);
  const [record] = (await h.evaluate(eventFile('scheduler-tick'), NOW)).records;
  return { h, record: record! };
}

describe('a noisy low-volume target', () => {
  it('holds inside its widened band where the plain tolerance would scale out', async () => {
    const plain = await replay(undefined);
    expect(plain.record.decision).toMatchObject({
      action: 'scale-out',
      desiredCapacity: 2,
      reasons: ['ScaleOutBreach'],
    });
    expect(plain.record.inputs.noise).toBeNull();

    const { h, record } = await replay(stateFile('noise'));
    expect(record.outcome).toBe('held');
    expect(record.decision).toMatchObject({ action: 'hold', desiredCapacity: 1, reasons: ['WithinBand'] });
    expect(record.decision!.signals[0]!.noiseBand).toBeCloseTo(0.2328, 4);
    expect(record.decision!.message).toContain(
      "every signal is within its band (invocationsPerInstance's widened to +-23 % by its measured noise)",
    );
    expect(h.mocks.sfn.commandCalls(StartExecutionCommand)).toHaveLength(0);
  });

  it('records the noise it used, its age and the widened band beside the tolerance', async () => {
    const { record } = await replay(stateFile('noise'));
    expect(record.inputs.noise).toEqual({
      status: 'used',
      a: 1.2,
      b: 0.002,
      samples: 2865,
      computedAt: Date.parse('2025-06-02T11:00:10Z'),
      ageMinutes: 60.3,
      bands: { invocationsPerInstance: { tolerance: 0.1, band: expect.closeTo(0.2328, 4) } },
    });
  });

  it('reads the noise from the state item it reads anyway (no extra call), and its claim keeps it', async () => {
    const { h } = await replay(stateFile('noise'));
    expect(h.takeCalls()).toEqual([
      'SSM.GetParameter',
      'SSM.GetParametersByPath',
      'SSM.GetParameter',
      'CloudWatch.GetMetricData',
      'SageMaker.DescribeEndpoint',
      'ApplicationAutoScaling.DescribeScalableTargets',
      'DynamoDB.Get',
      'DynamoDB.Update',
      'DynamoDB.Put',
    ]);
    expect(h.table.state('chat-llm')).toMatchObject({ version: 13, noise: stateFile('noise').noise });
  });

  it('still scales out when the load leaves even the widened band: 26 a minute, +-22 %, and 1.3 > 1.22', async () => {
    const { record } = await replay(stateFile('noise'), POLICY(), 26);
    expect(record.decision).toMatchObject({ action: 'scale-out', desiredCapacity: 2 });
    expect(record.inputs.noise?.bands.invocationsPerInstance?.band).toBeGreaterThan(0.2);
  });
});

describe('a noise model the evaluator does not use', () => {
  it.each([
    {
      case: 'older than 3 x refreshMinutes (540 minutes) is stale: the plain tolerance scales out, and the record says so',
      item: () => {
        const item = stateFile('noise');
        (item.noise as { computedAt: number }).computedAt = NOW - 541 * MIN;
        return item;
      },
      policy: POLICY(),
      noise: { status: 'stale', ageMinutes: 541, bands: {} },
      warn: null,
    },
    {
      case: 'a malformed one is set aside with a warning, and the evaluation goes on',
      item: () => stateFile('malformed-noise'),
      policy: POLICY(),
      noise: null,
      warn: /^state of chat-llm: noise set aside \(the band keeps its tolerance until the next forecast run\): a Too small: expected number to be >=0; b Invalid input: expected number, received string$/,
    },
    {
      case: 'noise turned off in the policy leaves the stored model unused',
      item: () => stateFile('noise'),
      policy: POLICY('{ enabled: false }'),
      noise: null,
      warn: null,
    },
  ])('$case', async ({ item, policy, noise, warn }) => {
    const { h, record } = await replay(item(), policy);
    expect(record.outcome).toBe('started');
    expect(record.decision).toMatchObject({
      action: 'scale-out',
      desiredCapacity: 2,
      reasons: ['ScaleOutBreach'],
    });
    expect(record.decision!.signals[0]!.noiseBand).toBeUndefined();
    if (noise === null) expect(record.inputs.noise).toBeNull();
    else expect(record.inputs.noise).toMatchObject(noise);
    const warned = h.telemetry.lines.filter((l) => l.level === 'warn').map((l) => l.message);
    if (warn === null) expect(warned).toEqual([]);
    else expect(warned).toEqual([expect.stringMatching(warn)]);
  });
});

describe('a level floor', () => {
  // Written by the forecast run at 12:00:10 for a target with under a day of history: 3 instances
  // from 11:55 to 13:05 (the last level plus 2.33 of its noise), over a measured 14-minute lead.
  const levelFloor = {
    kind: 'level',
    quantile: 'p50',
    computedAt: NOW - 20_000,
    startsAt: Date.parse('2025-06-02T11:55:00Z'),
    stepMinutes: 5,
    leadTimeMinutes: 14,
    leadSource: 'measured',
    configuredLeadTimeMinutes: 10,
    leadSamples: 3,
    capacities: new Array(14).fill(3),
    level: 41,
    noise: { floorSigmas: 2.33, a: 1.2, b: 0.002, samples: 2865 },
  };

  it('holds capacity up: the record names its kind, and no lead (a level floor is planned over none)', async () => {
    const { record } = await replay({ ...stateFile('noise'), forecastFloor: levelFloor }, POLICY(), 20);
    expect(record.decision).toMatchObject({
      action: 'scale-out',
      desiredCapacity: 3,
      reasons: ['WithinBand', 'ForecastFloor'],
    });
    expect(record.decision!.reasons).not.toContain('LeadTimeMeasured');
    expect(record.inputs.forecastFloor).toEqual({
      capacity: 3,
      quantile: 'p50',
      computedAt: NOW - 20_000,
      kind: 'level',
    });
    expect(record.inputs.leadTime).toBeNull();
  });

  it('a forecast floor is recorded as kind forecast, with its lead', async () => {
    const forecastFloor = { ...levelFloor, kind: 'forecast' };
    const { record } = await replay({ ...stateFile('noise'), forecastFloor }, POLICY(), 20);
    expect(record.inputs.forecastFloor).toMatchObject({ kind: 'forecast' });
    expect(record.inputs.leadTime).toMatchObject({ minutes: 14, source: 'measured' });
    expect(record.decision!.reasons).toContain('LeadTimeMeasured');
  });
});
