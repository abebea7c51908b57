/**
 * The evaluator and the forecast floor schedule: the step that holds now is passed to decide()
 * (which applies it with reason ForecastFloor) and recorded; a stale, future or disabled floor
 * is not. The evaluate function over aws-sdk-client-mock (tests/functions/harness.ts).
 */
import { describe, expect, it } from 'vitest';
import { CONFIG, eventFile, harness, REPLAY_POLICY } from '../functions/harness.ts';

const TICK_AT = Date.parse('2025-06-02T12:00:00Z');
const NOW = TICK_AT + 30_000;
const MIN = 60_000;

/**
 * The replays' policy (events/replay/chat-llm.yaml, not the example, which is retuned): chat-llm at
 * 2 instances, 84 requests per instance against a target of 84 (within band).
 */
const floorAt = (computedAt: number, startsAt: number, capacities: number[]) => ({
  quantile: 'p90',
  computedAt,
  startsAt,
  stepMinutes: 5,
  leadTimeMinutes: 10,
  capacities,
});

describe('the evaluator applies the forecast floor schedule', () => {
  it.each([
    {
      case: 'the step that holds now raises a calm target to its floor',
      floor: floorAt(NOW - 20 * MIN, TICK_AT - 5 * MIN, [2, 5, 9]),
      desired: 5,
      reasons: ['WithinBand', 'ForecastFloor'],
      recorded: { capacity: 5, quantile: 'p90', computedAt: NOW - 20 * MIN },
    },
    {
      case: 'a floor from a fallback forecaster says so on the decision (ForecastFallback)',
      floor: { ...floorAt(NOW - 20 * MIN, TICK_AT - 5 * MIN, [2, 5, 9]), fallback: 'naive-day' },
      desired: 5,
      reasons: ['WithinBand', 'ForecastFloor', 'ForecastFallback'],
      recorded: { capacity: 5, quantile: 'p90', computedAt: NOW - 20 * MIN },
    },
    {
      // refreshMinutes 180 in the replays' policy: stale after 360 minutes.
      case: 'a floor older than twice refreshMinutes is not applied',
      floor: floorAt(NOW - 361 * MIN, TICK_AT - 5 * MIN, new Array(200).fill(5)),
      desired: 2,
      reasons: ['WithinBand'],
      recorded: null,
    },
    {
      case: 'a floor that starts after now is not applied',
      floor: floorAt(NOW - 20 * MIN, TICK_AT + 5 * MIN, [5, 5, 5]),
      desired: 2,
      reasons: ['WithinBand'],
      recorded: null,
    },
    {
      case: 'a floor lower than the decision changes nothing',
      floor: floorAt(NOW - 20 * MIN, TICK_AT - 5 * MIN, [1, 1, 1]),
      desired: 2,
      reasons: ['WithinBand'],
      recorded: { capacity: 1 },
    },
  ])('$case', async ({ floor, desired, reasons, recorded }) => {
    const h = harness();
    h.table.items.set('TARGET#chat-llm|STATE', { pk: 'TARGET#chat-llm', sk: 'STATE', forecastFloor: floor });
    const report = await h.evaluate(eventFile('scheduler-tick'), NOW);
    const [record] = report.records;
    expect(record!.decision).toMatchObject({ desiredCapacity: desired, reasons });
    if (recorded === null) expect(record!.inputs.forecastFloor).toBeNull();
    else expect(record!.inputs.forecastFloor).toMatchObject(recorded);
    // The claim keeps the forecast function's attribute.
    expect(h.table.state('chat-llm')!.forecastFloor).toEqual(floor);
  });

  it.each([
    {
      case: 'a floor over a measured lead passes that lead to the engine and records it as measured',
      floor: {
        ...floorAt(NOW - 20 * MIN, TICK_AT - 5 * MIN, [2, 5, 9]),
        leadTimeMinutes: 14,
        leadSource: 'measured',
        configuredLeadTimeMinutes: 10,
        leadSamples: 3,
      },
      lead: { minutes: 14, configuredMinutes: 10, samples: 3, source: 'measured' },
    },
    {
      case: 'a floor from before leads were measured counts as configured',
      floor: floorAt(NOW - 20 * MIN, TICK_AT - 5 * MIN, [2, 5, 9]),
      lead: { minutes: 10, configuredMinutes: 10, samples: 0, source: 'configured' },
    },
    {
      case: 'no floor applying records no lead',
      floor: floorAt(NOW - 361 * MIN, TICK_AT - 5 * MIN, new Array(200).fill(5)),
      lead: null,
    },
  ])('$case', async ({ floor, lead }) => {
    const h = harness();
    h.table.items.set('TARGET#chat-llm|STATE', { pk: 'TARGET#chat-llm', sk: 'STATE', forecastFloor: floor });
    const [record] = (await h.evaluate(eventFile('scheduler-tick'), NOW)).records;
    expect(record!.inputs.leadTime).toEqual(lead);
    // The snapshot's leadTime (shared/engine/types.ts SignalSnapshot.leadTime), as decide() echoes it.
    const { source: _, ...snapshotLead } = lead ?? { source: null };
    expect((record!.decision as { leadTime?: unknown }).leadTime).toEqual(lead ? snapshotLead : undefined);
    // Raised to the floor of 5 over a lead above the configured one: the engine says so.
    if (lead?.source === 'measured') expect(record!.decision!.reasons).toContain('LeadTimeMeasured');
  });

  it('a target whose policy has no forecast ignores a stored floor', async () => {
    const h = harness();
    // Without forecast, and so without warmPool (SageMaker's standby rides on the forecast floor).
    const noForecast = REPLAY_POLICY.replace(/ {4}(forecast|warmPool):\n( {6}.*\n)+/g, '');
    h.parameters.set(CONFIG.POLICY_PARAMETER_NAME, noForecast);
    h.table.items.set('TARGET#chat-llm|STATE', {
      pk: 'TARGET#chat-llm',
      sk: 'STATE',
      forecastFloor: floorAt(NOW - 20 * MIN, TICK_AT - 5 * MIN, [9, 9, 9]),
    });
    const [record] = (await h.evaluate(eventFile('scheduler-tick'), NOW)).records;
    expect(record!.decision).toMatchObject({ desiredCapacity: 2 });
    expect(record!.inputs.forecastFloor).toBeNull();
  });
});
