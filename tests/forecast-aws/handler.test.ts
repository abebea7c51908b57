/**
 * The forecast Lambda entry point: configuration parsed at cold start (failing fast naming the
 * variable), a summary returned, one log line per target, and EMF for the dashboard's band:
 * ForecastFloor, ForecastDemandP50 and P90 with dimension [TargetId], stamped with each step.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CONFIG, NOW, rig, TICK } from './fakes.ts';

const ENV = {
  POLICY_PARAMETER_NAME: CONFIG.POLICY_PARAMETER_NAME,
  STATE_TABLE_NAME: CONFIG.STATE_TABLE_NAME,
  KILL_SWITCH_PARAMETER_NAME: CONFIG.KILL_SWITCH_PARAMETER_NAME,
  GOVERNOR_MODE: 'active',
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'testing',
  AWS_SECRET_ACCESS_KEY: 'testing',
  POWERTOOLS_SERVICE_NAME: 'governor-forecast',
  POWERTOOLS_METRICS_NAMESPACE: 'Governor',
};
const context = {
  functionName: 'governor-forecast',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:governor-forecast',
  memoryLimitInMB: '512',
  awsRequestId: 'req-1',
  getRemainingTimeInMillis: () => 300_000,
} as never;

let output: string[];
beforeEach(() => {
  vi.resetModules();
  // Only Date: the handler reads the clock once; promises and timers stay real.
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(NOW);
  for (const [k, v] of Object.entries(ENV)) vi.stubEnv(k, v);
  output = [];
  for (const stream of [process.stdout, process.stderr]) {
    vi.spyOn(stream, 'write').mockImplementation((chunk) => {
      output.push(String(chunk));
      return true;
    });
  }
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

interface Emf {
  _aws: {
    Timestamp: number;
    CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string }[] }[];
  };
  TargetId: string;
  ForecastFloor: number;
}
const emf = () =>
  output
    .flatMap((chunk) => chunk.split('\n'))
    .filter((line) => line.includes('"_aws"'))
    .map((line) => JSON.parse(line) as Emf);

describe('the forecast Lambda handler', () => {
  it.each([
    {
      case: 'a tick from another account',
      tick: { ...TICK, account: '999999999999' },
      reason: 'ForeignAccount',
    },
    { case: 'a tick from another region', tick: { ...TICK, region: 'eu-west-1' }, reason: 'ForeignRegion' },
    { case: 'a tick from another source', tick: { ...TICK, source: 'my.app' }, reason: 'ForeignSource' },
    { case: 'a tick dated 1970', tick: { ...TICK, time: '1970-01-01T00:00:00Z' }, reason: 'StaleEvent' },
  ])('refuses $case with no AWS call, reading the account from the context', async ({ tick, reason }) => {
    const r = rig();
    const { handler } = await import('#functions/forecast/handler.ts');
    expect(await handler(tick, context)).toMatchObject({ ignored: reason, targets: [] });
    for (const m of Object.values(r.mocks)) expect(m.calls()).toEqual([]);
  });

  it.each([
    { case: 'a missing table name', unset: 'STATE_TABLE_NAME', message: /STATE_TABLE_NAME is required/ },
    {
      case: 'a missing policy parameter name',
      unset: 'POLICY_PARAMETER_NAME',
      message: /POLICY_PARAMETER_NAME is required/,
    },
  ])('fails at cold start naming $case', async ({ unset, message }) => {
    vi.stubEnv(unset, undefined as unknown as string);
    await expect(import('#functions/forecast/handler.ts')).rejects.toThrow(message);
  });

  it('forecasts on the tick, returns a summary and writes the band as EMF per step', async () => {
    const r = rig();
    const { handler } = await import('#functions/forecast/handler.ts');
    const summary = await handler(TICK, context);
    expect(summary).toEqual({
      eventId: TICK.id,
      ignored: null,
      targets: [
        {
          targetId: 'chat-llm',
          outcome: 'written',
          kind: 'forecast',
          floorNow: expect.any(Number),
          floorPeak: expect.any(Number),
          actions: 'written',
        },
      ],
    });
    expect(r.floor('chat-llm')).toBeDefined();
    const lines = emf();
    expect(lines).toHaveLength(12);
    for (const line of lines) {
      expect(line._aws.CloudWatchMetrics).toEqual([
        {
          Namespace: 'Governor',
          Dimensions: [['TargetId']],
          Metrics: [
            { Name: 'ForecastFloor', Unit: 'Count' },
            { Name: 'ForecastDemandP50', Unit: 'Count' },
            { Name: 'ForecastDemandP90', Unit: 'Count' },
          ],
        },
      ]);
      expect(line.TargetId).toBe('chat-llm');
    }
    expect(lines.map((l) => l._aws.Timestamp)).toEqual(
      Array.from({ length: 12 }, (_, i) => Date.parse('2025-06-09T12:00:00Z') + i * 300_000),
    );
    const logged = output.find((l) => l.includes('"forecast chat-llm: forecast floor written'));
    expect(JSON.parse(logged!)).toMatchObject({
      level: 'INFO',
      service: 'governor-forecast',
      outcome: { outcome: 'written' },
    });
  });
});
