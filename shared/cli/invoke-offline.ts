/**
 * `governor invoke evaluate --metrics FILE`: the evaluate handler over recorded readings and
 * capacity, with no emulator, no network and no credentials. Every port the handler uses
 * (functions/evaluate/ports.ts) is an in-memory fake here: CloudWatch answers each signal with
 * the recorded value as the newest complete minute; SageMaker and Auto Scaling answer the
 * recorded capacity and keep a change; the state table starts empty and keeps version checks;
 * the state machine is never started (its start is noted); no other scaler is found.
 *
 * The file (events/invoke/chat-llm.json is an example):
 *   { "killSwitch": "off",                       // optional, "on" or "off" (default)
 *     "targets": { "chat-llm": {
 *         "capacity": { "desired": 2, "ready": 2, "status": "InService" },
 *         "readings": { "invocationsPerInstance": 190, "p95LatencyMs": 2600 },  // signal units
 *         "activation": 12 } } }                 // optional: the wake-from-zero total
 */
import * as z from 'zod';
import type { Ports } from '../../functions/evaluate/ports.ts';
import type { GroupReading } from '../aws/autoscaling.ts';
import type { Capacity } from '../aws/capacity.ts';
import type { StatePort } from '../aws/dynamodb.ts';
import { METRIC_NAMES, type PolicyFile, type TargetPolicy } from '../policy/schema.ts';
import type { MetricQuery, QueryWindow } from '../signals/queries.ts';
import type { RawMetricResult } from '../signals/readings.ts';
import { UsageError } from './io.ts';
import { didYouMean } from './suggest.ts';

const RecordedTarget = z.strictObject({
  capacity: z.strictObject({
    desired: z.int().min(0),
    ready: z.int().min(0),
    status: z.string().min(1).default('InService'),
  }),
  /** The newest minute of each signal, in the signal's unit (p95LatencyMs in ms). */
  readings: z.record(z.string(), z.number()).default({}),
  activation: z.number().min(0).optional(),
});

const RecordedFile = z.strictObject({
  note: z.string().optional(),
  killSwitch: z.enum(['on', 'off']).default('off'),
  targets: z.record(z.string(), RecordedTarget),
});

export type Recorded = z.infer<typeof RecordedFile>;

const pathOf = (path: readonly PropertyKey[]) =>
  path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i === 0 ? '' : '.'}${String(p)}`)).join('');

/** Checks one recorded target against its policy target: every reading is one of its signals. */
function readingProblem(id: string, rec: Recorded['targets'][string], target: TargetPolicy): string | null {
  const signals = target.signals.map((s) => s.metric);
  for (const metric of Object.keys(rec.readings)) {
    if (signals.includes(metric as (typeof signals)[number])) continue;
    const known = (METRIC_NAMES as readonly string[]).includes(metric);
    const guess = didYouMean(metric, known ? signals : METRIC_NAMES);
    const why = known ? `${id} has no ${metric} signal in the policy` : `${metric} is not a signal name`;
    return `targets.${id}.readings.${metric}: ${why}${guess ? `: did you mean ${guess}?` : ''} (its signals are ${signals.join(', ')})`;
  }
  return null;
}

/**
 * The recorded file as the handler will read it, or a usage error naming the field: every
 * recorded target is in the policy, and every reading is one of its signals.
 */
export function parseRecorded(text: string, file: string, policy: PolicyFile): Recorded {
  const at = `--metrics ${file}`;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${at} is not JSON: ${(error as Error).message}`);
  }
  const parsed = RecordedFile.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new UsageError(`${at}: ${pathOf(issue.path) || 'the file'}: ${issue.message}`);
  }
  const ids = policy.targets.map((t) => t.id);
  for (const [id, rec] of Object.entries(parsed.data.targets)) {
    const target = policy.targets.find((t) => t.id === id);
    if (!target) {
      const guess = didYouMean(id, ids);
      throw new UsageError(
        `${at}: targets.${id} is not a target of the policy${guess ? `: did you mean ${guess}?` : ''} (its targets are ${ids.join(', ')})`,
      );
    }
    const problem = readingProblem(id, rec, target);
    if (problem) throw new UsageError(`${at}: ${problem}`);
  }
  return parsed.data;
}

/** Every target the event evaluates needs its recorded capacity: a usage error naming the missing ones. */
export function requireRecorded(recorded: Recorded, targets: readonly TargetPolicy[], file: string): void {
  const missing = targets.filter((t) => !recorded.targets[t.id]).map((t) => t.id);
  if (missing.length > 0) {
    throw new UsageError(
      `--metrics ${file} has no entry for ${missing.join(', ')}: add targets.${missing[0]} with its capacity and readings (see events/invoke/chat-llm.json)`,
    );
  }
}

/** One GetMetricData answer per query: the recorded value, stamped with the newest complete minute. */
function recordedMetrics(recorded: Recorded, queries: readonly MetricQuery[], window: QueryWindow) {
  const seenActivation = new Set<string>();
  return queries.map((q): RawMetricResult => {
    const rec = recorded.targets[q.targetId];
    let value: number | undefined;
    if (q.role.kind === 'signal') value = rec?.readings[q.role.metric];
    else if (rec?.activation !== undefined) {
      // The first part carries the total; the others (NoCapacityInvocationFailures) add 0.
      value = seenActivation.has(q.targetId) ? 0 : rec.activation;
      seenActivation.add(q.targetId);
    }
    if (value === undefined) return { Id: q.id, Timestamps: [], Values: [], StatusCode: 'Complete' };
    // CloudWatch's unit (ModelLatency in microseconds): the reader multiplies by source.scale.
    const stored = value / q.source.scale;
    return {
      Id: q.id,
      Timestamps: [new Date(window.end - 60_000)],
      Values: [stored],
      StatusCode: 'Complete',
    };
  });
}

/** The state table in memory, with the claim's version check (DynamoDB's conditional write). */
function memoryState(): StatePort & { audits: Record<string, unknown>[] } {
  const items = new Map<string, Record<string, unknown>>();
  const audits: Record<string, unknown>[] = [];
  return {
    audits,
    read: async (id) => structuredClone(items.get(id)),
    async claim(id, expected, write) {
      const current = items.get(id);
      if (((current?.version as number | undefined) ?? null) !== expected) return false;
      const { trimLeadTimesSfn: _trim, ...rest } = write;
      items.set(id, structuredClone({ ...current, ...rest, version: (expected ?? 0) + 1 }));
      return true;
    },
    putAudit: async (item) => {
      audits.push(item);
    },
  };
}

export interface OfflineWorld {
  ports: Ports;
  /** What the fakes were asked to change, one line each (nothing left the machine). */
  notes: string[];
}

/** Ports over the recorded file; `policy` maps resource names back to target ids. */
export function offlinePorts(recorded: Recorded, policy: PolicyFile, killSwitchName: string): OfflineWorld {
  const notes: string[] = [];
  const capacity = new Map<string, Capacity>(
    Object.entries(recorded.targets).map(([id, r]) => [id, { ...r.capacity }]),
  );
  const find = (match: (t: TargetPolicy) => boolean, what: string): [string, Capacity] => {
    const t = policy.targets.find(match);
    const found = t && capacity.get(t.id);
    if (!t || !found) throw new Error(`no recorded capacity for ${what}`);
    return [t.id, found];
  };
  const variant = (region: string, endpoint: string, name: string) =>
    find(
      (t) =>
        t.kind === 'sagemaker-variant' &&
        t.region === region &&
        t.endpointName === endpoint &&
        t.variantName === name,
      `endpoint ${endpoint} variant ${name} in ${region}`,
    );
  const component = (region: string, name: string) =>
    find(
      (t) =>
        t.kind === 'sagemaker-inference-component' &&
        t.region === region &&
        t.inferenceComponentName === name,
      `inference component ${name} in ${region}`,
    );
  const group = (region: string, name: string) =>
    find(
      (t) => t.kind === 'ec2-asg' && t.region === region && t.autoScalingGroupName === name,
      `Auto Scaling group ${name} in ${region}`,
    );
  const apply = ([id, c]: [string, Capacity], desired: number, call: string) => {
    notes.push(`${call} for ${id}: desired ${c.desired} -> ${desired} (in memory only)`);
    c.desired = desired;
    return Promise.resolve({ status: 'applied' as const });
  };
  const ports: Ports = {
    metrics: {
      getMetricData: async (_region, queries, window) => recordedMetrics(recorded, queries, window),
    },
    sageMaker: {
      variantCapacity: async (r, e, v) => ({ ...variant(r, e, v)[1] }),
      componentCapacity: async (r, n) => ({ ...component(r, n)[1] }),
      setVariantCapacity: (r, e, v, d) => apply(variant(r, e, v), d, 'UpdateEndpointWeightsAndCapacities'),
      setComponentCopies: (r, n, d) => apply(component(r, n), d, 'UpdateInferenceComponentRuntimeConfig'),
    },
    groups: {
      async describeGroups(region, names) {
        const found = new Map<string, GroupReading>();
        for (const name of names) {
          const t = policy.targets.find(
            (x) => x.kind === 'ec2-asg' && x.region === region && x.autoScalingGroupName === name,
          );
          const c = t && capacity.get(t.id);
          if (c) found.set(name, { capacity: { ...c }, alarmsSuspended: false });
        }
        return found;
      },
      scalingPolicies: async () => [],
      suspendAlarmNotification: async () => {},
      setDesiredCapacity: (r, n, d) => apply(group(r, n), d, 'SetDesiredCapacity'),
    },
    scalers: {
      activeScalableTargets: async () => new Set<string>(),
      policyNames: async () => [],
      suspendDynamicScaling: async () => {},
    },
    state: memoryState(),
    executions: {
      async startScaleTarget(arn, input) {
        notes.push(
          `the scale-target state machine would start as ${input.decisionId} for ${input.targetId}: ${input.previousCapacity} -> ${input.desiredCapacity} (nothing was started)`,
        );
        return {
          executionArn: `${arn.replace(':stateMachine:', ':execution:')}:${input.decisionId}`,
          duplicate: false,
        };
      },
    },
    parameters: {
      get: async (name) => (name === killSwitchName ? recorded.killSwitch : null),
      // The policy is the --policy file (fixedPolicySource): no parts are read.
      under: async () => [],
    },
  };
  return { ports, notes };
}
