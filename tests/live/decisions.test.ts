/** The decision timeline's pure parts (shared/live/decisions.ts): --since, rows and lines. */
import { describe, expect, it } from 'vitest';
import { sinceFrom, timelineLines, timelineRow } from '#shared/live/decisions.ts';

const now = Date.parse('2025-06-02T12:00:00Z');

describe('sinceFrom', () => {
  it.each([
    { raw: '30m', at: '2025-06-02T11:30:00.000Z' },
    { raw: '6h', at: '2025-06-02T06:00:00.000Z' },
    { raw: '2d', at: '2025-05-31T12:00:00.000Z' },
    { raw: '2025-06-02T03:00Z', at: '2025-06-02T03:00:00.000Z' },
  ])('$raw starts the window at $at', ({ raw, at }) => {
    const since = sinceFrom(raw, now);
    expect('at' in since && new Date(since.at).toISOString()).toBe(at);
  });

  it.each([
    { raw: '6', problem: /^--since must be a duration such as 30m, 6h or 2d/ },
    { raw: '2025-06-02T03:00', problem: /an ISO time/ },
    { raw: '31d', problem: /more than 30 days back: the records expire/ },
    { raw: '2025-06-03T00:00Z', problem: /is in the future/ },
  ])('refuses $raw in one line', ({ raw, problem }) => {
    const since = sinceFrom(raw, now);
    expect('problem' in since && since.problem).toMatch(problem);
  });
});

describe('timeline rows and lines', () => {
  const record = {
    pk: 'TARGET#chat-llm',
    sk: 'DECISION#2025-06-02T03:12:30.000Z#d1',
    at: '2025-06-02T03:12:30.000Z',
    outcome: 'started',
    detail: 'scale-target state machine started for 2 -> 6',
    decision: {
      currentCapacity: 2,
      desiredCapacity: 6,
      reasons: ['PanicScaleOut', 'ClampedToStep'],
      message: 'Panic: 250 a minute.',
    },
  };

  it('shows time, from -> to, outcome and reasons, then the sentence and what was done', () => {
    expect(timelineLines(timelineRow(record))).toEqual([
      '2025-06-02 03:12:30Z  2 -> 6    started   PanicScaleOut, ClampedToStep',
      '    Panic: 250 a minute. | scale-target state machine started for 2 -> 6',
    ]);
  });

  it('shows a record without a decision (a failed read) with a dash for the change', () => {
    const failed = { ...record, outcome: 'failed', decision: null, detail: 'cannot read capacity: boom' };
    expect(timelineLines(timelineRow(failed))).toEqual([
      '2025-06-02 03:12:30Z    -       failed',
      '    cannot read capacity: boom',
    ]);
  });

  it('keeps a record that does not decode, saying so, instead of dropping it', () => {
    expect(timelineRow({ sk: record.sk, at: 5 })).toMatchObject({
      outcome: 'unreadable',
      at: '2025-06-02T03:12:30.000Z',
    });
  });
});
