/**
 * The commitments function's flow (functions/commitments/run.ts) on in-memory ports: one read per
 * region for the types its targets commit, stored, and each target checked against it; a failed
 * read counted, with the last fresh stored read still deciding. A timeline from t0.
 */
import { describe, expect, it } from 'vitest';
import { createCommitmentsRunner } from '#functions/commitments/run.ts';
import type { CommitCheck, ExistingCommitments } from '#shared/commit/exists.ts';

const t0 = Date.UTC(2026, 10, 27, 3);
const YEAR = 365 * 86_400_000;
const policy = `version: 1
targets:
${['us-east-1', 'eu-west-1']
  .map(
    (region, i) => `  - id: gpu-${i}
    kind: ec2-asg
    region: ${region}
    autoScalingGroupName: gpu-${i}
    scaling: { minCapacity: 1, maxCapacity: 20 }
    signals: [{ metric: gpuUtilization, target: 70, cloudwatch: { namespace: Gpu, metricName: GpuUtilization } }]
    capacityMix:
      pools: [{ instanceType: g5.2xlarge, onDemandUsdPerHour: 1.2 }]
      zones: [${region}a, ${region}b]
      committed: { instances: 4, instanceType: g5.2xlarge, usdPerHour: 0.76 }`,
  )
  .join('\n')}
`;

function world(fail: Set<string> = new Set()) {
  const stored = new Map<string, ExistingCommitments>();
  const calls: { region: string; types: readonly string[] }[] = [];
  const checks: CommitCheck[] = [];
  const failures: string[] = [];
  const run = createCommitmentsRunner({
    config: { POLICY_PARAMETER_NAME: '/p', STATE_TABLE_NAME: 't', AWS_REGION: 'us-east-1' },
    ports: {
      parameters: { get: async () => policy, under: async () => [] },
      commitments: {
        async read(region, types, now) {
          calls.push({ region, types });
          if (fail.has(region)) throw new Error('AccessDenied');
          return {
            readAt: now,
            region,
            reservations: [
              {
                id: 'ri-1',
                instanceType: 'g5.2xlarge',
                zone: null,
                count: 3,
                state: 'active',
                start: now - YEAR,
                end: now + YEAR,
              },
            ],
            capacityReservations: [],
            savingsPlans: [],
          };
        },
      },
      store: {
        write: async (r) => {
          stored.set(r.region, r);
        },
        read: async (region) => stored.get(region) ?? null,
      },
    },
    telemetry: { checked: (c) => checks.push(c), readFailed: (region) => failures.push(region) },
  });
  return { run, stored, calls, checks, failures };
}

describe('the commitments run', () => {
  it("reads each region once, stores it, and publishes each target's shortfall against it", async () => {
    const w = world();
    const report = await w.run(t0);
    expect(w.calls).toEqual([
      { region: 'eu-west-1', types: ['g5.2xlarge'] },
      { region: 'us-east-1', types: ['g5.2xlarge'] },
    ]);
    expect([...w.stored.keys()].sort()).toEqual(['eu-west-1', 'us-east-1']);
    expect(report.checks.map((c) => [c.targetId, c.reasons[0], c.existing, c.shortfall, c.planned])).toEqual([
      ['gpu-1', 'CommitmentShortfall', 3, 1, 3],
      ['gpu-0', 'CommitmentShortfall', 3, 1, 3],
    ]);
  });

  it('a failed read is counted; the last stored read decides while fresh, then the target is unread', async () => {
    const w = world();
    await w.run(t0);
    const failing = world(new Set(['us-east-1']));
    for (const [k, v] of w.stored) failing.stored.set(k, v);
    const soon = await failing.run(t0 + 60 * 60_000);
    expect(failing.failures).toEqual(['us-east-1']);
    expect(soon.regions).toEqual([
      { region: 'eu-west-1', read: true },
      { region: 'us-east-1', read: false },
    ]);
    expect(soon.checks.find((c) => c.targetId === 'gpu-0')?.reasons[0]).toBe('CommitmentShortfall');
    const late = await failing.run(t0 + 4 * 60 * 60_000);
    expect(late.checks.find((c) => c.targetId === 'gpu-0')?.reasons).toEqual(['CommitmentUnread']);
  });
});

describe('a target whose policy lists no zones', () => {
  const unzoned = `version: 1
targets:
  - id: gpu-0
    kind: ec2-asg
    region: us-east-1
    autoScalingGroupName: gpu-0
    scaling: { minCapacity: 1, maxCapacity: 20 }
    signals: [{ metric: gpuUtilization, target: 70, cloudwatch: { namespace: Gpu, metricName: GpuUtilization } }]
    capacityMix:
      pools: [{ instanceType: g5.2xlarge, onDemandUsdPerHour: 1.2, spotUsdPerHour: 0.5, interruption: '<5%' }]
      spot: { maxPercent: 50 }
      committed: { instances: 4, instanceType: g5.2xlarge, usdPerHour: 0.76 }
`;
  const zonal = (zone: string, count: number) => ({
    id: `ri-${zone}`,
    instanceType: 'g5.2xlarge',
    zone,
    count,
    state: 'active',
    start: t0 - YEAR,
    end: t0 + YEAR,
  });
  /** The PLAN item the mix function stored: spot spread over the group's two zones (functions/mix/zones.ts). */
  const planOver = (zones: string[]) => ({
    state: { plan: { pools: zones.map((z) => `g5.2xlarge@${z}`) } },
    version: 1,
  });
  /** The PLAN items port: one batch read of the targets' items (absent: not read). */
  const byId = (get: () => Promise<unknown>) => ({
    getMany: async (ids: string[]) => {
      const item = await get();
      return new Map(item ? ids.map((id) => [id, item]) : []);
    },
  });
  const run = (plans?: ReturnType<typeof byId>) =>
    createCommitmentsRunner({
      config: { POLICY_PARAMETER_NAME: '/p', STATE_TABLE_NAME: 't', AWS_REGION: 'us-east-1' },
      ports: {
        parameters: { get: async () => unzoned, under: async () => [] },
        commitments: {
          read: async (region, _types, now) => ({
            readAt: now,
            region,
            // 2 reserved in a zone the group runs in, 5 in one it does not.
            reservations: [zonal('us-east-1a', 2), zonal('us-east-1d', 5)],
            capacityReservations: [],
            savingsPlans: [],
          }),
        },
        store: { write: async () => {}, read: async () => null },
        ...(plans ? { plans: plans as never } : {}),
      },
      telemetry: { checked: () => {}, readFailed: () => {} },
    })(t0);

  it('is checked in the zones its plan in force was spread over: zonal reservations there count, others not', async () => {
    const report = await run(byId(async () => planOver(['us-east-1a', 'us-east-1b'])));
    expect(report.checks.map((c) => [c.reserved, c.shortfall, c.planned])).toEqual([[2, 2, 2]]);
    expect(report.checks[0]!.message).toContain('us-east-1 (us-east-1a, us-east-1b)');
  });

  it('without a plan spread over zones, or with its PLAN item unreadable, counts no zonal reservation and says to list the zones', async () => {
    for (const plans of [
      undefined,
      byId(async () => null),
      byId(async () => {
        throw new Error('AccessDenied');
      }),
    ]) {
      const report = await run(plans);
      expect(report.checks.map((c) => [c.reserved, c.shortfall])).toEqual([[0, 4]]);
      expect(report.checks[0]!.message).toContain('zonal reservations not counted: list capacityMix.zones');
    }
  });
});
