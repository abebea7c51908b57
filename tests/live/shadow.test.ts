/** The shadow report's comparison (shared/live/shadow.ts) as timelines, and its text. */
import { describe, expect, it } from 'vitest';
import { type ShadowInput, STALE_MINUTES, shadowReport } from '#shared/live/shadow.ts';
import { shadowLines } from '#shared/live/shadow-lines.ts';

const t0 = Date.parse('2025-06-02T12:00:00Z');
const min = (k: number) => t0 + k * 60_000;
const fleetOf = (minutes: number, capacity: (k: number) => number | null) =>
  new Map(
    Array.from({ length: minutes }, (_, k) => [min(k), capacity(k)] as const).filter(
      (e): e is readonly [number, number] => e[1] !== null,
    ),
  );
const base = (over: Partial<ShadowInput> = {}): ShadowInput => ({
  targetId: 'chat-llm',
  start: t0,
  end: min(60),
  decisions: Array.from({ length: 60 }, (_, k) => ({
    at: min(k) + 30_000,
    desiredCapacity: k < 40 ? 3 : 5,
    mode: 'shadow',
  })),
  fleet: fleetOf(60, () => 4),
  fleetSource: 'AWS/AutoScaling GroupInServiceInstances (AutoScalingGroupName=batch)',
  latency: null,
  price: null,
  ...over,
});

describe('shadowReport', () => {
  it('the worked example: fleet 4 for an hour, Governor 3 for 40 minutes then 5 for 20', () => {
    const r = shadowReport(base({ price: { usdPerHour: 3, source: '--usd-per-hour' } }));
    expect(r.figures).toMatchObject({
      compared: 60,
      shortMinutes: 40,
      longMinutes: 20,
      largestShortfall: 1,
    });
    expect(r.figures.governorUsd).toBeCloseTo(11);
    expect(r.figures.fleetUsd).toBeCloseTo(12);
    expect(r.figures.governorInstanceHours).toBeCloseTo(220 / 60);
    expect(r.verdict).toBe(
      "Over the last 60 minutes (60 minutes compared), Governor would have run 3.7 instance-hours against the fleet's 4.0: 8.3 % fewer instance-hours than the fleet, 1.00 USD less at 3 USD an instance-hour; it would have been short in 40 minutes and long in 20.",
    );
  });

  it.each([
    {
      case: `a decision holds in its minute and ${STALE_MINUTES} more, then the minutes are gaps`,
      over: { decisions: [{ at: min(0) + 30_000, desiredCapacity: 4, mode: 'shadow' }] },
      compared: STALE_MINUTES + 1,
      withoutDecision: 59 - STALE_MINUTES,
    },
    {
      case: 'active decisions are not shadow decisions: nothing to compare',
      over: { decisions: [{ at: min(0), desiredCapacity: 4, mode: 'active' }] },
      compared: 0,
      withoutDecision: 60,
    },
    {
      case: 'minutes without the fleet are not compared',
      over: { fleet: fleetOf(60, (k) => (k < 30 ? 4 : null)) },
      compared: 30,
      withoutDecision: 0,
    },
  ])('$case', ({ over, compared, withoutDecision }) => {
    const r = shadowReport(base(over));
    expect(r.figures).toMatchObject({ compared, withoutDecision });
  });

  it.each([
    {
      case: 'no fleet datapoint',
      over: { fleet: new Map() },
      verdict:
        /nothing can be judged: the fleet's capacity has no datapoint in CloudWatch \(AWS\/AutoScaling/,
    },
    {
      case: 'Governor active the whole time',
      over: { decisions: [{ at: min(0), desiredCapacity: 4, mode: 'active' }] },
      verdict: /nothing can be judged: Governor was active, not in shadow mode, the whole time\.$/,
    },
  ])('says why nothing can be judged: $case', ({ over, verdict }) => {
    expect(shadowReport(base(over)).verdict).toMatch(verdict);
  });

  it('counts the short minutes in which the fleet was already over its SLO', () => {
    const latency = new Map(Array.from({ length: 60 }, (_, k) => [min(k), k < 10 ? 2500 : 900] as const));
    const r = shadowReport(base({ latency: { byMinute: latency, sloMs: 2000, metric: 'p95LatencyMs' } }));
    expect(r.figures).toMatchObject({ fleetOverSlo: 10, shortWhileOverSlo: 10, latencyMinutes: 60 });
    expect(r.verdict).toMatch(
      /short in 40 minutes \(10 of them while the fleet's p95LatencyMs was over its 2,000 ms SLO\)/,
    );
  });

  it('prints the verdict first, then the figures either way', () => {
    const lines = shadowLines(shadowReport(base()));
    expect(lines[0]).toMatch(/^Over the last 60 minutes/);
    expect(lines).toContain('chat-llm, 2025-06-02 12:00Z to 2025-06-02 13:00Z');
    expect(lines.find((l) => l.startsWith('instance-hours'))).toMatch(/3\.7 +4\.0$/);
    expect(lines.find((l) => l.startsWith('cost'))).toMatch(/no price: pass --usd-per-hour/);
  });
});
