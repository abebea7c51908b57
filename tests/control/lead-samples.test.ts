/**
 * Where measured lead times come from and how they are kept (shared/state/lead-samples.ts):
 * the evaluator's check of a scale-out serving, as a timeline; decoding the two attributes, with
 * malformed parts set aside; merging the two recorders; trimming the state machine's list; and
 * the claim's UpdateExpression that carries them (shared/aws/dynamodb.ts).
 */
import { describe, expect, it } from 'vitest';
import { claimExpression } from '#shared/aws/dynamodb.ts';
import { type EngineState, initialState } from '#shared/engine/types.ts';
import { decodeState } from '#shared/state/item.ts';
import {
  decodeLeadTimes,
  LEAD_GIVE_UP_MINUTES,
  mergeLeadSamples,
  noLeadTimes,
  servedScaleOut,
  sfnTrim,
  storedLead,
} from '#shared/state/lead-samples.ts';
import type { Pending } from '#shared/state/pending.ts';

const T0 = Date.parse('2025-06-02T12:00:30Z');
const MIN = 60_000;
const iso = (t: number) => new Date(t).toISOString();
/** The engine state after a scale-out to `to` at `at` (and a scale-in at `inAt`, if any). */
const engine = (at: number, to: number, inAt: number | null = null): EngineState => ({
  ...initialState(),
  lastScaleOutAt: at,
  lastScaleOutTo: to,
  lastScaleOutStep: to - 2,
  lastScaleInAt: inAt,
});
const pending = (at: number, from: number, to: number): Pending => ({
  decisionId: 'd1',
  desiredCapacity: to,
  previousCapacity: from,
  at,
});

describe('servedScaleOut: a scale-out asked for at t0 for 6 instances', () => {
  it.each([
    {
      case: 'no scale-out yet: nothing to measure',
      engine: initialState(),
      ready: 6,
      now: T0,
      reason: 'NoScaleOut',
    },
    { case: 'no engine state at all', engine: undefined, ready: 6, now: T0, reason: 'NoScaleOut' },
    {
      case: 'at t0 + 12 min, 2 of 6 ready: not serving yet',
      engine: engine(T0, 6),
      ready: 2,
      now: T0 + 12 * MIN,
      reason: 'NotServing',
    },
    {
      case: 'at t0 + 13 min, 5 of 6 ready: not serving yet',
      engine: engine(T0, 6),
      ready: 5,
      now: T0 + 13 * MIN,
      reason: 'NotServing',
    },
    {
      case: 'superseded by a scale-in at t0 + 8 min: measures nothing, even when 6 serve later',
      engine: engine(T0, 6, T0 + 8 * MIN),
      ready: 6,
      now: T0 + 14 * MIN,
      reason: 'Superseded',
    },
    {
      case: 'still not serving after 61 minutes: the request is given up',
      engine: engine(T0, 6),
      ready: 6,
      now: T0 + (LEAD_GIVE_UP_MINUTES + 1) * MIN,
      reason: 'GaveUp',
    },
  ])('$case', ({ engine, ready, now, reason }) => {
    expect(servedScaleOut({ engine, pending: undefined, recorded: [], ready, now })).toEqual({
      sample: null,
      reason,
    });
  });

  it('at t0 + 13 min, 6 of 6 ready: one sample {t0, t0 + 13 min}; at t0 + 14 min it is already recorded', () => {
    const first = servedScaleOut({
      engine: engine(T0, 6),
      pending: undefined,
      recorded: [],
      ready: 6,
      now: T0 + 13 * MIN,
    });
    expect(first).toEqual({ sample: { requestedAt: T0, servingAt: T0 + 13 * MIN } });
    const again = servedScaleOut({
      engine: engine(T0, 6),
      pending: undefined,
      recorded: [first.sample!],
      ready: 6,
      now: T0 + 14 * MIN,
    });
    expect(again).toEqual({ sample: null, reason: 'AlreadyRecorded' });
  });

  it('more than asked for serving (an operator added one) counts as serving', () => {
    expect(
      servedScaleOut({ engine: engine(T0, 6), pending: undefined, recorded: [], ready: 7, now: T0 + 9 * MIN })
        .sample,
    ).toEqual({
      requestedAt: T0,
      servingAt: T0 + 9 * MIN,
    });
  });

  it('a scale-out superseded by a larger one is measured as the larger one', () => {
    const later = servedScaleOut({
      engine: engine(T0 + 2 * MIN, 10),
      pending: undefined,
      recorded: [],
      ready: 6,
      now: T0 + 13 * MIN,
    });
    expect(later).toEqual({ sample: null, reason: 'NotServing' });
  });

  it.each([
    {
      case: 'a pending scale-out stands in for an engine state that was set aside',
      engine: undefined,
      pending: pending(T0, 2, 6),
      expected: { sample: { requestedAt: T0, servingAt: T0 + 13 * MIN } },
    },
    {
      case: 'a pending scale-in after the scale-out supersedes it',
      engine: engine(T0, 6),
      pending: pending(T0 + 5 * MIN, 6, 5),
      expected: { sample: null, reason: 'Superseded' },
    },
  ])('$case', ({ engine, pending, expected }) => {
    expect(servedScaleOut({ engine, pending, recorded: [], ready: 6, now: T0 + 13 * MIN })).toEqual(expected);
  });
});

describe('decodeLeadTimes', () => {
  const own = [{ requestedAt: T0, servingAt: T0 + 13 * MIN }];
  const sfn = { requestedAt: iso(T0), servingAt: iso(T0 + 12.5 * MIN) };
  it.each([
    { case: 'nothing stored: no samples', raw: {}, expected: noLeadTimes(), problems: [] },
    {
      case: "the evaluator's epoch ms and the state machine's ISO strings both decode",
      raw: { leadTimes: own, leadTimesSfn: [sfn] },
      expected: {
        own,
        sfn: [{ requestedAt: T0, servingAt: T0 + 12.5 * MIN }],
        sfnEntries: 1,
        sfnNotAList: false,
      },
      problems: [],
    },
    {
      case: 'a malformed leadTimes is set aside whole, with a problem line',
      raw: { leadTimes: [{ requestedAt: 'noon', servingAt: 1 }] },
      expected: noLeadTimes(),
      problems: [
        'leadTimes set aside (measuring starts again): 0.requestedAt Invalid input: expected number, received string',
      ],
    },
    {
      case: 'one bad entry of leadTimesSfn is set aside, the others kept and counted',
      raw: { leadTimesSfn: [sfn, { requestedAt: 'soon', servingAt: iso(T0) }] },
      expected: {
        own: [],
        sfn: [{ requestedAt: T0, servingAt: T0 + 12.5 * MIN }],
        sfnEntries: 2,
        sfnNotAList: false,
      },
      problems: ['leadTimesSfn[1] set aside: requestedAt is not an ISO time'],
    },
    {
      case: 'a leadTimesSfn that is not a list is set aside, to be removed',
      raw: { leadTimesSfn: { requestedAt: iso(T0) } },
      expected: { ...noLeadTimes(), sfnNotAList: true },
      problems: ['leadTimesSfn set aside: (value) is not a list; it is removed at the next write'],
    },
  ])('$case', ({ raw, expected, problems }) => {
    expect(decodeLeadTimes(raw)).toEqual({ lead: expected, problems });
  });

  it('decodeState carries them, and a malformed leadTimes is never fatal', () => {
    const state = decodeState({
      pk: 'TARGET#a',
      sk: 'STATE',
      version: 3,
      leadTimes: 'garbage',
      leadTimesSfn: [sfn],
    });
    expect(state.version).toBe(3);
    expect(state.lead.own).toEqual([]);
    expect(state.lead.sfn).toHaveLength(1);
    expect(state.problems).toEqual([
      expect.stringMatching(/^leadTimes set aside \(measuring starts again\): /),
    ]);
  });
});

describe('both recorders together', () => {
  it('keep one sample per scale-out, the earlier servingAt (the state machine looks every 30 s)', () => {
    const lead = {
      ...noLeadTimes(),
      own: [
        { requestedAt: T0, servingAt: T0 + 13 * MIN },
        { requestedAt: T0 + 60 * MIN, servingAt: T0 + 74 * MIN },
      ],
      sfn: [{ requestedAt: T0, servingAt: T0 + 12.5 * MIN }],
      sfnEntries: 1,
    };
    expect(mergeLeadSamples(lead)).toEqual([
      { requestedAt: T0, servingAt: T0 + 12.5 * MIN },
      { requestedAt: T0 + 60 * MIN, servingAt: T0 + 74 * MIN },
    ]);
  });

  it('give the forecast its lead from the raw attributes: 3 scale-outs of 13 min are 14 min', () => {
    const samples = [0, 1, 2].map((h) => ({
      requestedAt: T0 + h * 60 * MIN,
      servingAt: T0 + (h * 60 + 13) * MIN,
    }));
    const { lead, problems } = storedLead(10, {
      leadTimes: samples.slice(0, 2),
      leadTimesSfn: [{ requestedAt: iso(samples[2]!.requestedAt), servingAt: iso(samples[2]!.servingAt) }],
    });
    expect(problems).toEqual([]);
    expect(lead).toMatchObject({ minutes: 14, source: 'measured', samples: 3, configuredMinutes: 10 });
  });

  it.each([
    { case: 'a short list is left', lead: { ...noLeadTimes(), sfnEntries: 20 }, expected: null },
    { case: '23 entries lose their oldest 3', lead: { ...noLeadTimes(), sfnEntries: 23 }, expected: 3 },
    {
      case: 'a value that is not a list is removed whole',
      lead: { ...noLeadTimes(), sfnNotAList: true },
      expected: 'all',
    },
  ])('trimming leadTimesSfn: $case', ({ lead, expected }) => {
    expect(sfnTrim(lead)).toBe(expected);
  });
});

describe("the claim's UpdateExpression", () => {
  const base = { engine: initialState(), updatedAt: iso(T0), lastDecisionId: 'd1', pending: undefined };
  it.each([
    {
      case: 'without samples it is the claim it always was',
      write: base,
      expression:
        'SET #version = :next, #engine = :engine, #updatedAt = :updatedAt, #decision = :decision REMOVE #pending',
      names: [],
    },
    {
      case: 'a new sample sets leadTimes in the same write',
      write: { ...base, leadTimes: [{ requestedAt: T0, servingAt: T0 + 13 * MIN }] },
      expression:
        'SET #version = :next, #engine = :engine, #updatedAt = :updatedAt, #decision = :decision, #leadTimes = :leadTimes REMOVE #pending',
      names: ['#leadTimes'],
    },
    {
      case: "the state machine's oldest entries are removed by index",
      write: { ...base, trimLeadTimesSfn: 2 },
      expression:
        'SET #version = :next, #engine = :engine, #updatedAt = :updatedAt, #decision = :decision REMOVE #pending, #leadTimesSfn[0], #leadTimesSfn[1]',
      names: ['#leadTimesSfn'],
    },
    {
      case: 'a leadTimesSfn that is not a list is removed whole',
      write: { ...base, trimLeadTimesSfn: 'all' as const },
      expression:
        'SET #version = :next, #engine = :engine, #updatedAt = :updatedAt, #decision = :decision REMOVE #pending, #leadTimesSfn',
      names: ['#leadTimesSfn'],
    },
  ])('$case', ({ write, expression, names }) => {
    const out = claimExpression(write);
    expect(out.expression).toBe(expression);
    // DynamoDB rejects names an expression does not use.
    expect(Object.keys(out.names).filter((n) => n.startsWith('#lead'))).toEqual(names);
  });
});
