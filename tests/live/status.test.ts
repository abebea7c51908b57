/** The status view's pure parts (shared/live/status.ts, status-lines.ts): parts that failed, parts left out. */
import { describe, expect, it } from 'vitest';
import { type StatusReads, targetStatus } from '#shared/live/status.ts';
import { statusLines } from '#shared/live/status-lines.ts';
import { policyOrThrow } from '#shared/policy/load.ts';
import { SliLedger } from '#shared/slo/ledger.ts';
import { decodeState } from '#shared/state/item.ts';

const now = Date.parse('2025-06-02T12:00:00Z');
const [target] = policyOrThrow({
  version: 1,
  targets: [
    {
      id: 'chat-llm',
      kind: 'sagemaker-variant',
      region: 'us-east-1',
      endpointName: 'chat-llm-prod',
      scaling: { minCapacity: 1, maxCapacity: 10 },
      signals: [{ metric: 'invocationsPerInstance', target: 84 }],
    },
  ],
}).targets;

const reads = (over: Partial<StatusReads> = {}): StatusReads => ({
  target: target!,
  capacity: { ok: true, value: { desired: 2, ready: 2, status: 'InService' } },
  lastRecord: { ok: true, value: null },
  state: { ok: true, value: decodeState(undefined) },
  executions: { ok: true, value: [] },
  warmPool: null,
  failover: null,
  mix: null,
  ...over,
});

describe('governor status, one target', () => {
  it.each([
    {
      case: 'a target no evaluation has recorded yet',
      over: {},
      switchValue: 'off',
      lines: [
        'chat-llm: endpoint chat-llm-prod, variant AllTraffic (us-east-1)',
        '  mode           unknown: no decision recorded yet',
        '  kill switch    off',
        '  capacity       2 serving, 2 desired (InService)',
        '  last decision  none recorded yet',
        '  in flight      no execution running',
      ],
    },
    {
      case: 'reads that failed, each on its own line; a missing switch counts as on',
      over: {
        capacity: { ok: false, problem: 'AccessDeniedException: no' },
        lastRecord: { ok: false, problem: 'ProvisionedThroughputExceededException: slow down' },
        executions: null,
        state: { ok: false, problem: 'Error: boom' },
      },
      switchValue: null,
      lines: [
        'chat-llm: endpoint chat-llm-prod, variant AllTraffic (us-east-1)',
        '  mode           unknown: no decision recorded yet',
        '  kill switch    missing (counts as on)',
        '  capacity       cannot read: AccessDeniedException: no',
        '  last decision  cannot read: ProvisionedThroughputExceededException: slow down',
        '  in flight      no scale-target state machine in this stack',
        '  problem        state item: Error: boom',
      ],
    },
  ])('$case', ({ over, switchValue, lines }) => {
    expect(statusLines(targetStatus(reads(over as Partial<StatusReads>), switchValue, now))).toEqual(lines);
  });

  it('shows the pending change beside the running executions', () => {
    const state = decodeState({
      version: 3,
      pending: { decisionId: 'd-1', desiredCapacity: 6, previousCapacity: 2, at: now - 30_000 },
    });
    const status = targetStatus(
      reads({
        state: { ok: true, value: state },
        executions: { ok: true, value: [{ name: 'd-1', startedAt: now - 29_000 }] },
      }),
      'off',
      now,
    );
    expect(statusLines(status)).toContain(
      '  in flight      1 running: d-1 (since 2025-06-02 11:59:31Z); pending d-1 to 6 since 2025-06-02 11:59:30Z',
    );
  });
});

describe('governor status, the forecast room', () => {
  const [roomTarget] = policyOrThrow({
    version: 1,
    targets: [
      {
        ...target!,
        instanceCapacity: { requestsPerMinuteAtSlo: 150 },
        signals: [
          { metric: 'invocationsPerInstance', target: 84 },
          { metric: 'p95LatencyMs', sloMs: 2000 },
        ],
        forecast: { quantile: 'p50', requestsPerInstance: 84 },
      },
    ],
  }).targets;
  const floor = (bandRatios: (number | null)[]) => ({
    kind: 'forecast',
    quantile: 'p50',
    computedAt: now - 60_000,
    startsAt: now - 5 * 60_000,
    stepMinutes: 5,
    leadTimeMinutes: 10,
    capacities: [2, 3, 3],
    bandRatios,
  });
  // Two calm hours in the ledger: the room opens only while both burn windows are below 1.
  const ledger = new SliLedger(60, 30 * 1440);
  for (let m = now / 60_000 - 120; m < now / 60_000; m++)
    ledger.record({ minute: m, good: true, requests: 100 });
  const slo = { ledger: ledger.toJSON(), headroom: { factor: 1, lastLoosenAt: null, lastTightenAt: null } };
  const status = (bandRatios: (number | null)[]) =>
    targetStatus(
      reads({
        target: roomTarget!,
        state: { ok: true, value: decodeState({ version: 3, forecastFloor: floor(bandRatios), slo }) },
      }),
      'off',
      now,
    );

  it("says the room is open when the floor step's band is narrow, with the factor the targets stand at", () => {
    const s = status([1.3, 1.05, 1.3]);
    expect(s.forecastFloor).toMatchObject({ capacity: 3, bandRatio: 1.05 });
    expect(s.slo?.forecastRoom).toEqual({ factor: 1.3, bandRatio: 1.05 });
    expect(statusLines(s).find((l) => l.startsWith('  slo'))).toContain(
      ', forecast room open: targets at 1.30x (band 5.00 %)',
    );
  });

  it('says the targets stand in the spare room when the stored factor is past maxTargetFactor, and not at 1', () => {
    const spare = { ...slo, headroom: { ...slo.headroom, factor: 1.2 } };
    const at = (value: typeof slo) =>
      targetStatus(
        reads({
          target: roomTarget!,
          state: {
            ok: true,
            value: decodeState({ version: 3, forecastFloor: floor([1.3, 1.3, 1.3]), slo: value }),
          },
        }),
        'off',
        now,
      );
    const s = at(spare);
    expect(s.slo?.spareRoom).toBe(true);
    expect(statusLines(s).find((l) => l.startsWith('  slo'))).toContain(
      'headroom factor 1.2 (spare room: leaner than written while the budget goes unspent)',
    );
    expect(at(slo).slo?.spareRoom).toBe(false);
    expect(statusLines(at(slo)).join('\n')).not.toContain('spare room');
  });

  it.each([
    { case: 'a wide band', bands: [1.05, 1.3, 1.05] },
    { case: 'a step without a median', bands: [1.05, null, 1.05] },
  ])('says nothing of it with $case', ({ bands }) => {
    const s = status(bands);
    expect(s.slo?.forecastRoom).toBeNull();
    expect(statusLines(s).join('\n')).not.toContain('forecast room');
  });
});
