/** Shared by the evaluate tests: configuration, fixtures and a telemetry that captures. No mocks here. */
import { readFileSync } from 'node:fs';
import type { ControlMetric, Telemetry } from '#functions/evaluate/telemetry.ts';
import type { DecisionRecord } from '#shared/apply/records.ts';
import { type Config, parseConfig } from '#shared/invocation/config.ts';

export const CONFIG: Config = parseConfig({
  POLICY_PARAMETER_NAME: '/governor/policy',
  STATE_TABLE_NAME: 'governor-state',
  SCALE_STATE_MACHINE_ARN: 'arn:aws:states:us-east-1:123456789012:stateMachine:governor-scale-target',
  KILL_SWITCH_PARAMETER_NAME: '/governor/kill-switch',
  GOVERNOR_MODE: 'active',
  AWS_REGION: 'us-east-1',
});

export const EXAMPLE_POLICY = readFileSync('examples/policy.yaml', 'utf8');
/**
 * The replays' own policy (events/replay/chat-llm.yaml): the example as it was when they were
 * written, frozen, so retuning examples/policy.yaml does not move their numbers.
 */
export const REPLAY_POLICY = readFileSync('events/replay/chat-llm.yaml', 'utf8');
export const eventFile = (name: string): unknown => JSON.parse(readFileSync(`events/${name}.json`, 'utf8'));

export interface CapturedTelemetry extends Telemetry {
  lines: { level: string; message: string }[];
  decisions: DecisionRecord[];
  policyFailures: string[][];
  successes: number;
  /** The control-plane counters added up (AuditWriteFailures, DeadlineSkips, ForeignEvents). */
  counts: Partial<Record<ControlMetric, number>>;
}

export function captureTelemetry(): CapturedTelemetry {
  const t: CapturedTelemetry = {
    lines: [],
    decisions: [],
    policyFailures: [],
    successes: 0,
    counts: {},
    info: (message) => t.lines.push({ level: 'info', message }),
    warn: (message) => t.lines.push({ level: 'warn', message }),
    error: (message) => t.lines.push({ level: 'error', message }),
    decision: (record) => t.decisions.push(record),
    policyLoadFailure: (problems) => t.policyFailures.push(problems),
    invocationSucceeded: () => {
      t.successes++;
    },
    count: (metric, value) => {
      t.counts[metric] = (t.counts[metric] ?? 0) + value;
    },
  };
  return t;
}
