import { describe, expect, it } from 'vitest';
import {
  datapointFor,
  FEED_KEEP_MINUTES,
  MetricsFeed,
  P99_OVER_P95,
  p95CurveMs,
} from '#shared/backtest/metrics.ts';

const curve = { muSat: 12.5, sloMs: 2000, sloUtilization: 0.8 };

describe('the latency curve: p95 = sloMs x (1 - 0.8) / (1 - u)', () => {
  it.each([
    { case: 'an idle instance answers in 400 ms (a fifth of the SLO)', u: 0, ms: 400 },
    { case: 'at 60 % it takes 1000 ms', u: 0.6, ms: 1000 },
    { case: 'it reaches the 2000 ms SLO at sloUtilization 0.8', u: 0.8, ms: 2000 },
    { case: 'at 95 % it is 8000 ms, climbing without bound', u: 0.95, ms: 8000 },
    { case: 'saturated, it stops at the 0.99 cap: 40000 ms', u: 1.5, ms: 40_000 },
  ])('$case', ({ u, ms }) => {
    expect(p95CurveMs(u, 2000, 0.8)).toBeCloseTo(ms, 6);
  });
});

describe('one minute datapoint', () => {
  it('derives every signal from the fleet and the demand it met', () => {
    // 2 ready, 20 requests: 10 each; u = 20 / 25 = 0.8 -> 2000 ms; nothing queued.
    const d = datapointFor(
      { minute: 3, requests: 20, work: 20, ready: 2, backlogIn: 0, backlogOut: 0 },
      curve,
    );
    expect(d).toMatchObject({
      minute: 3,
      timestamp: 180_000,
      ready: 2,
      invocationsPerInstance: 10,
      queueDepth: 0,
    });
    expect(d.gpuUtilization).toBeCloseTo(80, 9);
    expect(d.p95LatencyMs).toBeCloseTo(2000, 9);
    expect(d.p99LatencyMs).toBeCloseTo(2000 * P99_OVER_P95, 9);
    // Little's law: 10 requests a minute per instance x mean time in system (2000 / ln 20 ms).
    expect(d.concurrencyPerInstance).toBeCloseTo((10 / 60) * (2 / Math.log(20)), 9);
  });

  it('adds the backlog: utilization counts what waits, latency adds the time to drain it', () => {
    // 25 waiting at the end of the minute on 2 x 12.5 per minute: one more minute, 60000 ms.
    const d = datapointFor(
      { minute: 0, requests: 20, work: 20, ready: 2, backlogIn: 5, backlogOut: 25 },
      curve,
    );
    expect(d.gpuUtilization).toBe(100);
    expect(d.queueDepth).toBe(25);
    expect(d.queueDepthPerInstance).toBe(12.5);
    expect(d.p95LatencyMs).toBeCloseTo(2000 + 60_000, 6);
  });

  it('has no per-instance values when nothing was ready', () => {
    const d = datapointFor({ minute: 0, requests: 5, work: 5, ready: 0, backlogIn: 0, backlogOut: 5 }, curve);
    expect(d.invocationsPerInstance).toBeNaN();
    expect(d.p95LatencyMs).toBeNaN();
    expect(d.queueDepth).toBe(5);
  });
});

describe('the metrics feed', () => {
  it('refuses to show a datapoint that has not been delivered yet', () => {
    const feed = new MetricsFeed(1);
    for (let m = 0; m < 5; m++) {
      feed.record(
        datapointFor({ minute: m, requests: 1, work: 1, ready: 1, backlogIn: 0, backlogOut: 0 }, curve),
      );
    }
    feed.advanceTo(4);
    expect(feed.count).toBe(3);
    expect(feed.latest()?.minute).toBe(2);
    expect(() => feed.at(3)).toThrow(/not visible/);
  });

  it('keeps the newest week of a long run and says so for an older datapoint', () => {
    const feed = new MetricsFeed(1);
    const minutes = 3 * FEED_KEEP_MINUTES + 5;
    for (let m = 0; m < minutes; m++) {
      feed.record(
        datapointFor({ minute: m, requests: m, work: 1, ready: 1, backlogIn: 0, backlogOut: 0 }, curve),
      );
    }
    feed.advanceTo(minutes);
    expect(feed.count).toBe(minutes - 1);
    expect(feed.latest()?.minute).toBe(minutes - 2);
    expect(feed.at(minutes - FEED_KEEP_MINUTES).requests).toBe(minutes - FEED_KEEP_MINUTES);
    expect(() => feed.at(minutes - FEED_KEEP_MINUTES - 1)).toThrow(/dropped/);
    expect(() => feed.at(0)).toThrow(/dropped: the feed keeps the newest 10080 minutes/);
  });
});
