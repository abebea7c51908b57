/**
 * Replays of the forecast room in the evaluate function (shared/slo/forecast-room.ts): minute
 * ticks through the real handler code and adapters over aws-sdk-client-mock (./harness.ts), with
 * the target's state item holding a forecast floor whose steps store their band
 * (events/state/forecast-room.json: 2 instances a step, p90 5 % above p50).
 *
 * The target (events/replay/forecast-room.yaml): 2 instances at 84 requests a minute each with a
 * 25 % band (scale out above 105), 150 a minute at the SLO: a written room of 1.79x, so a band of
 * 5 % opens the room to 1.79 / 1.2 = 1.49x, capped at 1.3 (a target of 109.2, band to 136.5).
 * Each tick reads 120 a minute per instance at 1,000 ms:
 *   - narrow band, healthy budget: held at 2 (ForecastConfident), the record says the band, the
 *     room and the factor the target stood at; HeadroomFactor is 1.3;
 *   - the same item with a wide band (p90 30 % above p50), or a floor stored before the band:
 *     the room stays closed and 120 scales out, as the policy is written;
 *   - the room disabled in the policy: the same scale-out;
 *   - the state item's write refused (throttled) on an open tick: nothing written, and the next
 *     tick reads the same floor and opens the room again.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONFIG, eventFile, harness } from './harness.ts';

const POLICY = readFileSync('events/replay/forecast-room.yaml', 'utf8');
const T0 = Date.parse('2025-06-02T12:00:30Z');
const MIN = 60_000;
const US = 1000; // ModelLatency is in microseconds

const tick = (now: number) => ({
  ...(eventFile('scheduler-tick') as object),
  id: 'tick-room',
  time: new Date(now).toISOString(),
});

const stateItem = (floor: (f: Record<string, unknown>) => Record<string, unknown> = (f) => f) => {
  const item = structuredClone(eventFile('state/forecast-room') as Record<string, unknown>);
  item.forecastFloor = floor(item.forecastFloor as Record<string, unknown>);
  return item;
};

async function evaluateOnce(item: Record<string, unknown>, policy = POLICY) {
  const h = harness({ endpoint: { current: 2, desired: 2 } });
  h.parameters.set(CONFIG.POLICY_PARAMETER_NAME, policy);
  h.table.items.set('TARGET#chat-llm|STATE', item);
  Object.assign(h.metricValues, { ModelLatency: 1000 * US, InvocationsPerInstance: 120 });
  h.setMetricMinute(new Date(Math.floor(T0 / MIN) * MIN - MIN).toISOString());
  const [record] = (await h.evaluate(tick(T0), T0)).records;
  return { h, record: record! };
}

describe('the forecast room in the evaluator', () => {
  it('opens on a narrow stored band with a healthy budget: the load held at the room, and the record says why', async () => {
    const { h, record } = await evaluateOnce(stateItem());
    const d = record.decision!;
    expect([record.outcome, d.action, d.desiredCapacity]).toEqual(['held', 'hold', 2]);
    expect(d.reasons).toEqual(['WithinBand', 'ForecastConfident']);
    expect(d.headroom).toMatchObject({
      factor: 1.3,
      forecastRoom: { bandRatio: 1.05, writtenRoom: 150 / 84, bandWeight: 4, budgetFactor: 1 },
    });
    expect(d.signals[0]).toMatchObject({ metric: 'invocationsPerInstance', target: 84 * 1.3 });
    expect(record.inputs.forecastFloor).toMatchObject({ capacity: 2, bandRatio: 1.05 });
    expect(d.message).toContain(
      "the forecast has been accurate (its p90 5 % above its median) and the error budget is healthy, so load targets stand at 1.30x of the policy's",
    );
    expect(h.telemetry.lines.filter((l) => l.level === 'warn')).toEqual([]);
  });

  it.each([
    {
      case: 'the stored band is wide',
      item: () => stateItem((f) => ({ ...f, bandRatios: Array(36).fill(1.3) })),
    },
    {
      case: 'scale-outs were measured slower than planned (the floor planned over 16 minutes, 10 configured)',
      item: () => stateItem((f) => ({ ...f, leadTimeMinutes: 16, leadSource: 'measured', leadSamples: 5 })),
    },
    {
      case: 'the floor was stored before the band',
      item: () =>
        stateItem((f) => {
          const { bandRatios: _, ...older } = f;
          return older;
        }),
    },
  ])('stays closed when $case: 120 a minute scales out as written', async ({ item }) => {
    const { record } = await evaluateOnce(item());
    const d = record.decision!;
    expect([d.action, d.desiredCapacity]).toEqual(['scale-out', 3]);
    expect(d.reasons).not.toContain('ForecastConfident');
    expect(d.headroom?.factor).toBe(1);
    expect(d.headroom?.forecastRoom).toBeUndefined();
  });

  it('a claim refused by DynamoDB (throttled) writes nothing; the next tick opens the room again from the same stored floor', async () => {
    const item = stateItem();
    const h = harness({ endpoint: { current: 2, desired: 2 } });
    h.parameters.set(CONFIG.POLICY_PARAMETER_NAME, POLICY);
    h.table.items.set('TARGET#chat-llm|STATE', structuredClone(item));
    Object.assign(h.metricValues, { ModelLatency: 1000 * US, InvocationsPerInstance: 120 });
    const set = h.table.items.set.bind(h.table.items);
    h.table.items.set = () => {
      h.table.items.set = set;
      throw Object.assign(new Error('Rate of requests exceeds the allowed throughput'), {
        name: 'ThrottlingException',
      });
    };
    const at = (now: number) => {
      h.setMetricMinute(new Date(Math.floor(now / MIN) * MIN - MIN).toISOString());
      return h.evaluate({ ...tick(now), id: `tick-${now}` }, now).then((r) => r.records[0]!);
    };
    const refused = await at(T0);
    expect(refused.outcome).toBe('failed');
    expect(h.table.state('chat-llm')).toEqual(item);
    const next = await at(T0 + MIN);
    expect([next.outcome, next.decision!.action, next.decision!.headroom?.factor]).toEqual([
      'held',
      'hold',
      1.3,
    ]);
    expect(next.decision!.reasons).toContain('ForecastConfident');
    const stored = h.table.state('chat-llm') as Record<string, unknown>;
    expect(stored.version).toBe(13);
    expect(stored.forecastFloor).toEqual(item.forecastFloor);
  });

  it('stays closed when the policy turns it off', async () => {
    const off = POLICY.replace(
      'forecastRoom: { bandWeight: 4, maxFactor: 1.3 }',
      'forecastRoom: { enabled: false }',
    );
    expect(off).not.toBe(POLICY);
    const { record } = await evaluateOnce(stateItem(), off);
    expect([record.decision!.action, record.decision!.headroom?.factor]).toEqual(['scale-out', 1]);
  });
});
