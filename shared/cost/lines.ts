/**
 * The pieces every part of the month shares: a cost line and what it is computed from, the
 * month's days, and the two counts several services bill by (the forecast and mix functions'
 * target-runs, the scale-target executions).
 */
import type { TargetPolicy } from '../policy/schema.ts';
import type { Assumptions } from './assumptions.ts';
import { PRICES, type PriceName } from './prices.ts';
import { HOURS_PER_MONTH, type StackFacts } from './stack.ts';
import { type ExecutionPath, transitionsPerChange } from './transitions.ts';

export interface CostLine {
  service: 'Lambda' | 'EventBridge Scheduler' | 'Step Functions' | 'DynamoDB' | 'CloudWatch' | 'X-Ray';
  item: string;
  quantity: number;
  price: PriceName;
  usd: number;
  /** Only with the template's Tracing=Active. */
  whenTracing?: true;
}

export interface CostInputs {
  targets: readonly TargetPolicy[];
  stack: StackFacts;
  /** The scale-target state machine's successful path for each SageMaker target kind. */
  scalePaths: Partial<Record<TargetPolicy['kind'], ExecutionPath>>;
  assumptions: Assumptions;
}

export const DAYS_PER_MONTH = HOURS_PER_MONTH / 24;
export const GB = 1024 ** 3;
export const line = (
  service: CostLine['service'],
  item: string,
  quantity: number,
  price: PriceName,
  whenTracing?: true,
): CostLine => ({
  service,
  item,
  quantity,
  price,
  usd: quantity * PRICES[price].usd,
  ...(whenTracing ? { whenTracing } : {}),
});

/** Target-runs a month of the forecast and mix functions: each run plans its targets of that kind. */
export function plannedRuns({ targets, stack }: CostInputs): number {
  const planned = (fn: string) =>
    targets.filter((t) =>
      fn === 'MixFunction' ? t.capacityMix : fn === 'ForecastFunction' && t.forecast?.enabled,
    ).length;
  return stack.schedules.reduce((n, s) => n + s.perMonth * planned(s.fn), 0);
}

/** Executions and transitions a month of the scale-target state machine. */
export function executions({ targets, scalePaths, assumptions: a }: CostInputs): {
  executions: number;
  transitions: number;
  dynamoWrites: number;
  dynamoReads: number;
} {
  const total = { executions: 0, transitions: 0, dynamoWrites: 0, dynamoReads: 0 };
  for (const t of targets) {
    const path = scalePaths[t.kind];
    if (!path) continue; // an Auto Scaling group is set with SetDesiredCapacity, no execution
    const n = a.actionsPerDay * DAYS_PER_MONTH;
    total.executions += n;
    total.transitions += n * transitionsPerChange(path, a.changeSeconds);
    total.dynamoWrites += n * path.dynamoWrites;
    total.dynamoReads += n * path.dynamoReads;
  }
  return total;
}
