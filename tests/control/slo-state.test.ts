/**
 * The error budget's part of the state item (shared/state/slo.ts): the stored form checked
 * and bounded, the SLI minute derived from the readings the evaluator already has, the alarm's
 * condition, and the claim that writes it back.
 */
import { describe, expect, it } from 'vitest';
import { claimExpression } from '#shared/aws/dynamodb.ts';
import { initialState } from '#shared/engine/types.ts';
import type { BudgetStatus } from '#shared/slo/budget.ts';
import { SliLedger } from '#shared/slo/ledger.ts';
import { decodeState } from '#shared/state/item.ts';
import {
  budgetAtRisk,
  MAX_STORED_HOURS,
  MAX_STORED_MINUTES,
  StoredSloSchema,
  sliSampleOf,
} from '#shared/state/slo.ts';

const MIN = 60_000;
const T = Date.parse('2025-06-02T12:00:00Z'); // the end of the 11:59 minute
const SLI = { metric: 'p95LatencyMs' as const, sloMs: 2000 };
const stored = (hours: number, minutes: number) => ({
  ledger: {
    newest: 1,
    minutes: Array.from({ length: minutes }, (_, i) => [i, 1, 0]),
    hours: Array.from({ length: hours }, (_, i) => [i, 60, 0, 0, 0]),
  },
  headroom: { factor: 1, lastLoosenAt: null },
});

describe('the stored ledger and headroom', () => {
  it('round-trips a ledger a 30-day window long (721 hourly buckets, about 17 KB)', () => {
    const ledger = new SliLedger(60, 30 * 1440);
    const first = Math.floor(T / MIN) - 30 * 1440;
    for (let m = first; m < first + 30 * 1440; m++)
      ledger.record({ minute: m, good: m % 97 !== 0, requests: 150 });
    const slo = { ledger: ledger.toJSON(), headroom: { factor: 0.85, lastLoosenAt: T } };
    expect(StoredSloSchema.parse(slo)).toEqual(slo);
    expect(slo.ledger.hours.length).toBeLessThanOrEqual(721);
    expect(JSON.stringify(slo).length).toBeLessThan(25_000);
  });

  it.each([
    { case: 'more hourly buckets than 90 days hold', value: stored(MAX_STORED_HOURS + 1, 0), at: /90 days/ },
    {
      case: 'more minutes than the longest fast window',
      value: stored(1, MAX_STORED_MINUTES + 1),
      at: /longest fast window/,
    },
    {
      case: 'a negative factor',
      value: { ...stored(1, 1), headroom: { factor: -1, lastLoosenAt: null } },
      at: /factor/,
    },
    { case: 'an unknown field', value: { ...stored(1, 1), extra: 1 }, at: /extra/ },
  ])('refuses $case', ({ value, at }) => {
    const parsed = StoredSloSchema.safeParse(value);
    expect(parsed.success).toBe(false);
    expect(JSON.stringify(parsed.error?.issues)).toMatch(at);
  });

  it('decodes an item without slo (written before the control) as no ledger, and no problem', () => {
    const state = decodeState({ version: 3, engine: initialState() });
    expect(state.slo).toBeUndefined();
    expect(state.problems).toEqual([]);
  });

  it('sets a malformed slo aside, naming the field, and keeps the rest of the item', () => {
    const state = decodeState({ version: 3, engine: initialState(), slo: { ledger: {}, headroom: {} } });
    expect(state.slo).toBeUndefined();
    expect(state.engine).toEqual(initialState());
    expect(state.problems).toEqual([expect.stringMatching(/^slo set aside .*ledger\.newest/)]);
  });

  it('is written by the claim beside the engine, and left alone when the write has none', () => {
    const write = {
      engine: initialState(),
      updatedAt: '2025-06-02T12:00:05.000Z',
      lastDecisionId: 'd1',
      pending: undefined,
    };
    const slo = StoredSloSchema.parse(stored(1, 1));
    const withSlo = claimExpression({ ...write, slo });
    expect(withSlo.expression).toContain('#slo = :slo');
    expect(withSlo.values[':slo']).toBe(slo);
    expect(claimExpression(write).expression).not.toContain('slo');
  });
});

describe('the SLI minute from the readings', () => {
  it.each([
    {
      case: 'within the SLO: good, the requests of the same minute from the basis',
      readings: {
        p95LatencyMs: { value: 1800, timestamp: T },
        invocationsPerInstance: { value: 80, timestamp: T, basis: 3 },
      },
      want: { minute: T / MIN, good: true, requests: 240 },
    },
    {
      case: 'above the SLO: bad; without a basis the ready count (2) stands for it',
      readings: {
        p95LatencyMs: { value: 2001, timestamp: T },
        invocationsPerInstance: { value: 80, timestamp: T },
      },
      want: { minute: T / MIN, good: false, requests: 160 },
    },
    {
      case: 'the invocations of another minute are not this minute’s requests (0: unknown)',
      readings: {
        p95LatencyMs: { value: 900, timestamp: T },
        invocationsPerInstance: { value: 80, timestamp: T - MIN },
      },
      want: { minute: T / MIN, good: true, requests: 0 },
    },
    {
      case: 'no latency reading: no minute',
      readings: { invocationsPerInstance: { value: 80, timestamp: T } },
      want: null,
    },
  ])('$case', ({ readings, want }) => {
    expect(sliSampleOf(SLI, readings, 2)).toEqual(want);
  });
});

describe('the alarm condition: the budget gone before one more window', () => {
  const WINDOW = 30 * 1440;
  const status = ({ observed = 10_000, ...over }: Partial<BudgetStatus> & { observed?: number }) =>
    // Only the fields the condition reads (not the controller's own, such as its pace).
    ({
      fastBurn: 0,
      slowBurn: 0,
      remaining: 1,
      attainment: 1,
      exhaustsInMinutes: null,
      window: { observed, bad: 0, requests: 0, badRequests: 0 },
      ...over,
    }) as BudgetStatus;
  it.each([
    { case: 'a spent budget', s: status({ remaining: -0.1 }), want: true },
    {
      case: 'burning at 1.2 with 90 % left: gone in 22.5 days',
      s: status({ slowBurn: 1.2, remaining: 0.9, exhaustsInMinutes: (0.9 * WINDOW) / 1.2 }),
      want: true,
    },
    {
      case: 'burning at 0.8 with 90 % left: 33.75 days, after the window',
      s: status({ slowBurn: 0.8, remaining: 0.9, exhaustsInMinutes: (0.9 * WINDOW) / 0.8 }),
      want: false,
    },
    {
      case: 'a fresh ledger (5 observed minutes, one bad: a burn of 40) is not judged yet',
      s: status({ slowBurn: 40, remaining: 0.995, exhaustsInMinutes: (0.995 * WINDOW) / 40, observed: 5 }),
      want: false,
    },
    { case: 'not burning at all', s: status({}), want: false },
  ])('$case: $want', ({ s, want }) => {
    expect(budgetAtRisk(s, WINDOW, 360)).toBe(want);
  });
});
