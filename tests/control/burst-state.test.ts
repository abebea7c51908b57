/**
 * The burst floor's parts of the state item: the forecast function's measurement (`burstDemand`,
 * shared/state/burst-demand.ts) and the floor's state beside the ledger (`slo.burst`,
 * shared/state/slo.ts), decoded and set aside like the other parts; which targets are measured,
 * and when a stored measurement is due again.
 */
import { describe, expect, it } from 'vitest';
import { initialState } from '#shared/engine/types.ts';
import { burstMeasureOf, isBurstDemandFresh } from '#shared/state/burst-demand.ts';
import { decodeState } from '#shared/state/item.ts';
import { StoredSloSchema } from '#shared/state/slo.ts';
import { policyOf, variantTarget } from './policies.ts';

const MIN = 60_000;
const T = Date.parse('2025-06-02T12:00:10Z');
const DEMAND = { demand: 412.5, quantile: 0.996, minutes: 1440, measuredAt: T };
const SLO = {
  ledger: { newest: 1, minutes: [[1, 1, 80]], hours: [[0, 1, 0, 80, 0]] },
  headroom: { factor: 0.3, lastLoosenAt: null },
};

describe('the stored burst demand', () => {
  it('decodes beside the noise, and an item without it (from before the floor) as none, with no problem', () => {
    expect(decodeState({ version: 3, burstDemand: DEMAND })).toMatchObject({
      burstDemand: DEMAND,
      problems: [],
    });
    expect(decodeState({ version: 3, engine: initialState() })).toMatchObject({
      burstDemand: undefined,
      problems: [],
    });
  });

  it.each([
    { case: 'a negative demand', value: { ...DEMAND, demand: -1 }, at: /demand Too small/ },
    { case: 'a quantile in percent', value: { ...DEMAND, quantile: 99.6 }, at: /quantile Too big/ },
    { case: 'no measuredAt', value: { demand: 1, quantile: 0.996, minutes: 60 }, at: /measuredAt/ },
    { case: 'an unknown field', value: { ...DEMAND, windowMinutes: 1440 }, at: /windowMinutes/ },
  ])('sets $case aside, naming the field, and keeps the rest of the item', ({ value, at }) => {
    const state = decodeState({ version: 3, engine: initialState(), burstDemand: value });
    expect(state.burstDemand).toBeUndefined();
    expect(state.engine).toEqual(initialState());
    expect(state.problems).toEqual([
      expect.stringMatching(
        /^burstDemand set aside \(no burst floor until the next forecast run measures it\): /,
      ),
    ]);
    expect(state.problems[0]).toMatch(at);
  });
});

describe("the burst floor's state beside the ledger", () => {
  it.each([
    { case: 'absent (from before the floor, or stood down)', slo: SLO, burst: undefined },
    {
      case: 'standing',
      slo: { ...SLO, burst: { standUntil: T + 1440 * MIN } },
      burst: { standUntil: T + 1440 * MIN },
    },
    {
      case: 'written as not standing',
      slo: { ...SLO, burst: { standUntil: null } },
      burst: { standUntil: null },
    },
  ])('decodes $case', ({ slo, burst }) => {
    const state = decodeState({ version: 3, slo });
    expect(state.problems).toEqual([]);
    expect(state.slo?.burst).toEqual(burst);
  });

  it('adds about 30 bytes to the item while it stands', () => {
    const standing = { ...SLO, burst: { standUntil: T + 1440 * MIN } };
    expect(JSON.stringify(standing).length - JSON.stringify(SLO).length).toBeLessThan(40);
  });

  it('a malformed one sets the whole slo aside, as any malformed part of it', () => {
    const parsed = StoredSloSchema.safeParse({ ...SLO, burst: { standUntil: 'tomorrow' } });
    expect(parsed.success).toBe(false);
    const state = decodeState({ version: 3, slo: { ...SLO, burst: { until: 1 } } });
    expect(state.slo).toBeUndefined();
    expect(state.problems).toEqual([expect.stringMatching(/^slo set aside .*burst/)]);
  });
});

describe('which targets are measured', () => {
  /** tests/control/policies.ts's variant: a load signal and a p95 SLO of 2,000 ms. */
  const target = (over: Record<string, unknown>) => policyOf(variantTarget(over)).targets[0]!;

  it.each([
    { case: 'an SLO control, the floor on by default, and the SLO capacity', over: {}, window: 1440 },
    {
      case: 'a window of its own',
      over: { slo: { control: { burstFloor: { windowMinutes: 2880 } } } },
      window: 2880,
    },
    {
      case: 'burstFloor.enabled false',
      over: { slo: { control: { burstFloor: { enabled: false } } } },
      window: null,
    },
    { case: 'the control off', over: { slo: { control: { enabled: false } } }, window: null },
    { case: 'no requestsPerMinuteAtSlo', over: { instanceCapacity: undefined }, window: null },
  ])('$case: $window', ({ over, window }) => {
    const t = target({ instanceCapacity: { requestsPerMinuteAtSlo: 100 }, ...over });
    expect(burstMeasureOf(t)?.windowMinutes ?? null).toBe(window);
  });

  it('no latency signal, so no SLO control: none', () => {
    const t = policyOf(
      variantTarget({
        signals: [{ metric: 'invocationsPerInstance', target: 100 }],
        instanceCapacity: { requestsPerMinuteAtSlo: 100 },
      }),
    ).targets[0]!;
    expect(burstMeasureOf(t)).toBeNull();
  });

  it('reads the objective the quantile is taken at', () => {
    const t = target({
      instanceCapacity: { requestsPerMinuteAtSlo: 100 },
      slo: { objective: { minutes: 0.999 } },
    });
    expect(burstMeasureOf(t)).toMatchObject({
      objective: 0.999,
      control: { spendTarget: expect.any(Number) },
    });
  });
});

describe('when a stored measurement is due again', () => {
  it.each([
    { case: 'none stored', stored: undefined, age: 0, fresh: false },
    { case: 'just measured', stored: DEMAND, age: 0, fresh: true },
    { case: '54 minutes old', stored: DEMAND, age: 54, fresh: true },
    {
      case: '55 minutes old: the next hourly run (drifting by seconds) measures again',
      stored: DEMAND,
      age: 55,
      fresh: false,
    },
    { case: 'an hour old', stored: DEMAND, age: 60, fresh: false },
  ])('$case: fresh is $fresh', ({ stored, age, fresh }) => {
    expect(isBurstDemandFresh(stored, T + age * MIN)).toBe(fresh);
  });
});
