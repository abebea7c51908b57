import { describe, expect, it } from 'vitest';
import { HPA_DEFAULTS, hpaReplicas, k8sHpaPolicy } from '#shared/backtest/policies/k8s-hpa.ts';
import { repeat, viewOf } from './views.ts';

// Target 10 requests per pod per minute; tolerance 10 %.
const options = { name: 'k8s-hpa', target: 10, ...HPA_DEFAULTS };

describe('HPA replica calculation (replica_calculator.go)', () => {
  it.each([
    {
      case: 'within 10 % of target nothing moves',
      value: 10.9,
      ready: 10,
      pending: 0,
      basis: 10,
      replicas: 10,
    },
    {
      case: 'just outside it scales: ceil(10 x 1.11) = 12',
      value: 11.1,
      ready: 10,
      pending: 0,
      basis: 10,
      replicas: 12,
    },
    {
      case: 'below target it proposes fewer: ceil(10 x 0.5) = 5',
      value: 5,
      ready: 10,
      pending: 0,
      basis: 10,
      replicas: 5,
    },
    // 10 starting pods count as using 0: 150 / 20 pods = 7.5 per pod, below target: direction flips, hold.
    {
      case: 'starting pods count as idle on a scale-up, so 10 ready at 15 with 10 starting holds at 20',
      value: 15,
      ready: 10,
      pending: 10,
      basis: 10,
      replicas: 20,
    },
    // 300 / 15 pods = 20 per pod: ceil(2 x 15) = 30.
    {
      case: 'with starting pods counted idle, 10 ready at 30 and 5 starting ask for 30',
      value: 30,
      ready: 10,
      pending: 5,
      basis: 10,
      replicas: 30,
    },
    // 2 new ready pods have no metric yet: on a scale-down they count at the target:
    // (10 x 5 + 2 x 10) / 12 = 5.83 per pod -> ceil(12 x 0.583) = 7.
    {
      case: 'pods without a metric count at the target on a scale-down: 7, not 6',
      value: 5,
      ready: 12,
      pending: 0,
      basis: 10,
      replicas: 7,
    },
    // On a scale-up they count as 0: (10 x 20) / 12 = 16.7 -> ceil(12 x 1.67) = 20.
    {
      case: 'pods without a metric count as idle on a scale-up: 20, not 24',
      value: 20,
      ready: 12,
      pending: 0,
      basis: 10,
      replicas: 20,
    },
    // Kubernetes' TestReplicaCalcMissingMetricsNoChangeEq and kin: at exactly the target, pods
    // without a metric are left out (neither the scale-down nor the scale-up assumption applies),
    // so the ratio stays 1 and it holds; counting them as 0 would ask for ceil(12 x 100 / 12 / 10)
    // = 10 and scale down 17 %, or 40-50 % with more missing pods.
    {
      case: 'at exactly the target, pods without a metric are left out and it holds (12 stay 12)',
      value: 10,
      ready: 12,
      pending: 0,
      basis: 10,
      replicas: 12,
    },
    {
      case: 'at exactly the target with half the pods missing a metric it still holds (20 stay 20)',
      value: 10,
      ready: 20,
      pending: 0,
      basis: 10,
      replicas: 20,
    },
    {
      case: 'at exactly the target with pods still starting it holds too',
      value: 10,
      ready: 12,
      pending: 3,
      basis: 10,
      replicas: 15,
    },
  ])('$case', ({ value, ready, pending, basis, replicas }) => {
    expect(hpaReplicas(viewOf([value], ready, pending, basis), options)).toBe(replicas);
  });

  it('has no opinion without a metric', () => {
    expect(hpaReplicas(viewOf([], 4), options)).toBeNull();
    expect(hpaReplicas(viewOf([Number.NaN], 4), options)).toBeNull();
  });
});

describe('HPA behaviour defaults', () => {
  it.each([
    // ceil(2 x 100 / 10) = 20, limited to max(2 x 2, 2 + 4) = 6.
    {
      case: 'scale-up is limited to +4 pods when that beats +100 %: 2 -> 6',
      ready: 2,
      value: 100,
      desired: 6,
    },
    // 100 wanted, limited to max(2 x 10, 10 + 4) = 20.
    { case: 'and to +100 % when that beats +4: 10 -> 20', ready: 10, value: 100, desired: 20 },
    { case: 'a scale-up within the limit goes straight there: 10 -> 15', ready: 10, value: 15, desired: 15 },
  ])('$case', ({ ready, value, desired }) => {
    expect(k8sHpaPolicy(options, ready).decide(viewOf([value], ready), 1)).toBe(desired);
  });

  it('scales down only to the highest recommendation of the last five minutes', () => {
    const hpa = k8sHpaPolicy(options, 10);
    // The seeded window says 10 until minute -1; minute 0 recommends 10 too (within tolerance).
    expect(hpa.decide(viewOf([10], 10), 0)).toBe(10);
    // From minute 1 the metric halves: recommendation 5, but minute 0's 10 is in the window.
    for (const minute of [1, 2, 3, 4]) expect(hpa.decide(viewOf(repeat(5, minute + 1), 10), minute)).toBe(10);
    // At minute 5 minute 0 has left the 300 s window: 5.
    expect(hpa.decide(viewOf(repeat(5, 6), 10), 5)).toBe(5);
  });

  it('starts as if it had recommended the initial fleet, so a quiet first minute does not empty it', () => {
    const hpa = k8sHpaPolicy(options, 28);
    expect(hpa.decide(viewOf([1], 28), 0)).toBe(28);
    expect(hpa.decide(viewOf([1, 1], 28), 3)).toBe(28);
    expect(hpa.decide(viewOf([1, 1, 1], 28), 4)).toBe(3);
  });

  it('holds without a metric', () => {
    expect(k8sHpaPolicy(options, 7).decide(viewOf([], 7), 0)).toBe(7);
  });
});
