/**
 * Reconcile, don't remember (shared/failover/reconcile.ts, truth.ts): the verdict of one
 * evaluation from the planner's intent, the routing as read and how the newest execution ended;
 * and Governor's heartbeat that gates a failover, never triggers one (shared/failover/health.ts).
 */
import { describe, expect, it } from 'vitest';
import { periodVerdict } from '#shared/failover/health.ts';
import { type ReconcileArgs, reconcile } from '#shared/failover/reconcile.ts';
import { driftedRegions, inSync, type RoutingTruth, risingRegions } from '#shared/failover/truth.ts';
import { FailoverHealthSchema } from '#shared/policy/failover-schema.ts';
import { formatProblem, validatePolicy } from '#shared/policy/load.ts';
import { chatGroup, chatTargets } from '../functions/failover-group.ts';

const T = Date.parse('2025-06-02T12:00:00Z');
const BASE = { east: 100, west: 0 };
const r53 = (east: number, west: number): RoutingTruth => ({
  kind: 'route53-weighted',
  weights: { east, west },
});
const args = (over: Partial<ReconcileArgs> = {}): ReconcileArgs => ({
  kind: 'route53-weighted',
  intent: { east: 50, west: 50 },
  base: BASE,
  truth: r53(50, 50),
  last: { status: 'succeeded', outcome: 'finished' },
  hasInput: true,
  carriesWork: false,
  hasPrior: true,
  killed: false,
  attempts: 0,
  driftSince: null,
  now: T,
  ...over,
});

describe('the verdict', () => {
  it.each([
    { case: 'in sync: plan', over: {}, act: 'plan', reason: 'RoutingInSync' },
    {
      case: 'routing unreadable: plan from memory',
      over: { truth: null },
      act: 'plan',
      reason: 'RoutingUnreadable',
    },
    {
      case: 'differs while the execution runs: hold',
      over: { truth: r53(90, 10), last: { status: 'running' as const, outcome: null } },
      act: 'hold',
      reason: 'ExecutionInFlight',
    },
    {
      case: 'differs, execution lost: start it again',
      over: { truth: r53(90, 10), last: { status: 'lost' as const, outcome: null } },
      act: 'redo-execution',
      reason: 'ExecutionRedo',
    },
    {
      case: 'differs, execution failed: start it again',
      over: { truth: r53(90, 10), last: { status: 'failed' as const, outcome: null } },
      act: 'redo-execution',
      reason: 'ExecutionRedo',
    },
    {
      case: 'differs after an execution that finished: one step to the intent',
      over: { truth: r53(90, 10) },
      act: 'redo-routing',
      reason: 'RoutingRedo',
    },
    {
      case: 'differs after 3 redos: no more, hold',
      over: { truth: r53(90, 10), last: { status: 'failed' as const, outcome: null }, attempts: 3 },
      act: 'hold',
      reason: 'RedoExhausted',
    },
    {
      case: 'the execution was killed: back to where the routing is',
      over: { truth: r53(90, 10), last: { status: 'succeeded' as const, outcome: 'killed' } },
      act: 'rebase',
      reason: 'RebasedToRouting',
    },
    {
      case: 'the execution was killed, the switch is still on: back to where the routing is first',
      over: { truth: r53(90, 10), killed: true, last: { status: 'succeeded' as const, outcome: 'killed' } },
      act: 'rebase',
      reason: 'RebasedToRouting',
    },
    {
      case: 'the execution rolled its step back: back to where the routing is',
      over: { truth: r53(90, 10), last: { status: 'succeeded' as const, outcome: 'rolled-back' } },
      act: 'rebase',
      reason: 'RebasedToRouting',
    },
    {
      case: 'kill switch on: hold, never redo',
      over: { truth: r53(90, 10), killed: true, last: { status: 'failed' as const, outcome: null } },
      act: 'hold',
      reason: 'KillSwitchHold',
    },
    {
      case: 'in sync, but the lost execution carried a prescale: start it again',
      over: { last: { status: 'lost' as const, outcome: null }, carriesWork: true },
      act: 'redo-execution',
      reason: 'ExecutionRedo',
    },
    {
      case: 'in sync, the lost prescale redone 3 times: plan (the planner halts on its timeout and alarms)',
      over: { last: { status: 'lost' as const, outcome: null }, carriesWork: true, attempts: 3 },
      act: 'plan',
      reason: 'RoutingInSync',
    },
  ])('$case', ({ over, act, reason }) => {
    expect(reconcile(args(over))).toMatchObject({ act, reason });
  });

  it('counts the minutes intent and routing disagree, 0 in sync, nothing when unread, and pauses under the kill switch', () => {
    const drifting = args({ truth: r53(90, 10), driftSince: T - 3 * 60_000 });
    expect(reconcile(args({ truth: r53(90, 10) })).driftMinutes).toBe(0);
    expect(reconcile(drifting)).toMatchObject({ driftMinutes: 3, driftSince: T - 3 * 60_000 });
    expect(reconcile(args({ driftSince: T - 60_000 }))).toMatchObject({ driftMinutes: 0, driftSince: null });
    expect(reconcile({ ...drifting, truth: null })).toMatchObject({
      driftMinutes: null,
      driftSince: T - 3 * 60_000,
    });
    expect(reconcile({ ...drifting, killed: true })).toMatchObject({ driftMinutes: 0, driftSince: null });
  });
});

describe('the routing against the intent, in each kind’s own terms', () => {
  it.each([
    { case: 'Route 53 weights equal', truth: r53(50, 50), synced: true, rising: [] },
    { case: 'Route 53 weights differ', truth: r53(90, 10), synced: false, rising: ['west'] },
    {
      case: 'ARC: both On mid-shift is in sync (ARC cannot tell 90/10 from 50/50)',
      truth: { kind: 'arc-routing-controls' as const, on: { east: true, west: true } },
      synced: true,
      rising: [],
    },
    {
      case: 'ARC: the standby Off differs',
      truth: { kind: 'arc-routing-controls' as const, on: { east: true, west: false } },
      synced: false,
      rising: ['west'],
    },
    {
      case: 'Global Accelerator: dials east 50, west 100 are 50/50',
      truth: { kind: 'global-accelerator' as const, dials: { east: 50, west: 100 } },
      synced: true,
      rising: [],
    },
    {
      case: 'Global Accelerator: a region missing from the read differs',
      truth: { kind: 'global-accelerator' as const, dials: { east: 50 } },
      synced: false,
      rising: ['west'],
    },
  ])('$case', ({ truth, synced, rising }) => {
    const intent = { east: 50, west: 50 };
    expect(inSync(intent, BASE, truth)).toBe(synced);
    expect(driftedRegions(intent, BASE, truth).length === 0).toBe(synced);
    expect(risingRegions(intent, BASE, truth)).toEqual(rising);
  });
});

describe("Governor's heartbeat gates, never triggers", () => {
  const h = FailoverHealthSchema.parse({ p95LatencyMs: 1500 });
  const fresh = { timestamp: T - 30_000 };
  const region = (errors: number, beatAgeSeconds: number) => ({
    errorRatePercent: { value: errors, ...fresh },
    p95LatencyMs: { value: 400, ...fresh },
    capacityErrors: { value: 0, ...fresh },
    heartbeat: { lastBeatAt: T - beatAgeSeconds * 1000, readAt: T },
  });

  it.each([
    {
      case: 'stale heartbeat beside a healthy endpoint: unknown, not a breach',
      obs: region(0.1, 900),
      verdict: 'unknown',
    },
    { case: 'stale heartbeat beside 5xx errors: a breach', obs: region(30, 900), verdict: 'breach' },
    { case: 'fresh heartbeat, healthy endpoint: ok', obs: region(0.1, 30), verdict: 'ok' },
    {
      case: 'stale heartbeat on an idle standby: unknown, not a destination',
      obs: { ...region(0, 900), errorRatePercent: undefined, p95LatencyMs: undefined },
      verdict: 'unknown',
      idle: true,
    },
  ])('$case', ({ obs, verdict, idle }) => {
    expect(periodVerdict(obs, h, T, idle ?? false).verdict).toBe(verdict);
  });
});

describe('ARC cluster endpoints in the policy (issue 18, item 3)', () => {
  const policy = (endpoint: string, region = 'us-west-2') => ({
    version: 1,
    targets: chatTargets(),
    failover: {
      groups: [
        {
          ...chatGroup({}),
          routing: {
            kind: 'arc-routing-controls',
            routingControls: {
              'us-east-1':
                'arn:aws:route53-recovery-control::123456789012:controlpanel/abc/routingcontrol/east',
              'us-west-2':
                'arn:aws:route53-recovery-control::123456789012:controlpanel/abc/routingcontrol/west',
            },
            clusterEndpoints: [{ region, endpoint }],
          },
        },
      ],
    },
  });

  it.each([
    'https://attacker.example/v1',
    'https://host-a.route53-recovery-cluster.us-west-2.amazonaws.com.attacker.example/v1',
    'https://host-a.route53-recovery-cluster.us-east-1.amazonaws.com/v1',
    'https://host-a.route53-recovery-cluster.us-west-2.amazonaws.com:444/v1',
  ])('refuse %s, naming the field', (endpoint) => {
    const result = validatePolicy(policy(endpoint));
    expect(result.ok).toBe(false);
    expect(result.ok ? [] : result.problems.map(formatProblem)).toEqual([
      expect.stringMatching(
        /^failover\.groups\[0\]\.routing\.clusterEndpoints\[0\]\.endpoint must be an ARC cluster endpoint of AWS in us-west-2/,
      ),
    ]);
  });

  it.each([
    ['https://host-a.route53-recovery-cluster.us-west-2.amazonaws.com/v1', 'us-west-2'],
    ['https://host-a.route53-recovery-cluster.cn-north-1.amazonaws.com.cn/v1', 'cn-north-1'],
  ])('accept %s', (endpoint, region) => {
    expect(validatePolicy(policy(endpoint, region)).ok).toBe(true);
  });
});
