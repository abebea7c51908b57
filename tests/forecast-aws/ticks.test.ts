/**
 * The forecast function's ticks are checked before any work: where they come from (source,
 * account, region), their age (a tick dated 1970 ran in full before; now at most
 * MAX_TICK_AGE_SECONDS old and 60 s ahead), and their id against the state table's ledger
 * (pk FORECAST, sk TICK#<id>): a tick already run is refused, a failed run may run again.
 * Refusals are one log line with a reason code; foreign, old and future ticks cost no AWS call.
 */
import { describe, expect, it } from 'vitest';
import { CONFIG, NOW, rig, TICK, tickAt } from './fakes.ts';

const OWN = { account: '123456789012' };
const noCalls = (r: ReturnType<typeof rig>) => {
  for (const m of Object.values(r.mocks)) expect(m.calls()).toEqual([]);
};

describe('ticks refused before any AWS call', () => {
  it.each([
    {
      case: 'a tick from another account',
      tick: { ...tickAt(NOW), account: '999999999999' },
      reason: 'ForeignAccount',
    },
    {
      case: 'a tick from another region',
      tick: { ...tickAt(NOW), region: 'eu-west-1' },
      reason: 'ForeignRegion',
    },
    {
      case: 'a tick from another source',
      tick: { ...tickAt(NOW), source: 'aws.events' },
      reason: 'ForeignSource',
    },
    {
      case: 'a tick dated 1970',
      tick: { ...tickAt(NOW), time: '1970-01-01T00:00:00Z' },
      reason: 'StaleEvent',
    },
    {
      case: 'a tick 11 minutes old',
      tick: { ...tickAt(NOW), time: new Date(NOW - 660_000).toISOString() },
      reason: 'StaleEvent',
    },
    {
      case: 'a tick 2 minutes ahead',
      tick: { ...tickAt(NOW), time: new Date(NOW + 120_000).toISOString() },
      reason: 'FutureEvent',
    },
  ])('$case ($reason)', async ({ tick, reason }) => {
    const r = rig();
    const report = await r.run(tick, NOW, OWN);
    expect(report).toMatchObject({ ignored: { reason }, outcomes: [] });
    noCalls(r);
    expect(r.telemetry.lines).toEqual([
      { level: 'warn', message: expect.stringMatching(new RegExp(`^tick refused: ${reason}: `)) },
    ]);
  });

  it('a tick 10 minutes old (a retry of a failed run) still runs', async () => {
    const r = rig();
    const report = await r.run({ ...tickAt(NOW), time: new Date(NOW - 600_000).toISOString() }, NOW, OWN);
    expect(report.ignored).toBeNull();
  });
});

describe('a tick id seen in the state table already', () => {
  it('is refused after a run that finished: one conditional write, no policy read, nothing forecast again', async () => {
    const r = rig();
    await r.run(TICK, NOW, OWN);
    expect(r.world.items.get(`FORECAST|TICK#${TICK.id}`)).toMatchObject({ status: 'done' });
    for (const m of Object.values(r.mocks)) m.resetHistory();
    const again = await r.run(TICK, NOW + 30_000, OWN);
    expect(again).toMatchObject({ ignored: { reason: 'DuplicateEvent' }, outcomes: [] });
    expect(again.ignored?.message).toMatch(
      /^tick f1e2d3c4-0000-4000-8000-000000000001 was already run at 2025-06-09T12:00:10.000Z \(done in the state table\)/,
    );
    expect(r.mocks.ddb.calls()).toHaveLength(1);
    expect(r.mocks.ssm.calls()).toEqual([]);
    expect(r.mocks.aas.calls()).toEqual([]);
  });

  it('is refused however late the duplicate comes: 400 s after a finished run, past the stale mark for running ones', async () => {
    const r = rig();
    await r.run(TICK, NOW, OWN);
    const late = await r.run(TICK, NOW + 400_000, OWN);
    expect(late.ignored?.reason).toBe('DuplicateEvent');
    expect(late.outcomes).toEqual([]);
  });

  it('runs again after a failed run (Lambda retries the same event)', async () => {
    const r = rig();
    r.world.parameters.set(CONFIG.POLICY_PARAMETER_NAME, 'version: 1\ntargets: []');
    await expect(r.run(TICK, NOW, OWN)).rejects.toThrow(/no valid policy/);
    expect(r.world.items.get(`FORECAST|TICK#${TICK.id}`)).toMatchObject({ status: 'failed' });
    r.world.parameters.set(
      CONFIG.POLICY_PARAMETER_NAME,
      rig().world.parameters.get(CONFIG.POLICY_PARAMETER_NAME)!,
    );
    const retry = await r.run(TICK, NOW + 60_000, OWN);
    expect(retry.ignored).toBeNull();
    expect(retry.outcomes[0]).toMatchObject({ outcome: 'written' });
  });

  it('runs again when the run it records as running started longer ago than the function can run (it was killed)', async () => {
    const r = rig();
    r.world.items.set(`FORECAST|TICK#${TICK.id}`, {
      pk: 'FORECAST',
      sk: `TICK#${TICK.id}`,
      status: 'running',
      startedAt: new Date(NOW - 400_000).toISOString(),
    });
    expect((await r.run(TICK, NOW, OWN)).ignored).toBeNull();
  });

  it('is refused while another run of it is still running', async () => {
    const r = rig();
    r.world.items.set(`FORECAST|TICK#${TICK.id}`, {
      pk: 'FORECAST',
      sk: `TICK#${TICK.id}`,
      status: 'running',
      startedAt: new Date(NOW - 60_000).toISOString(),
    });
    expect((await r.run(TICK, NOW, OWN)).ignored?.reason).toBe('DuplicateEvent');
  });
});

describe('the time budget of a run', () => {
  it('a target not started for lack of time is deferred, and the run fails so its retry redoes it', async () => {
    const r = rig();
    await expect(r.run(TICK, NOW, { ...OWN, leftMs: () => 20_000 })).rejects.toThrow(
      'forecast failed for 1 of 1 targets: chat-llm',
    );
    expect(r.telemetry.outcomes).toEqual([
      {
        targetId: 'chat-llm',
        outcome: 'deferred',
        detail: expect.stringMatching(/^DeadlineReached: 20 s left of the invocation, under the 30 s/),
      },
    ]);
    expect(r.floor('chat-llm')).toBeUndefined();
    expect(r.world.items.get(`FORECAST|TICK#${TICK.id}`)).toMatchObject({ status: 'failed' });
  });
});
