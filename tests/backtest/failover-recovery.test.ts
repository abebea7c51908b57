/**
 * The failover backtest's definitions on hand-computed cases: recovery time, and the outage's
 * REGION:START:DURATION with peak and trough.
 */
import { describe, expect, it } from 'vitest';
import { OutageError, parseOutage, resolveOutage } from '#shared/backtest/failover/outage.ts';
import { recoveryMinutes } from '#shared/backtest/failover/recovery.ts';

const ok = (n: number) => Array<number>(n).fill(1);

describe('recovery time: from the outage start to the first of 10 minutes in a row at >= 95 % served', () => {
  it.each([
    { case: 'never below 95 %: 0', served: ok(30), start: 5, expected: 0 },
    {
      case: 'down for 3 minutes then served: 3',
      served: [...ok(5), 0, 0, 0, ...ok(12)],
      start: 5,
      expected: 3,
    },
    {
      case: '95 % exactly counts as served',
      served: [0, 0.95, ...Array(9).fill(0.95)],
      start: 0,
      expected: 1,
    },
    {
      case: '94.9 % does not',
      served: [0, ...Array(9).fill(0.95), 0.949, ...ok(10)],
      start: 0,
      expected: 11,
    },
    {
      case: 'a dip inside the hold restarts it',
      served: [0, ...ok(5), 0.5, ...ok(10)],
      start: 0,
      expected: 7,
    },
    {
      case: 'fewer than 10 good minutes left: not recovered',
      served: [0, 0, ...ok(9)],
      start: 0,
      expected: null,
    },
    {
      case: 'exactly 10 good minutes at the end: recovered',
      served: [0, 0, ...ok(10)],
      start: 0,
      expected: 2,
    },
  ])('$case', ({ served, start, expected }) => {
    expect(recoveryMinutes(served, start)).toBe(expected);
  });
});

describe('--outage REGION:START:DURATION', () => {
  it.each([
    { raw: 'us-east-1:600:120', spec: { region: 'us-east-1', start: 600, durationMinutes: 120 } },
    { raw: 'us-east-1:peak:120', spec: { region: 'us-east-1', start: 'peak', durationMinutes: 120 } },
    { raw: 'eu-west-1:trough:30', spec: { region: 'eu-west-1', start: 'trough', durationMinutes: 30 } },
  ])('parses $raw', ({ raw, spec }) => {
    expect(parseOutage(raw)).toEqual(spec);
  });

  it.each([
    { raw: 'us-east-1:600', fix: 'REGION:START:DURATION' },
    { raw: 'useast:600:120', fix: 'AWS region name' },
    { raw: 'us-east-1:noon:120', fix: 'whole minute of the trace, peak or trough' },
    { raw: 'us-east-1:600:0', fix: 'whole minutes of 1 or more' },
    { raw: 'us-east-1:600:1.5', fix: 'whole minutes of 1 or more' },
  ])('rejects $raw with one line naming the fix', ({ raw, fix }) => {
    expect(() => parseOutage(raw)).toThrow(OutageError);
    expect(() => parseOutage(raw)).toThrow(fix);
  });

  // Two days: day 1 is busier; its hourly mean is highest centred on 1440 + 590..610 and lowest on 1440 + 90..110 (the first is taken).
  const requests = Array.from({ length: 2880 }, (_, m) => {
    const day = Math.floor(m / 1440);
    const t = m % 1440;
    const base = day === 1 ? 200 : 100;
    if (t >= 560 && t < 640) return base * 3;
    if (t >= 60 && t < 140) return base / 4;
    return base;
  });

  it.each([
    { start: 'peak' as const, expected: 1440 + 590 },
    { start: 'trough' as const, expected: 1440 + 90 },
    { start: 100, expected: 100 },
  ])('START $start is minute $expected (the busiest day, centred hourly mean)', ({ start, expected }) => {
    expect(resolveOutage({ region: 'us-east-1', start, durationMinutes: 60 }, requests).start).toBe(expected);
  });

  it('clips the outage at the trace end, and refuses one that starts after it', () => {
    expect(resolveOutage({ region: 'us-east-1', start: 2800, durationMinutes: 120 }, requests).end).toBe(
      2880,
    );
    expect(() => resolveOutage({ region: 'us-east-1', start: 2880, durationMinutes: 1 }, requests)).toThrow(
      'start it earlier',
    );
  });
});
