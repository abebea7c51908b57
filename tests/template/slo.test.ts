/**
 * The error budget in template.yaml: the alarm and the dashboard read exactly the metrics, units
 * and dimensions the evaluate function emits for a target with an SLO control
 * (functions/evaluate/telemetry.ts, budgetMetrics and burnRates).
 */
import { describe, expect, it } from 'vitest';
import { budgetMetrics, burnRates } from '#functions/evaluate/telemetry.ts';
import type { DecisionRecord } from '#shared/apply/records.ts';
import { type Loose, props } from './load.ts';

/** A record decided under the control, with every figure known. */
const record = {
  targetId: 'chat-llm',
  decision: {
    headroom: { factor: 0.91, reason: 'BudgetBurning', fastBurn: 3.3, slowBurn: 1.2, remaining: 0.8 },
  },
  inputs: { slo: { attainment: 0.996, atRisk: true } },
} as unknown as DecisionRecord;

const body = () => String((props('Dashboard').DashboardBody as Loose)['Fn::Sub']);

describe('the error budget in the template', () => {
  it('alarms when a target’s budget is at risk in three 5-minute periods in a row, on the 0/1 metric the evaluator emits per target', () => {
    expect(budgetMetrics(record)).toContainEqual(['ErrorBudgetAtRisk', 'Count', 1]);
    expect(props('ErrorBudgetAtRiskAlarm')).toMatchObject({
      Metrics: [{ Expression: 'SELECT MAX(ErrorBudgetAtRisk) FROM SCHEMA(Governor, TargetId)', Period: 300 }],
      EvaluationPeriods: 3,
      DatapointsToAlarm: 3,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
      AlarmActions: [{ Ref: 'AlarmTopic' }],
    });
    expect(String(props('ErrorBudgetAtRiskAlarm').AlarmDescription)).toMatch(
      /error budget will be gone before its SLO window ends/,
    );
  });

  it('draws every [TargetId] budget metric the evaluator emits, and the burn rate by window', () => {
    const names = budgetMetrics(record).map(([name]) => name);
    expect(names).toEqual(['SloAttainment', 'ErrorBudgetRemaining', 'HeadroomFactor', 'ErrorBudgetAtRisk']);
    for (const name of names)
      expect(body()).toMatch(
        new RegExp(`SELECT (MIN|MAX)\\(${name}\\) FROM SCHEMA\\(Governor, TargetId\\) GROUP BY TargetId`),
      );
    expect(burnRates(record)).toEqual([
      ['fast', 3.3],
      ['slow', 1.2],
    ]);
    expect(body()).toContain(
      'SELECT MAX(BurnRate) FROM SCHEMA(Governor, TargetId, Window) GROUP BY TargetId, Window',
    );
  });

  it('shares in percent: 0.996 attainment is 99.6, 0.8 of the budget left is 80', () => {
    expect(budgetMetrics(record)).toEqual([
      ['SloAttainment', 'Percent', expect.closeTo(99.6, 9)],
      ['ErrorBudgetRemaining', 'Percent', expect.closeTo(80, 9)],
      ['HeadroomFactor', 'None', 0.91],
      ['ErrorBudgetAtRisk', 'Count', 1],
    ]);
  });

  it('emits none of them for a record without the control', () => {
    const plain = { ...record, inputs: {} } as unknown as DecisionRecord;
    expect(budgetMetrics(plain)).toEqual([]);
    expect(burnRates(plain)).toEqual([]);
  });
});
