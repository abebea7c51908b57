/** What the cost reads from template.yaml (shared/cost/stack.ts), under the template's parameters. */
import { describe, expect, it } from 'vitest';
import { runsPerMonth, stackFacts } from '#shared/cost/stack.ts';
import { template } from '../template/load.ts';

describe('the stack as deployed with the defaults', () => {
  const facts = stackFacts(template);

  it('ticks evaluate every minute, forecast every hour, mix every 5 minutes and commitments every hour: 730 hours a month', () => {
    expect(facts.schedules.map((s) => [s.fn, s.perMonth])).toEqual([
      ['EvaluateFunction', 43_800],
      ['ForecastFunction', 730],
      ['MixFunction', 8_760],
      ['CommitmentsFunction', 730],
    ]);
  });

  it('reads memory, architecture, alarms, the dashboard, the scale state machine and the record lifetime', () => {
    expect(facts.functions.EvaluateFunction).toEqual({
      id: 'EvaluateFunction',
      memoryMb: 512,
      arch: 'arm64',
    });
    expect(facts.dashboards).toBe(1);
    expect(facts.scaleStateMachine?.definitionUri).toBe('statemachines/scale-target.asl.json');
    expect(facts.scaleStateMachine?.logsEveryState).toBe(true);
    expect(facts.auditTtlDays).toBe(30);
    expect(facts.pointInTimeRecovery).toBe(true);
    expect(facts.tracing).toBe(false);
    expect(facts.alarms.find((a) => a.id === 'ErrorBudgetAtRiskAlarm')).toEqual({
      id: 'ErrorBudgetAtRiskAlarm',
      kind: 'insights',
      metric: 'ErrorBudgetAtRisk',
      schema: ['TargetId'],
    });
    expect(facts.alarms.find((a) => a.id === 'ScaleTargetFailuresAlarm')).toEqual({
      id: 'ScaleTargetFailuresAlarm',
      kind: 'metrics',
      metrics: 3,
    });
  });
});

describe('parameters change what runs', () => {
  it.each([
    {
      case: '3 shards tick evaluate three times a minute',
      params: { EvaluateShards: '3' },
      evaluate: 3,
      tracing: false,
    },
    { case: 'Tracing=Active turns X-Ray on', params: { Tracing: 'Active' }, evaluate: 1, tracing: true },
  ])('$case', ({ params, evaluate, tracing }) => {
    const facts = stackFacts(template, params as unknown as Record<string, string>);
    expect(facts.schedules.filter((s) => s.fn === 'EvaluateFunction')).toHaveLength(evaluate);
    expect(facts.tracing).toBe(tracing);
  });

  it('a standby stack adds the failover health check every minute', () => {
    const facts = stackFacts(template, { FailoverRegionRole: 'standby', FailoverPeerStateTableName: 'peer' });
    expect(facts.schedules.find((s) => s.fn === 'FailoverFunction')?.perMonth).toBe(43_800);
  });
});

describe('schedule expressions', () => {
  it.each([
    { expression: 'rate(1 minute)', runs: 43_800 },
    { expression: 'rate(5 minutes)', runs: 8_760 },
    { expression: 'rate(2 hours)', runs: 365 },
    { expression: 'rate(1 day)', runs: 30.416666666666668 },
  ])('$expression runs $runs times a month', ({ expression, runs }) => {
    expect(runsPerMonth(expression, 'x')).toBeCloseTo(runs, 9);
  });

  it('refuses a cron expression, naming the schedule', () => {
    expect(() => runsPerMonth('cron(0 * * * ? *)', 'template: schedule S')).toThrow(
      'template: schedule S: ScheduleExpression "cron(0 * * * ? *)" is not rate(N minutes|hours|days)',
    );
  });
});
