/**
 * The SageMaker variant fallback (shared/mix/variant-fallback.ts) as timelines: endpoint chat with
 * variants g5 (the primary, ml.g5.2xlarge), g6 (ml.g6.2xlarge) and g4 (ml.g4dn.2xlarge), the
 * target needing 6 instances, holdMinutes 60. Every reason code is produced by one case here.
 */
import { describe, expect, it } from 'vitest';
import {
  capacityFailureOf,
  type EndpointView,
  FALLBACK_REASON_CODES,
  type FallbackDecision,
  type FallbackPolicy,
  type FallbackReasonCode,
  type FallbackState,
  initialFallbackState,
  type VariantView,
} from '#shared/mix/fallback-types.ts';
import { decideFallback } from '#shared/mix/variant-fallback.ts';

const T0 = Date.parse('2025-06-02T12:00:00Z');
const min = (m: number) => T0 + m * 60_000;

const POLICY: FallbackPolicy = {
  primary: 'g5',
  variants: [
    { variantName: 'g6', instanceType: 'ml.g6.2xlarge' },
    { variantName: 'g4', instanceType: 'ml.g4dn.2xlarge' },
  ],
  holdMinutes: 60,
};

const variant = (
  variantName: string,
  instanceType: string,
  current: number,
  desired = current,
  weight = current,
) =>
  ({
    variantName,
    instanceType,
    currentInstances: current,
    desiredInstances: desired,
    currentWeight: weight,
  }) satisfies VariantView;

const CAPACITY =
  'Unable to provision requested ML compute capacity. Please retry using a different ML instance type.';

/** The endpoint: g5 serving `g5` instances, g6 and g4 kept at 1 with weight 0 unless told. */
function endpoint(
  g5: number,
  opts: {
    g6?: [number, number, number];
    g4?: [number, number, number];
    failure?: string;
    key?: string;
    status?: string;
  } = {},
): EndpointView {
  const [c6, d6, w6] = opts.g6 ?? [1, 1, 0];
  const [c4, d4, w4] = opts.g4 ?? [1, 1, 0];
  return {
    status: opts.status ?? 'InService',
    variants: [
      variant('g5', 'ml.g5.2xlarge', g5),
      variant('g6', 'ml.g6.2xlarge', c6, d6, w6),
      variant('g4', 'ml.g4dn.2xlarge', c4, d4, w4),
    ],
    capacityFailure: opts.failure ? capacityFailureOf(opts.failure, opts.key ?? 'k1') : null,
  };
}

const decide = (e: EndpointView, state: FallbackState, minute: number, needed = 6) =>
  decideFallback(e, needed, state, POLICY, min(minute));

const weights = (d: FallbackDecision) =>
  Object.fromEntries((d.writes ?? []).map((w) => [w.variantName, [w.desiredInstances, w.desiredWeight]]));

describe('capacityFailureOf: which FailureReason is a capacity shortage', () => {
  it.each([
    { case: 'the console message', reason: CAPACITY, type: null },
    {
      case: 'the message naming InsufficientInstanceCapacity',
      reason:
        'Unable to provision requested ML compute capacity due to InsufficientInstanceCapacity error. Please retry using a different ML instance type or after some time.',
      type: null,
    },
    {
      case: 'an EC2-style message naming the type',
      reason:
        'InsufficientInstanceCapacity: We currently do not have sufficient ml.g5.48xlarge capacity in the Availability Zone you requested (us-east-1a).',
      type: 'ml.g5.48xlarge',
    },
  ])('$case is a capacity failure', ({ reason, type }) => {
    expect(capacityFailureOf(reason, 'k')).toEqual({ key: 'k', instanceType: type, message: reason });
  });

  it.each([
    { case: 'no reason', reason: undefined },
    { case: 'an empty reason', reason: '' },
    {
      case: 'a failed health check',
      reason: 'The primary container for production variant g5 did not pass the ping health check.',
    },
    {
      case: 'an account quota (another type does not fix it)',
      reason:
        "ResourceLimitExceeded: The account-level service limit 'ml.g5.2xlarge for endpoint usage' is 2 Instances, with current utilization of 2 Instances and a request delta of 1 Instances.",
    },
  ])('$case is not', ({ reason }) => {
    expect(capacityFailureOf(reason, 'k')).toBeNull();
  });
});

describe('the fallback timeline', () => {
  const shifted = () => decide(endpoint(4, { failure: CAPACITY }), initialFallbackState(), 0);

  it('a capacity failure of the primary shifts the shortfall to the first fallback, traffic by instances', () => {
    const d = shifted();
    expect(d).toMatchObject({ action: 'shift', reasons: ['PrimaryCapacityShortage'] });
    expect(weights(d)).toEqual({ g5: [4, 4], g6: [2, 2], g4: [1, 0] });
    expect(d.state.active).toMatchObject({ variantName: 'g6', since: min(0), instances: 2 });
    expect(d.message).toBe(
      'g5 serves 4 of 6 instances: 2 asked of g6 (ml.g6.2xlarge) and traffic weighted by instances, for 60 minutes',
    );
  });

  it('within holdMinutes the fallback holds, and the same FailureReason is not counted twice', () => {
    const d = decide(endpoint(4, { g6: [2, 2, 2], failure: CAPACITY }), shifted().state, 30);
    expect(d).toMatchObject({ action: 'hold', reasons: ['FallbackHeld'], writes: null });
  });

  it('after holdMinutes the capacity is asked back on the primary while the fallback keeps serving', () => {
    const d = decide(endpoint(4, { g6: [2, 2, 2] }), shifted().state, 60);
    expect(d).toMatchObject({ action: 'return', reasons: ['HoldElapsed'] });
    expect(weights(d)).toEqual({ g5: [6, 4], g6: [2, 2], g4: [1, 0] });
    expect(d.state.active).toMatchObject({ returningSince: min(60), returnTo: 6 });
  });

  it('once the primary serves them, the fallback goes to its minimum with weight 0', () => {
    const returning = decide(endpoint(4, { g6: [2, 2, 2] }), shifted().state, 60).state;
    const waiting = decide(
      {
        ...endpoint(5, { g6: [2, 2, 2] }),
        variants: [
          variant('g5', 'ml.g5.2xlarge', 5, 6, 4),
          ...endpoint(5, { g6: [2, 2, 2] }).variants.slice(1),
        ],
      },
      returning,
      65,
    );
    expect(waiting).toMatchObject({ action: 'hold', reasons: ['ReturnInProgress'] });
    const done = decide(
      {
        ...endpoint(6),
        variants: [
          variant('g5', 'ml.g5.2xlarge', 6, 6, 4),
          variant('g6', 'ml.g6.2xlarge', 2, 2, 2),
          variant('g4', 'ml.g4dn.2xlarge', 1, 1, 0),
        ],
      },
      returning,
      70,
    );
    expect(done).toMatchObject({ action: 'return', reasons: ['ReturnCompleted'] });
    expect(weights(done)).toEqual({ g5: [6, 6], g6: [1, 0], g4: [1, 0] });
    expect(done.state.active).toBeNull();
  });

  it('a return SageMaker rolled back for capacity keeps the fallback for another holdMinutes', () => {
    const returning = decide(endpoint(4, { g6: [2, 2, 2] }), shifted().state, 60).state;
    const d = decide(endpoint(4, { g6: [2, 2, 2], failure: CAPACITY, key: 'k2' }), returning, 70);
    expect(d).toMatchObject({ action: 'hold', reasons: ['ReturnFailed'] });
    expect(d.state.active).toMatchObject({ since: min(70), returningSince: null });
  });

  it('a second capacity failure, of the fallback type (its shift rolled back), moves on to the next variant', () => {
    const d = decide(endpoint(4, { failure: CAPACITY, key: 'k2' }), shifted().state, 10);
    expect(d).toMatchObject({ action: 'shift', reasons: ['FallbackCapacityShortage'] });
    expect(weights(d)).toEqual({ g5: [4, 4], g6: [1, 0], g4: [2, 2] });
    expect(d.state.failedTypes).toEqual({ 'ml.g5.2xlarge': min(0), 'ml.g6.2xlarge': min(10) });
  });
});

const CASES: { case: string; code: FallbackReasonCode; decision: () => FallbackDecision }[] = [
  {
    case: 'an endpoint that is Updating is never written',
    code: 'EndpointNotInService',
    decision: () => decide(endpoint(4, { failure: CAPACITY, status: 'Updating' }), initialFallbackState(), 0),
  },
  {
    case: 'an endpoint without the primary cannot be decided on',
    code: 'PrimaryMissing',
    decision: () =>
      decide({ ...endpoint(4), variants: endpoint(4).variants.slice(1) }, initialFallbackState(), 0),
  },
  {
    case: 'a variant outside the policy taking traffic stops every write',
    code: 'UnlistedVariantServing',
    decision: () =>
      decide(
        { ...endpoint(4), variants: [...endpoint(4).variants, variant('canary', 'ml.g5.2xlarge', 1)] },
        initialFallbackState(),
        0,
      ),
  },
  {
    case: 'no capacity failure, nothing to do',
    code: 'PrimaryServing',
    decision: () => decide(endpoint(6), initialFallbackState(), 0),
  },
  {
    case: 'a capacity failure while the primary serves what is needed shifts nothing',
    code: 'NoShortfall',
    decision: () => decide(endpoint(6, { failure: CAPACITY }), initialFallbackState(), 0),
  },
  {
    case: 'a second shift within holdMinutes of the first waits',
    code: 'ShiftRateHold',
    decision: () =>
      decide(
        endpoint(4, { failure: CAPACITY, key: 'k2' }),
        { ...initialFallbackState(), lastShiftAt: min(-30) },
        0,
      ),
  },
  {
    case: 'every fallback type failed lately: nothing to shift to',
    code: 'NoFallbackAvailable',
    decision: () =>
      decide(
        endpoint(4, { failure: CAPACITY }),
        {
          ...initialFallbackState(),
          failedTypes: { 'ml.g6.2xlarge': min(-10), 'ml.g4dn.2xlarge': min(-20) },
        },
        0,
      ),
  },
  {
    case: 'a return to a primary with no instance to serve writes no all-zero weights',
    code: 'NothingServing',
    decision: () =>
      decide(
        { ...endpoint(0), variants: [variant('g5', 'ml.g5.2xlarge', 0), ...endpoint(0).variants.slice(1)] },
        {
          ...initialFallbackState(),
          active: {
            variantName: 'g6',
            instanceType: 'ml.g6.2xlarge',
            since: min(-70),
            instances: 2,
            returningSince: min(-5),
            returnTo: 0,
          },
        },
        0,
      ),
  },
];

describe('reason codes', () => {
  it.each(CASES)('$case: $code', ({ code, decision }) => {
    const d = decision();
    expect(d.reasons).toEqual([code]);
    expect(d.writes).toBeNull();
  });

  it('every reason code has a case here or in the timeline', () => {
    const timeline: FallbackReasonCode[] = [
      'PrimaryCapacityShortage',
      'FallbackHeld',
      'HoldElapsed',
      'ReturnInProgress',
      'ReturnCompleted',
      'ReturnFailed',
      'FallbackCapacityShortage',
    ];
    expect([...CASES.map((c) => c.code), ...timeline].sort()).toEqual([...FALLBACK_REASON_CODES].sort());
  });
});
