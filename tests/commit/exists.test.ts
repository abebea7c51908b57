/**
 * Commitments that exist against the policy's (shared/commit/exists.ts): what counts, the
 * shortfall that becomes the warning metric, and "cannot say" as a value. Times are a timeline.
 */
import { describe, expect, it } from 'vitest';
import {
  type CommitTarget,
  checkCommitment,
  EXPIRING_MS,
  type ExistingCommitments,
  MAX_READ_AGE_MS,
} from '#shared/commit/exists.ts';

const t0 = Date.UTC(2026, 10, 1);
const DAY = 86_400_000;
const YEAR = 365 * DAY;
const target: CommitTarget = {
  targetId: 'gpu',
  region: 'us-east-1',
  zones: ['us-east-1a', 'us-east-1b'],
  instances: 6,
  instanceType: 'g5.2xlarge',
};
const ri = (over: Partial<ExistingCommitments['reservations'][number]> = {}) => ({
  id: 'ri-1',
  instanceType: 'g5.2xlarge',
  zone: null,
  count: 2,
  state: 'active',
  start: t0 - YEAR,
  end: t0 + 2 * YEAR,
  ...over,
});
const cr = (over: Partial<ExistingCommitments['capacityReservations'][number]> = {}) => ({
  id: 'cr-1',
  instanceType: 'g5.2xlarge',
  zone: 'us-east-1a',
  total: 2,
  state: 'active',
  end: null,
  matching: 'open' as const,
  ...over,
});
const sp = (over: Partial<ExistingCommitments['savingsPlans'][number]> = {}) => ({
  id: 'sp-1',
  type: 'Compute',
  state: 'active',
  region: null,
  family: null,
  commitmentUsdPerHour: 1.5,
  start: t0 - YEAR,
  end: t0 + 2 * YEAR,
  rates: { 'g5.2xlarge': 0.7 } as Record<string, number>,
  ...over,
});
const read = (over: Partial<ExistingCommitments> = {}): ExistingCommitments => ({
  readAt: t0 - 10 * 60_000,
  region: 'us-east-1',
  reservations: [ri()],
  capacityReservations: [cr()],
  savingsPlans: [sp()],
  ...over,
});

describe('checkCommitment', () => {
  it.each([
    {
      case: 'a regional reservation, an open capacity reservation and a plan cover 6',
      r: read(),
      existing: 6,
    },
    {
      case: 'a zonal reservation in another zone does not count',
      r: read({ reservations: [ri({ zone: 'us-east-1c' })] }),
      existing: 4,
    },
    {
      case: 'a zonal reservation in the group counts',
      r: read({ reservations: [ri({ zone: 'us-east-1b' })] }),
      existing: 6,
    },
    {
      case: 'a retired or not yet started reservation does not count',
      r: read({ reservations: [ri({ state: 'retired' }), ri({ start: t0 + DAY })] }),
      existing: 4,
    },
    {
      case: 'another type does not count',
      r: read({ reservations: [ri({ instanceType: 'g6.2xlarge' })] }),
      existing: 4,
    },
    {
      case: 'a targeted capacity reservation does not count',
      r: read({ capacityReservations: [cr({ matching: 'targeted' })] }),
      existing: 4,
    },
    {
      case: 'an expired capacity reservation does not count',
      r: read({ capacityReservations: [cr({ state: 'expired' })] }),
      existing: 4,
    },
    {
      case: 'a plan counts its commitment over its rate, rounded down (1.5 / 0.7 = 2)',
      r: read(),
      existing: 6,
    },
    {
      case: 'a plan whose rate is unread counts nothing',
      r: read({ savingsPlans: [sp({ rates: {} })] }),
      existing: 4,
    },
    {
      case: 'an EC2 instance plan of another family counts nothing',
      r: read({ savingsPlans: [sp({ type: 'EC2Instance', region: 'us-east-1', family: 'g6' })] }),
      existing: 4,
    },
    {
      case: 'an EC2 instance plan of the family and region counts',
      r: read({ savingsPlans: [sp({ type: 'EC2Instance', region: 'us-east-1', family: 'g5' })] }),
      existing: 6,
    },
    {
      case: 'a SageMaker plan does not cover EC2',
      r: read({ savingsPlans: [sp({ type: 'SageMaker' })] }),
      existing: 4,
    },
  ])('$case', ({ r, existing }) => {
    const c = checkCommitment(target, r, t0);
    expect(c.existing).toBe(existing);
    expect(c.planned).toBe(Math.min(6, existing));
    expect(c.shortfall).toBe(Math.max(0, 6 - existing));
    expect(c.reasons[0]).toBe(existing >= 6 ? 'CommitmentCovered' : 'CommitmentShortfall');
    expect(c.message).toMatch(/\.$/);
  });

  it('a policy commitment larger than what exists is a shortfall, said with the fix', () => {
    const c = checkCommitment({ ...target, instances: 10 }, read(), t0);
    expect(c).toMatchObject({ existing: 6, shortfall: 4, planned: 6, reasons: ['CommitmentShortfall'] });
    expect(c.message).toBe(
      'gpu commits 10 g5.2xlarge but 6 g5.2xlarge at most exist in us-east-1 (us-east-1a, us-east-1b): 2 reserved, 2 in open capacity reservations, 2 by Savings Plans: 4 short, planned on 6; buy the commitment or lower capacityMix.committed.instances.',
    );
  });

  it('more than the policy uses is said (CommitmentUnplanned), and planned on the policy', () => {
    const c = checkCommitment({ ...target, instances: 4 }, read(), t0);
    expect(c.reasons).toEqual(['CommitmentCovered', 'CommitmentUnplanned']);
    expect(c.planned).toBe(4);
  });

  it('a counted commitment ending within 30 days is named', () => {
    const c = checkCommitment(target, read({ reservations: [ri({ end: t0 + EXPIRING_MS - 1 })] }), t0);
    expect(c.reasons).toContain('CommitmentExpiring');
    expect(c.expiring).toEqual(['ri-1']);
    expect(c.message).toContain('ending within 30 days: ri-1');
  });

  it('without zones, zonal reservations and capacity reservations are not counted, and it says so', () => {
    const c = checkCommitment(
      { ...target, zones: null },
      read({ reservations: [ri({ zone: 'us-east-1a' })] }),
      t0,
    );
    expect(c.existing).toBe(2);
    expect(c.message).toContain('zonal reservations not counted: list capacityMix.zones');
  });

  it.each([
    { case: 'nothing read yet', r: null, now: t0, why: 'nothing read yet' },
    { case: 'a read too old', r: read(), now: t0 + MAX_READ_AGE_MS + 1, why: 'min old' },
    {
      case: 'a read of another region',
      r: read({ region: 'eu-west-1' }),
      now: t0,
      why: 'the read is of eu-west-1',
    },
  ])('cannot say on $case: CommitmentUnread, the policy planned on, no shortfall', ({ r, now, why }) => {
    const c = checkCommitment(target, r, now);
    expect(c).toMatchObject({ existing: null, planned: 6, shortfall: 0, reasons: ['CommitmentUnread'] });
    expect(c.message).toContain(why);
  });
});
