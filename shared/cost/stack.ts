/**
 * What the deployed stack runs, read from template.yaml as CloudFormation would deploy it with
 * the given parameters (template defaults for the rest): the schedules and the functions they
 * tick, each function's memory and architecture, the alarms and what each one reads, the
 * dashboards, the state machines, the audit records' lifetime, continuous backups, and whether
 * X-Ray tracing is on. `governor validate --cost` prices these; nothing here is a price.
 */
import { isObject, type JsonObject } from '../deploy/cfn-yaml.ts';
import { type Loose, resolved } from '../deploy/resolve.ts';

/** A month as AWS's pricing examples and calculator take it: 730 hours. */
export const HOURS_PER_MONTH = 730;
export const MINUTES_PER_MONTH = HOURS_PER_MONTH * 60;

export interface Schedule {
  id: string;
  /** The logical id of the function it invokes. */
  fn: string;
  expression: string;
  perMonth: number;
}

export interface LambdaFunction {
  id: string;
  memoryMb: number;
  arch: 'arm64' | 'x86_64';
}

/** An alarm: on a Metrics Insights query (priced per metric analyzed) or on listed metrics. */
export type Alarm =
  | { id: string; kind: 'metrics'; metrics: number }
  | { id: string; kind: 'insights'; metric: string; schema: string[] | null };

export interface StateMachine {
  id: string;
  definitionUri: string;
  /** Logging level ALL writes every state's events to CloudWatch Logs. */
  logsEveryState: boolean;
}

export interface StackFacts {
  schedules: Schedule[];
  functions: Record<string, LambdaFunction>;
  alarms: Alarm[];
  dashboards: number;
  stateMachines: StateMachine[];
  /** The state machine the evaluate function starts for a SageMaker change (SCALE_STATE_MACHINE_ARN). */
  scaleStateMachine: StateMachine | null;
  /** Days a decision record stays in the table (the evaluate function's AUDIT_TTL_DAYS). */
  auditTtlDays: number;
  pointInTimeRecovery: boolean;
  tracing: boolean;
  /** Days the functions' and state machines' log groups keep their events (the longest). */
  logRetentionDays: number;
}

const UNIT_MINUTES: Record<string, number> = { minute: 1, hour: 60, day: 1440 };

/** Runs a month of `rate(N unit)`; anything else is refused naming the schedule. */
export function runsPerMonth(expression: string, where: string): number {
  const m = /^rate\((\d+) (minute|hour|day)s?\)$/.exec(expression.trim());
  if (!m) throw new Error(`${where}: ScheduleExpression "${expression}" is not rate(N minutes|hours|days)`);
  return MINUTES_PER_MONTH / (Number(m[1]) * UNIT_MINUTES[m[2]!]!);
}

const ofType = (t: Loose, type: string): [string, Loose][] =>
  Object.entries(t.Resources as Loose).filter(([, r]) => r.Type === type);

function schedules(t: Loose): Schedule[] {
  const out: Schedule[] = [];
  for (const [id, r] of ofType(t, 'AWS::Scheduler::Schedule')) {
    if (r.Properties.State === 'DISABLED') continue;
    const arn = r.Properties.Target?.Arn;
    const fn = Array.isArray(arn?.['Fn::GetAtt']) ? String(arn['Fn::GetAtt'][0]) : null;
    if (!fn) throw new Error(`template: schedule ${id} does not name its target with !GetAtt Function.Arn`);
    const expression = String(r.Properties.ScheduleExpression);
    out.push({ id, fn, expression, perMonth: runsPerMonth(expression, `template: schedule ${id}`) });
  }
  return out;
}

function alarmOf(id: string, p: Loose): Alarm {
  const queries: Loose[] = Array.isArray(p.Metrics) ? p.Metrics : [];
  const insights = queries.find(
    (q) => typeof q.Expression === 'string' && /^\s*SELECT\b/i.test(q.Expression),
  );
  if (insights) {
    const m = /SELECT\s+\w+\((\w+)\)\s+FROM\s+(?:SCHEMA\(\s*\w+\s*((?:,\s*\w+\s*)*)\)|\w+)/i.exec(
      insights.Expression,
    );
    if (!m) throw new Error(`template: alarm ${id}: cannot read the query "${insights.Expression}"`);
    const schema =
      m[2] === undefined
        ? null
        : m[2]
            .split(',')
            .map((d) => d.trim())
            .filter(Boolean)
            .sort();
    return { id, kind: 'insights', metric: m[1]!, schema: m[0].includes('SCHEMA') ? (schema ?? []) : null };
  }
  // A metric-math alarm is billed per metric it lists; a plain one reads one metric.
  const listed = queries.filter((q) => q.MetricStat !== undefined).length;
  return { id, kind: 'metrics', metrics: Math.max(1, listed) };
}

export function stackFacts(template: JsonObject, parameters: Record<string, string> = {}): StackFacts {
  const t = resolved(template, parameters);
  const functions: Record<string, LambdaFunction> = {};
  for (const [id, r] of ofType(t, 'AWS::Serverless::Function')) {
    const arch = r.Properties.Architectures?.[0] === 'x86_64' ? 'x86_64' : 'arm64';
    functions[id] = { id, memoryMb: Number(r.Properties.MemorySize ?? 128), arch };
  }
  const evaluate = ofType(t, 'AWS::Serverless::Function').find(
    ([, r]) => r.Properties.Environment?.Variables?.AUDIT_TTL_DAYS !== undefined,
  );
  const scaleRef = evaluate?.[1].Properties.Environment.Variables.SCALE_STATE_MACHINE_ARN?.Ref;
  const machines: StateMachine[] = ofType(t, 'AWS::Serverless::StateMachine').map(([id, r]) => ({
    id,
    definitionUri: String(r.Properties.DefinitionUri),
    logsEveryState: r.Properties.Logging?.Level === 'ALL',
  }));
  const table = ofType(t, 'AWS::DynamoDB::Table')[0]?.[1];
  const tracing = Object.values(t.Resources as Loose).some(
    (r) => r.Type === 'AWS::Serverless::Function' && r.Properties.Tracing === 'Active',
  );
  return {
    schedules: schedules(t),
    functions,
    alarms: ofType(t, 'AWS::CloudWatch::Alarm').map(([id, r]) => alarmOf(id, r.Properties)),
    dashboards: ofType(t, 'AWS::CloudWatch::Dashboard').length,
    stateMachines: machines,
    scaleStateMachine: machines.find((m) => m.id === scaleRef) ?? null,
    auditTtlDays: Number(evaluate?.[1].Properties.Environment.Variables.AUDIT_TTL_DAYS ?? 30),
    pointInTimeRecovery: isObject(table?.Properties?.PointInTimeRecoverySpecification)
      ? table.Properties.PointInTimeRecoverySpecification.PointInTimeRecoveryEnabled === true
      : false,
    tracing,
    logRetentionDays: ofType(t, 'AWS::Logs::LogGroup').reduce(
      (days, [, r]) => Math.max(days, Number(r.Properties.RetentionInDays ?? 0)),
      1,
    ),
  };
}
