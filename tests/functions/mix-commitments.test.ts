/**
 * The mix function plans on the commitments that exist (functions/mix/commitments.ts): the
 * smaller of the policy's committed instances and what the commitments function read, while its
 * read is fresh; the policy's own number when there is no read, an old one, or a failed one.
 */

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { commitmentsByRegion, withExistingCommitment } from '#functions/mix/commitments.ts';
import type { ExistingCommitments } from '#shared/commit/exists.ts';
import { initialMixState, stepMix } from '#shared/mix/plan.ts';
import { resolveMixPolicy } from '#shared/mix/types.ts';
import { parsePolicyText } from '#shared/policy/load.ts';
import { at, flat } from '../mix/harness.ts';

const parsed = parsePolicyText(readFileSync('examples/capacity-mix.yaml', 'utf8'));
if (!parsed.ok) throw new Error('examples/capacity-mix.yaml does not validate');
const target = parsed.policy.targets[0]!;
const now = at(0);
const YEAR = 365 * 86_400_000;
const read = (count: number, readAt = now - 60_000): ExistingCommitments => ({
  readAt,
  region: 'us-east-1',
  reservations: [
    {
      id: 'ri-1',
      instanceType: 'g5.2xlarge',
      zone: null,
      count,
      state: 'active',
      start: now - YEAR,
      end: now + YEAR,
    },
  ],
  capacityReservations: [],
  savingsPlans: [],
});

describe('planning on the commitments that exist', () => {
  it.each([
    { case: 'fewer exist than the policy commits: planned on what exists', r: read(1), planned: 1 },
    { case: 'as many exist: the policy', r: read(4), planned: 4 },
    { case: 'more exist: never more than the policy', r: read(9), planned: 4 },
    { case: 'no read: the policy', r: null, planned: 4 },
    { case: 'a read 4 hours old: the policy', r: read(1, now - 4 * 3_600_000), planned: 4 },
  ])('$case', ({ r, planned }) => {
    const base = resolveMixPolicy(target)!;
    const { policy, check } = withExistingCommitment(base, target, r, now);
    expect(policy.mix.committed.instances).toBe(planned);
    expect(check?.planned).toBe(planned);
    const step = stepMix(initialMixState(), { forecast: flat(now, 10) }, policy, now);
    expect(step.plan?.committed).toBe(planned);
  });

  it('reads each region once; a failed read is no read', async () => {
    const asked: string[] = [];
    const byRegion = await commitmentsByRegion(
      {
        read: async (region) => {
          asked.push(region);
          throw new Error('AccessDeniedException');
        },
      },
      [target, { ...target, id: 'other' }],
    );
    expect(asked).toEqual(['us-east-1']);
    expect(byRegion.get('us-east-1')).toBeNull();
    expect((await commitmentsByRegion(undefined, [target])).size).toBe(0);
  });
});
