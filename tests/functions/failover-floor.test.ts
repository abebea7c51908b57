/**
 * The failover floors in the evaluator (functions/evaluate/failover-floor.ts): the standby's own
 * scale-in never undoes a prescale or the warm floor. Replays through the evaluate harness (every
 * SDK client mocked): the standby chat-standby (this region, us-east-1) has 12 or 4 instances and
 * its signals ask to scale in (10 requests a minute per instance against 100); the group's
 * FAILOVER#chat item, in this region's table, says in which phase the failover is.
 */
import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { resolveFailoverGroups } from '#shared/failover/group.ts';
import { initialFailoverState } from '#shared/failover/plan.ts';
import type { FailoverState } from '#shared/failover/types.ts';
import { policyOrThrow } from '#shared/policy/load.ts';
import { CONFIG, harness } from './harness.ts';
import { eventFile } from './support.ts';

const target = (id: string, region: string) => ({
  id,
  kind: 'sagemaker-variant',
  region,
  endpointName: id,
  variantName: 'AllTraffic',
  scaling: { minCapacity: 1, maxCapacity: 20 },
  signals: [{ metric: 'invocationsPerInstance', target: 100 }],
  // Undamped scale-in: one low period is enough, and a step may go all the way.
  damping: {
    scaleOutBreaches: 1,
    scaleInBreaches: 1,
    scaleInStabilizationSeconds: 60,
    scaleInCooldownSeconds: 0,
    stepDown: { instances: 20, percent: 100 },
  },
});

const POLICY = {
  version: 1,
  targets: [target('chat-standby', 'us-east-1'), target('chat-primary', 'us-west-2')],
  failover: {
    groups: [
      {
        id: 'chat',
        members: [
          { targetId: 'chat-primary', role: 'primary' },
          { targetId: 'chat-standby', role: 'standby', warmFloor: 3 },
        ],
        routing: {
          kind: 'route53-weighted',
          hostedZoneId: 'Z0123456789ABC',
          recordName: 'chat.example.com',
          setIdentifiers: { 'us-east-1': 'east', 'us-west-2': 'west' },
        },
        health: { failPeriods: 3, failWindowPeriods: 5 },
      },
    ],
  },
};
const GROUP = resolveFailoverGroups(policyOrThrow(POLICY))[0]!;
const TICK = { ...(eventFile('scheduler-tick') as object), id: 'floor-tick' };
const NOW = Date.parse('2025-06-02T12:00:30Z');

function setup(instances: number, item?: { phase: FailoverState['phase']; mode?: string }) {
  const h = harness({ endpoint: { current: instances, desired: instances } });
  h.parameters.set(CONFIG.POLICY_PARAMETER_NAME, JSON.stringify(POLICY));
  h.metricValues.InvocationsPerInstance = 10;
  if (item) {
    const state: FailoverState = {
      ...initialFailoverState(GROUP),
      phase: item.phase,
      ...(item.phase === 'steady'
        ? {}
        : { direction: 'failover', source: 'us-west-2', needed: { 'chat-standby': 12 } }),
    };
    h.table.items.set('FAILOVER#chat|STATE', {
      pk: 'FAILOVER#chat',
      sk: 'STATE',
      version: 4,
      mode: item.mode ?? 'active',
      state,
    });
  }
  return h;
}

const standby = async (h: ReturnType<typeof setup>) =>
  (await h.evaluate(TICK, NOW)).records.find((r) => r.targetId === 'chat-standby')!;

describe('a standby held at its failover floor', () => {
  it.each([
    { phase: 'prescaling' as const },
    { phase: 'shifting' as const },
    { phase: 'failed-over' as const },
  ])(
    'in $phase, the prescale of 12 holds the standby at 12 though its signals ask for 2',
    async ({ phase }) => {
      const record = await standby(setup(12, { phase }));
      expect(record.decision?.desiredCapacity).toBe(12);
      expect(record.decision?.reasons).toEqual(['ScaleInBreach', 'FailoverFloor']);
      expect(record.decision?.message).toBe(
        `Hold at 12 instances: every signal has been below its band for 1 period; failover group chat is ${phase}: the standby holds the 12 instances the traffic move needs.`,
      );
      expect(record.outcome).toBe('held');
      expect((record.inputs as { failoverFloor?: unknown }).failoverFloor).toEqual({
        groupId: 'chat',
        phase,
        capacity: 12,
        detail: `held at 12 or more in ${phase}`,
      });
    },
  );

  it('in steady, the warm floor of 3 holds a standby of 4 whose signals ask for 1', async () => {
    const record = await standby(setup(4, { phase: 'steady' }));
    expect(record.decision?.desiredCapacity).toBe(3);
    expect(record.decision?.reasons).toEqual(['ScaleInBreach', 'FailoverFloor']);
    expect(record.decision?.message).toMatch(
      /failover group chat is steady: the standby keeps its warm floor of 3 instances\.$/,
    );
  });

  it('a state planned in shadow mode is a dry run: only the warm floor applies, and the record says so', async () => {
    const record = await standby(setup(12, { phase: 'shifting', mode: 'shadow' }));
    expect(record.decision?.desiredCapacity).toBe(3);
    expect((record.inputs as { failoverFloor?: { detail: string } }).failoverFloor?.detail).toBe(
      'held at 3 or more in steady (planned in shadow mode: shifting is a dry run, the warm floor only)',
    );
  });

  it('no FAILOVER# item: no floor, the standby scales in, and the record inputs say why', async () => {
    const record = await standby(setup(12));
    expect(record.decision?.desiredCapacity).toBe(2);
    expect(record.decision?.reasons).not.toContain('FailoverFloor');
    expect((record.inputs as { failoverFloor?: unknown }).failoverFloor).toEqual({
      groupId: 'chat',
      phase: null,
      capacity: null,
      detail: "no FAILOVER#chat item in this region's state table: no failover floor",
    });
  });

  it('a failed FAILOVER# read leaves no floor, names the error, and the targets are still evaluated', async () => {
    const h = setup(12, { phase: 'shifting' });
    const real = h.mocks.ddb.commandCalls(BatchGetCommand).length;
    h.mocks.ddb
      .on(BatchGetCommand, {
        RequestItems: { 'governor-state': { Keys: [{ pk: 'FAILOVER#chat', sk: 'STATE' }] } },
      })
      .rejects(Object.assign(new Error('slow down'), { name: 'ThrottlingException' }));
    const record = await standby(h);
    expect(h.mocks.ddb.commandCalls(BatchGetCommand).length).toBe(real + 2);
    expect(record.decision?.desiredCapacity).toBe(2);
    expect((record.inputs as { failoverFloor?: { detail: string } }).failoverFloor?.detail).toBe(
      'the read of FAILOVER#chat failed (ThrottlingException: slow down): no failover floor',
    );
  });

  it('a policy without a failover block makes no FAILOVER# read and records no failover floor', async () => {
    const h = setup(12, { phase: 'shifting' });
    const { failover: _, ...plain } = POLICY;
    h.parameters.set(CONFIG.POLICY_PARAMETER_NAME, JSON.stringify(plain));
    const record = await standby(h);
    const keys = h.mocks.ddb
      .commandCalls(BatchGetCommand)
      .flatMap((c) => (c.args[0].input.RequestItems?.['governor-state']?.Keys ?? []) as { pk: string }[]);
    expect(keys.map((k) => k.pk)).toEqual(['TARGET#chat-standby', 'TARGET#chat-primary']);
    expect(record.decision?.desiredCapacity).toBe(2);
    expect('failoverFloor' in record.inputs).toBe(false);
  });
});
