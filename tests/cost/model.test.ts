/**
 * The month's arithmetic (shared/cost/model.ts) on a stack small enough to work by hand: one
 * minute schedule, one 1 GB function, one target with one signal, no scale actions.
 */
import { describe, expect, it } from 'vitest';
import type { Assumptions } from '#shared/cost/assumptions.ts';
import { type CostInputs, monthlyCost } from '#shared/cost/model.ts';
import type { StackFacts } from '#shared/cost/stack.ts';
import { grown } from '#shared/cost/table.ts';
import { TargetSchema as TargetPolicySchema } from '#shared/policy/schema.ts';

const target = TargetPolicySchema.parse({
  id: 'one',
  kind: 'sagemaker-variant',
  region: 'us-east-1',
  endpointName: 'e',
  scaling: { minCapacity: 1, maxCapacity: 4 },
  signals: [{ metric: 'invocationsPerInstance', target: 100 }],
});

const stack: StackFacts = {
  schedules: [{ id: 'Tick', fn: 'EvaluateFunction', expression: 'rate(1 minute)', perMonth: 43_800 }],
  functions: { EvaluateFunction: { id: 'EvaluateFunction', memoryMb: 1024, arch: 'arm64' } },
  alarms: [
    { id: 'Errors', kind: 'metrics', metrics: 1 },
    { id: 'AtRisk', kind: 'insights', metric: 'ErrorBudgetAtRisk', schema: ['TargetId'] },
  ],
  dashboards: 1,
  stateMachines: [],
  scaleStateMachine: null,
  auditTtlDays: 30,
  pointInTimeRecovery: false,
  tracing: false,
  logRetentionDays: 30,
};

const assumptions: Assumptions = {
  evaluateMs: { base: 100, perTarget: 0 },
  forecastMs: { base: 0, perTarget: 0 },
  mixMs: { base: 0, perTarget: 0 },
  otherMs: 0,
  actionsPerDay: 0,
  changeSeconds: 0,
  recordBytes: 1024,
  stateBytes: 1000,
  ledgerBytesPerHour: 0,
  reasonsPerHour: 1,
  logBytesPerEvaluation: 1024,
  logBytesPerInvocation: 0,
  logBytesPerPlannedTarget: 0,
  logBytesPerTransition: 0,
};

const inputs: CostInputs = { targets: [target], stack, scalePaths: {}, assumptions };
const usdOf = (item: string) => monthlyCost(inputs).lines.find((l) => l.item.startsWith(item))!.usd;

describe('one target, worked by hand', () => {
  it.each([
    // 43,800 requests x $0.20 per 1M.
    { item: 'EvaluateFunction requests', usd: 0.00876 },
    // 43,800 x 1 GB x 0.1 s = 4,380 GB-s x $0.0000133334.
    { item: 'EvaluateFunction duration', usd: 0.0584 },
    // Each tick: the claim on a 1,000-byte item (1 unit) and a 1 KB record (1): 87,600 x $0.625 per 1M.
    { item: 'writes', usd: 0.05475 },
    // Each tick one strongly consistent read of the state item: 43,800 x $0.125 per 1M.
    { item: 'reads', usd: 0.005475 },
    // 30 days of records: 43,200 x 1,024 bytes + the 1,000-byte state item = 0.0412 GB x $0.25.
    { item: 'storage', usd: 0.0103 },
    // One signal and Invocations, its readings' basis: 2 metrics a tick, 87,600 x $0.01 per 1,000.
    { item: 'GetMetricData', usd: 0.876 },
    // 6 per-target series, 1 reason series, 2 [service] series: 9 x $0.30.
    { item: 'custom metrics', usd: 2.7 },
    { item: 'alarms: 1 on 1', usd: 0.1 },
    // No SLO control, so no ErrorBudgetAtRisk series: the query analyzes at least one, $0.02.
    { item: 'alarms: 1 Metrics Insights', usd: 0.02 },
    { item: 'dashboard', usd: 3 },
    // 43,800 x 1,024 bytes = 0.04177 GB x $0.50.
    { item: 'Logs ingested', usd: 0.020885 },
    // Kept 30 of 30.42 days: 0.0412 GB-month x $0.03.
    { item: 'Logs stored', usd: 0.001236 },
    // One trace per invocation: 43,800 x $5 per 1M, only with Tracing=Active.
    { item: 'traces', usd: 0.219 },
  ])('$item: $usd USD', ({ item, usd }) => {
    expect(usdOf(item)).toBeCloseTo(usd, 5);
  });

  it('adds up to 6.86 USD a month, 7.07 with X-Ray, and nothing for Step Functions without actions', () => {
    const r = monthlyCost(inputs);
    expect(r.monthlyUsd).toBeCloseTo(6.85581, 4);
    expect(r.monthlyUsdWithTracing).toBeCloseTo(6.85581 + 0.219, 4);
    expect(r.lines.find((l) => l.service === 'Step Functions')!.usd).toBe(0);
  });
});

describe('scale actions', () => {
  it('bill their transitions and their DynamoDB items for SageMaker targets only', () => {
    const path = {
      states: [],
      transitions: 10,
      poll: { waitSeconds: 30, states: 2 },
      dynamoWrites: 1,
      dynamoReads: 1,
    };
    const asg = TargetPolicySchema.parse({
      id: 'group',
      kind: 'ec2-asg',
      region: 'us-east-1',
      autoScalingGroupName: 'g',
      scaling: { minCapacity: 1, maxCapacity: 4 },
      signals: [{ metric: 'gpuUtilization', target: 60 }],
    });
    const r = monthlyCost({
      ...inputs,
      targets: [target, asg],
      scalePaths: { 'sagemaker-variant': path },
      assumptions: { ...assumptions, actionsPerDay: 2, changeSeconds: 60 },
    });
    // 2 a day x 30.42 days = 60.83 executions x (10 + 2 polls x 2) = 851.7 transitions x $0.025 per 1,000.
    expect(r.lines.find((l) => l.service === 'Step Functions')!.quantity).toBeCloseTo(851.67, 2);
  });
});

describe('growing a policy', () => {
  it('repeats its targets in order with distinct ids and endpoints', () => {
    const three = grown([target], 3);
    expect(three.map((t) => t.id)).toEqual(['one', 'one-1', 'one-2']);
    expect(three.map((t) => (t.kind === 'sagemaker-variant' ? t.endpointName : ''))).toEqual([
      'e',
      'e-1',
      'e-2',
    ]);
  });

  it('bills custom metrics past 10,000 at the second tier', () => {
    const r = monthlyCost({ ...inputs, targets: grown([target], 1200) });
    // 1,200 x 7 + 2 = 8,402: all first tier. 2,000 targets: 14,002, 4,002 of them at $0.10.
    expect(r.lines.some((l) => l.price === 'customMetricMonthNext')).toBe(false);
    const big = monthlyCost({ ...inputs, targets: grown([target], 2000) });
    expect(big.lines.find((l) => l.price === 'customMetricMonthNext')!.quantity).toBe(4002);
  });
});
