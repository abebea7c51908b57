/**
 * A two-region world for scripted failover races (issue 18): the failover health evaluation
 * (functions/failover/run.ts, its real planner and reconciliation) with in-memory ports, and every
 * execution it starts run through statemachines/failover.asl.json on aws-local-stepfunctions
 * (./failover-harness.ts). The routing is Route 53 weights the act fake writes and the evaluation
 * reads back; the group's item is the one the state machine's generation check reads.
 *
 * Faults are scripted: StartExecution failing (with or without the execution created), routing
 * calls throttled, executions held mid-flight (`hold`), the kill switch flipped between decision
 * and execution. Time is a parameter: evaluations a minute apart, no sleeps.
 */
import { readFileSync } from 'node:fs';
import { parseFailoverConfig } from '#functions/failover/config.ts';
import type { FailoverPorts } from '#functions/failover/ports.ts';
import { createFailoverEvaluator, type FailoverReport } from '#functions/failover/run.ts';
import { DRIFT_ALARM_MINUTES } from '#shared/failover/reconcile.ts';
import type { MetricQuery } from '#shared/signals/queries.ts';
import { chatGroup, chatTargets } from '../functions/failover-group.ts';
import { fakes, newest, type RunResult, runFailover, Script } from './failover-harness.ts';

const TICK = JSON.parse(readFileSync('events/failover-tick.json', 'utf8')) as Record<string, unknown>;
export const MIN = 60_000;
export const T0 = Date.parse('2025-06-02T12:00:00Z');
const ARN = 'arn:aws:states:us-west-2:123456789012:stateMachine:governor-failover';
const SET_IDS: Record<string, string> = { 'us-east-1': 'east', 'us-west-2': 'west' };

const POLICY = {
  version: 1,
  targets: chatTargets(),
  failover: {
    groups: [
      {
        // One breaching minute fails a region, two healthy ones recover it: races in few minutes.
        ...chatGroup({ failPeriods: 1, failWindowPeriods: 1, recoverPeriods: 2, p95LatencyMs: 1500 }),
        shift: { stepsPercent: [10, 50, 100], checkMinutes: 1, prescaleTimeoutMinutes: 2, dwellMinutes: 1 },
      },
    ],
  },
};

type Health = 'ok' | 'failing';
interface Execution {
  input: Record<string, unknown>;
  result: RunResult | null;
  /** Started but not run yet: DescribeExecution says RUNNING. */
  running: Promise<RunResult> | null;
}

const awsError = (name: string, message: string) => Object.assign(new Error(message), { name });

export class World {
  private readonly healthPolicy: Record<string, number>;
  constructor(healthPolicy: Record<string, number> = {}) {
    this.healthPolicy = healthPolicy;
  }

  /** Route 53 weights by set identifier: the routing as it is. */
  readonly weights: Record<string, number> = { east: 100, west: 0 };
  readonly health: Record<string, Health> = { 'us-east-1': 'ok', 'us-west-2': 'ok' };
  kill = 'off';
  item: Record<string, unknown> | undefined;
  readonly executions = new Map<string, Execution>();
  readonly drift: number[] = [];
  readonly records: Record<string, unknown>[] = [];
  readonly reports: FailoverReport[] = [];
  /** The next StartExecution calls that fail with a 5xx: 'lost' creates nothing, 'ambiguous' starts it anyway. */
  startFaults: ('lost' | 'ambiguous' | null)[] = [];
  /** The next act route calls that fail (throttled after the SDK's retries). */
  routeFaults = 0;
  /** While set, started executions wait until `release()` (a slow execution, mid-flight). */
  holding = false;
  /** Called before each route op of an execution: a race can act between its check and its write. */
  beforeRoute: ((input: Record<string, unknown>) => Promise<void>) | null = null;
  /** Called before each generation check of an execution, with its decision id. */
  beforeGeneration: ((decisionId: string) => Promise<void>) | null = null;
  /** Called before each health check of an execution; `true` makes that check regress. */
  beforeCheck: (() => Promise<boolean>) | null = null;
  private tick = 0;
  private now = T0;

  private readonly evaluate = createFailoverEvaluator({
    config: parseFailoverConfig({
      POLICY_PARAMETER_NAME: '/governor/policy',
      STATE_TABLE_NAME: 'standby-state',
      PEER_STATE_TABLE_NAME: 'primary-state',
      KILL_SWITCH_PARAMETER_NAME: '/governor/kill-switch',
      FAILOVER_STATE_MACHINE_ARN: ARN,
      GOVERNOR_MODE: 'active',
      AWS_REGION: 'us-west-2',
    }),
    ports: this.ports(),
    telemetry: {
      info: () => {},
      error: () => {},
      decision: (r) => this.records.push(r),
      drift: (_, minutes) => this.drift.push(minutes),
    },
    random: () => 0.5,
  });

  private policy() {
    const [group] = POLICY.failover.groups;
    const health = { ...group!.health, ...this.healthPolicy };
    return { ...POLICY, failover: { groups: [{ ...group, health }] } };
  }

  /** The routing by region, and the planner's intent. */
  routing(): Record<string, number> {
    return { 'us-east-1': this.weights.east!, 'us-west-2': this.weights.west! };
  }
  intent(): Record<string, number> {
    return (this.item?.state as { weights: Record<string, number> } | undefined)?.weights ?? {};
  }
  phase(): string {
    return (this.item?.state as { phase: string } | undefined)?.phase ?? 'none';
  }
  converged(): boolean {
    const i = this.intent();
    return Object.entries(this.routing()).every(([r, w]) => i[r] === w);
  }
  /** The RoutingDrift alarm (template.yaml): a datapoint at DRIFT_ALARM_MINUTES or more. */
  driftAlarm(): boolean {
    return this.drift.some((m) => m >= DRIFT_ALARM_MINUTES);
  }
  /** The failover-failures alarm: any execution failed. */
  failures(): number {
    return [...this.executions.values()].filter((e) => e.result?.status === 'FAILED').length;
  }

  /** One evaluation at minute `k` from T0, then the executions it started (unless held). */
  async at(k: number): Promise<FailoverReport | null> {
    const now = T0 + k * MIN + 5_000;
    this.now = now;
    const event = { ...TICK, id: `tick-${this.tick++}`, time: new Date(now - 5_000).toISOString() };
    let report: FailoverReport | null = null;
    try {
      report = await this.evaluate(event, now, { account: '123456789012' });
      this.reports.push(report);
    } catch {
      // The evaluation throws when the state machine did not start (Lambda's retry is a duplicate tick).
    }
    if (!this.holding) await this.settle();
    return report;
  }

  /** Runs every started execution not yet run (one already running is left to finish on its own). */
  async settle(): Promise<void> {
    for (const e of this.executions.values()) if (e.running === null) await this.run(e);
  }

  /** The next evaluation, a minute after the last. */
  minute = 0;
  next(): Promise<FailoverReport | null> {
    return this.at(this.minute++);
  }

  /** Evaluations until `done` holds after one (at most `max`); true when it did. */
  async until(done: () => boolean, max = 12): Promise<boolean> {
    for (let i = 0; i < max; i++) {
      await this.next();
      if (done()) return true;
    }
    return false;
  }

  run(e: Execution): Promise<RunResult> {
    e.running ??= runFailover(e.input, this.fakes()).then((r) => {
      e.result = r;
      return r;
    });
    return e.running;
  }

  lastStarted(): Execution {
    return [...this.executions.values()].at(-1)!;
  }

  private fakes() {
    return fakes({
      getParameters: new Script(() => ({
        Parameters: [{ Name: '/governor/kill-switch', Value: this.kill }],
        InvalidParameters: [],
      })),
      getItem: new Script(async (_task, execution) => {
        if (this.beforeGeneration) await this.beforeGeneration(String(execution.decisionId));
        return newest((this.item?.generation as string | undefined) ?? null);
      }),
      route: new Script(async (task) => {
        const p = (task as { Payload: { action: { weights: Record<string, number> } } }).Payload;
        if (this.beforeRoute) await this.beforeRoute(p as unknown as Record<string, unknown>);
        if (this.routeFaults > 0) {
          this.routeFaults--;
          throw awsError(
            'RoutingCallError',
            'route53:ChangeResourceRecordSets was still throttled (Throttling)',
          );
        }
        for (const [region, w] of Object.entries(p.action.weights)) this.weights[SET_IDS[region]!] = w;
        return { Payload: { detail: 'weights set' }, StatusCode: 200 };
      }),
      check: new Script(async (task) => {
        const regions = (task as { Payload: { check: { regions: string[] } } }).Payload.check.regions;
        const forced = this.beforeCheck ? await this.beforeCheck() : false;
        const bad = forced ? regions : regions.filter((r) => this.health[r] === 'failing');
        return {
          Payload: {
            regressed: bad.length > 0,
            detail: bad.length ? `${bad.join(', ')}: errorRatePercent 30 > 5` : 'ok',
          },
          StatusCode: 200,
        };
      }),
    });
  }

  private ports(): FailoverPorts {
    return {
      parameters: {
        get: async (name) => (name === '/governor/policy' ? JSON.stringify(this.policy()) : this.kill),
        under: async () => [],
      },
      metrics: {
        getMetricData: async (region, queries, window) =>
          (queries as readonly (MetricQuery & { series?: string })[]).map((q) => ({
            Id: q.id,
            Timestamps: [new Date(window.end - MIN)],
            Values: [
              q.series === 'invocations'
                ? 1000
                : q.series === 'errors5xx'
                  ? this.health[region] === 'failing'
                    ? 300
                    : 1
                  : q.series === 'p95'
                    ? 400_000
                    : 0,
            ],
            StatusCode: 'Complete',
          })),
      },
      sageMaker: {
        variantCapacity: async () => ({ desired: 20, ready: 20, status: 'InService' }),
        componentCapacity: async () => ({ desired: 20, ready: 20, status: 'InService' }),
      } as unknown as FailoverPorts['sageMaker'],
      groups: { describeGroups: async () => new Map() } as unknown as FailoverPorts['groups'],
      store: {
        read: async () => this.item,
        write: async (_, expected, item) => {
          const version = typeof this.item?.version === 'number' ? this.item.version : null;
          if (version !== expected) return false;
          this.item = { ...item, version: (expected ?? 0) + 1 };
          return true;
        },
        putRecord: async () => {},
      },
      heartbeats: { lastBeat: async () => this.now - 30_000 },
      executions: {
        start: async (_, name, input) => {
          const fault = this.startFaults.shift();
          if (fault !== 'lost')
            this.executions.set(name, {
              input: input as Record<string, unknown>,
              result: null,
              running: null,
            });
          if (fault) throw awsError('InternalServerError', 'Step Functions: internal error (500)');
          return { executionArn: `${ARN}:${name}`, duplicate: false };
        },
        describe: async (_, name) => {
          const e = this.executions.get(name);
          if (!e) return { status: 'lost', outcome: null };
          if (e.result === null) return { status: 'running', outcome: null };
          return e.result.status === 'FAILED'
            ? { status: 'failed', outcome: null }
            : { status: 'succeeded', outcome: e.result.outcome };
        },
      },
      routing: {
        read: async (_, regions) => ({
          kind: 'route53-weighted',
          weights: Object.fromEntries(regions.map((r) => [r, this.weights[SET_IDS[r]!]!])),
        }),
      },
    };
  }
}

/** West's intended weight: 0 before the move, 10, 50, 100 at its steps. */
export const west = (w: World): number => w.intent()['us-west-2'] ?? 0;

/** From steady, east failing: evaluations until the planner intends `westWeight` (true when it did). */
export async function failOverTo(w: World, westWeight: number): Promise<boolean> {
  if (w.item === undefined) await w.until(() => false, 2);
  w.health['us-east-1'] = 'failing';
  return w.until(() => west(w) === westWeight);
}
