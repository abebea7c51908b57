/**
 * The EMF catalogue the cost counts (shared/cost/emf.ts) against what the functions' telemetry
 * really publishes: each telemetry module is driven with a recording Metrics, and every (name,
 * dimensions) it sends must be in the catalogue for that target, and the other way round.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import { describe, expect, it } from 'vitest';
import { powertoolsTelemetry } from '#functions/evaluate/telemetry.ts';
import { powertoolsForecastTelemetry } from '#functions/forecast/telemetry.ts';
import type { DecisionRecord } from '#shared/apply/records.ts';
import { serviceSeries, targetSeries } from '#shared/cost/emf.ts';
import { TargetSchema } from '#shared/policy/schema.ts';

/** A Metrics that remembers every (name, dimension names) published. */
function recording() {
  const sent = new Set<string>();
  let dims: string[] = [];
  const metrics = {
    clearDefaultDimensions: () => {},
    setTimestamp: () => {},
    addDimension: (name: string) => dims.push(name),
    addDimensions: (d: Record<string, string>) => dims.push(...Object.keys(d)),
    addMetric: (name: string) => sent.add(`${name} [${[...new Set(dims)].sort().join(',')}]`),
    publishStoredMetrics: () => {
      dims = [];
    },
  };
  return { metrics: metrics as unknown as Metrics, sent };
}
const logger = { info: () => {}, warn: () => {}, error: () => {} } as unknown as Logger;
const key = (s: { name: string; dimensions: string[] }) =>
  `${s.name} [${[...s.dimensions].sort().join(',')}]`;

const target = TargetSchema.parse({
  id: 'chat',
  kind: 'sagemaker-variant',
  region: 'us-east-1',
  endpointName: 'e',
  scaling: { minCapacity: 1, maxCapacity: 4 },
  signals: [
    { metric: 'invocationsPerInstance', target: 100 },
    { metric: 'p95LatencyMs', sloMs: 2000 },
  ],
  forecast: { requestsPerInstance: 100 },
});

describe('the evaluate function publishes what the catalogue counts', () => {
  it('per target with an SLO control: 6 series, 4 budget series, 2 burn rates (and one per reason)', () => {
    const { metrics, sent } = recording();
    const record = {
      targetId: 'chat',
      outcome: 'applied',
      decision: {
        desiredCapacity: 3,
        currentCapacity: 2,
        reasons: ['ScaleOutBreach'],
        headroom: { remaining: 0.5, factor: 0.8, fastBurn: 1, slowBurn: 0.5 },
      },
      inputs: { slo: { attainment: 0.999, atRisk: false } },
    } as unknown as DecisionRecord;
    const telemetry = powertoolsTelemetry(logger, metrics);
    telemetry.decision(record, 5);
    telemetry.invocationSucceeded(50);
    const reason = 'Decisions [Reason,TargetId]';
    expect(sent.has(reason)).toBe(true);
    const expected = [...targetSeries(target), ...serviceSeries()]
      .filter((s) => s.fn === 'evaluate')
      .map(key);
    expect([...sent].filter((s) => s !== reason).sort()).toEqual([...new Set(expected)].sort());
  });
});

describe('the forecast function publishes what the catalogue counts', () => {
  it('per forecast target: the floor and the p50 and p90 demand', () => {
    const { metrics, sent } = recording();
    powertoolsForecastTelemetry(logger, metrics).band('chat', [
      { at: 0, floor: 2, p50: 100, p90: 140 },
    ] as never);
    const expected = targetSeries(target)
      .filter((s) => s.fn === 'forecast')
      .map(key);
    expect([...sent].sort()).toEqual(expected.sort());
  });
});
