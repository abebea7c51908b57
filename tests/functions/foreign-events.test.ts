/**
 * Events are checked for where they come from, not trusted by their shape: a tick from another
 * source or account, an alarm from another account or region, is refused with a reason code
 * and one sentence, and no AWS call. Every event field that reaches a log line is bounded: the
 * audit measured 132 MB of logs for 10,000 fuzzed events; the fuzz below replays 10,000.
 */
import { describe, expect, it } from 'vitest';
import type { Telemetry } from '#functions/evaluate/telemetry.ts';
import { EventError } from '#shared/events/parse.ts';
import { eventFile, harness } from './harness.ts';

const NOW = Date.parse('2025-06-02T12:00:30Z');
const ACCOUNT = '123456789012';
const own = { account: ACCOUNT };
const tick = eventFile('scheduler-tick') as Record<string, unknown>;
const alarm = eventFile('alarm-chat-llm-latency') as Record<string, unknown>;

describe('events from elsewhere', () => {
  it.each([
    {
      case: 'a tick from another account',
      event: { ...tick, account: '999999999999' },
      reason: 'ForeignAccount',
    },
    { case: 'a tick from another source', event: { ...tick, source: 'aws.events' }, reason: 'ForeignSource' },
    {
      case: 'a tick without a source (hand-made)',
      event: { ...tick, source: undefined },
      reason: 'ForeignSource',
    },
    { case: 'a tick from another region', event: { ...tick, region: 'eu-west-1' }, reason: 'ForeignRegion' },
    {
      case: 'an alarm from another account',
      event: { ...alarm, account: '999999999999' },
      reason: 'ForeignAccount',
    },
    {
      case: 'an alarm from another region',
      event: { ...alarm, region: 'eu-west-1' },
      reason: 'ForeignRegion',
    },
    { case: 'an alarm from another source', event: { ...alarm, source: 'my.app' }, reason: 'ForeignSource' },
  ])('$case is refused ($reason) with no AWS call', async ({ event, reason }) => {
    const h = harness();
    const report = await h.evaluate(event, NOW, own);
    expect(report).toMatchObject({ ignored: { reason }, records: [] });
    expect(h.takeCalls()).toEqual([]);
    expect(h.telemetry.counts.ForeignEvents).toBe(1);
    expect(h.telemetry.lines).toEqual([
      { level: 'warn', message: expect.stringMatching(new RegExp(`^event ignored: ${reason}: `)) },
    ]);
  });

  it("the deployment's own tick and alarm pass the check", async () => {
    const h = harness();
    expect((await h.evaluate(tick, NOW, own)).ignored).toBeNull();
    expect((await h.evaluate(alarm, NOW + 10_000, own)).ignored).toBeNull();
  });
});

describe('oversized event fields', () => {
  it.each([
    { case: 'a 1 MB event id', event: { ...tick, id: 'i'.repeat(1 << 20) } },
    {
      case: 'a 1 MB alarm name',
      event: {
        ...alarm,
        detail: { ...(alarm.detail as object), alarmName: `governor-${'a'.repeat(1 << 20)}` },
      },
    },
    { case: 'a 1 MB detail-type', event: { ...tick, 'detail-type': 'd'.repeat(1 << 20) } },
  ])('$case is malformed, named in one short line, with no AWS call', async ({ event }) => {
    const h = harness();
    const error = await h.evaluate(event, NOW, own).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EventError);
    expect((error as Error).message.length).toBeLessThan(200);
    expect(h.takeCalls()).toEqual([]);
  });

  it('a 1 MB region, account or source is quoted clipped in the refusal', async () => {
    for (const field of ['region', 'account', 'source']) {
      const h = harness();
      const report = await h.evaluate({ ...tick, [field]: 'r'.repeat(1 << 20) }, NOW, own);
      expect(report.ignored?.message.length).toBeLessThan(300);
    }
  });

  it('10,000 fuzzed events with fields up to 100 KB log at most 4 KB each, a decision record included (the audit measured 13 KB each)', async () => {
    const logged: string[] = [];
    const sink: Telemetry = {
      info: (m, a) => logged.push(JSON.stringify({ m, a })),
      warn: (m, a) => logged.push(JSON.stringify({ m, a })),
      error: (m, a) => logged.push(JSON.stringify({ m, a })),
      decision: (r) => logged.push(JSON.stringify(r)),
      policyLoadFailure: (p) => logged.push(JSON.stringify(p)),
      invocationSucceeded: () => {},
    };
    const h = harness({ deps: { telemetry: sink } });
    let seed = 42;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const big = () =>
      String.fromCharCode(33 + Math.floor(random() * 90)).repeat(1 + Math.floor(random() * 100_000));
    const base = [tick, alarm];
    for (let i = 0; i < 10_000; i++) {
      const event = structuredClone(base[i % 2]!) as Record<string, unknown> & {
        detail: Record<string, unknown>;
      };
      const field = Math.floor(random() * 8);
      if (field === 0) event.id = big();
      if (field === 1) event.detail.alarmName = `governor-${big()}`;
      if (field === 2) event['detail-type'] = big();
      if (field === 3) event.region = big();
      if (field === 4) event.account = big();
      if (field === 5) event.source = big();
      if (field === 6) event.time = big();
      if (field === 7) event.detail = { ...event.detail, [big()]: big(), alarmName: `x-${big()}` };
      const before = logged.length;
      await h.evaluate(event, NOW, own).catch((e: unknown) => logged.push(String((e as Error).message)));
      const bytes = logged.slice(before).reduce((n, l) => n + l.length, 0);
      expect(bytes).toBeLessThan(4096);
    }
    // Most are refused in one line of a few hundred bytes; a few evaluate and log their record:
    // 1.8 MB in all when this was written (183 bytes an event).
    expect(logged.reduce((n, l) => n + l.length, 0)).toBeLessThan(10_000 * 256);
  });
});
