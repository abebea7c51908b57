/**
 * The basis of per-instance readings through the evaluate function (aws-sdk-client-mock): right
 * after a scale-out the newest InvocationsPerInstance was averaged over the smaller fleet, and
 * the evaluator reads the fleet that served it from Invocations of the same minute, as the
 * backtest gives the engine the ready count of the reading's minute. Without it the engine
 * multiplies the old per-instance value by today's fleet and counts the load twice.
 */
import { describe, expect, it } from 'vitest';
import { eventFile, harness } from './harness.ts';

const NOW = Date.parse('2025-06-02T12:00:30Z');

describe('the basis of the per-instance readings', () => {
  // 8 instances in service; the 11:59 datapoint: 160 a minute per instance, averaged over the 4
  // that served 640 requests (the replay policy: target 84, band 63-105).
  const tick = async (invocations: number | undefined) => {
    const h = harness({ endpoint: { current: 8, desired: 8 } });
    Object.assign(h.metricValues, { InvocationsPerInstance: 160, GPUUtilization: 40, ModelLatency: 400_000 });
    h.metricValues.Invocations = invocations;
    const [record] = (await h.evaluate(eventFile('scheduler-tick'), NOW)).records;
    return record!;
  };

  const proposal = (record: Awaited<ReturnType<typeof tick>>) =>
    record.decision!.signals.find((s) => s.metric === 'invocationsPerInstance')!.proposal;

  it('640 requests at 160 per instance: 4 served them, and the 8 in service already cover 640 at 84', async () => {
    const record = await tick(640);
    expect(record.inputs.readings.invocationsPerInstance).toMatchObject({ value: 160, basis: 4 });
    expect(proposal(record)).toBe(8);
    expect(record.decision).toMatchObject({ action: 'hold', currentCapacity: 8, desiredCapacity: 8 });
  });

  it('without Invocations the 8 in service are the basis: 1,280 requests ask for 16', async () => {
    const record = await tick(undefined);
    expect(record.inputs.readings.invocationsPerInstance).not.toHaveProperty('basis');
    expect(proposal(record)).toBe(16);
    expect(record.decision!.reasons.some((r) => r.startsWith('ScaleOut'))).toBe(true);
  });
});
