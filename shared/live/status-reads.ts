/**
 * What `governor status` reads of one target, reads only (GetItem, Query, BatchGetItem through
 * the stores' get, Describe*, List*): the state item, the last decision record, live capacity
 * from the API of the target's kind, the running scale-target executions, the group's warm pool,
 * the failover group's state and its routing's truth, the mix PLAN and SPOT items. Each read's
 * failure is kept as that part's problem (./status.ts `Read`), so one denied call does not hide
 * the rest. SDK clients are injected (the CLI aims them at the stack's region or the endpoint).
 */
import type { AutoScalingClient } from '@aws-sdk/client-auto-scaling';
import type { SageMakerClient } from '@aws-sdk/client-sagemaker';
import { DescribeExecutionCommand, ListExecutionsCommand, type SFNClient } from '@aws-sdk/client-sfn';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { errorName } from '../aws/clients.ts';
import { decisionRecords } from '../aws/decision-records.ts';
import { dynamoStateStore } from '../aws/dynamodb.ts';
import { dynamoFailoverStore } from '../aws/failover-store.ts';
import { groupReads } from '../aws/group-capacity.ts';
import { dynamoMixItems } from '../aws/mix-item.ts';
import { endpointReads, sageMakerAdapter, variantCapacityFrom } from '../aws/sagemaker.ts';
import { dynamoSpotStore } from '../aws/spot-store.ts';
import { warmPoolsAdapter } from '../aws/warm-pools.ts';
import type { RoutingTruth } from '../failover/truth.ts';
import { FailoverStateSchema } from '../failover/types.ts';
import type { FailoverRouting } from '../policy/failover-schema.ts';
import type { PolicyFile, TargetPolicy } from '../policy/schema.ts';
import { decodeState } from '../state/item.ts';
import type { Capacity, FailoverReads, Read, StatusReads } from './status.ts';

export interface StatusClients {
  /** The stack's state table, in the stack's region. */
  doc: DynamoDBDocumentClient;
  tableName: string;
  /** The scale-target state machine and its client (null: none in the stack). */
  machine: { sfn: SFNClient; arn: string } | null;
  sageMaker: (region: string) => SageMakerClient;
  autoScaling: (region: string) => AutoScalingClient;
  /** The failover function's own routing reads (functions/failover/routing-truth.ts), injected by the CLI. */
  routing: { read(routing: FailoverRouting, regions: readonly string[]): Promise<RoutingTruth> };
}

/** The truth by region in each kind's terms: a weight, a dial, or On / Off. */
export function truthByRegion(truth: RoutingTruth): Record<string, number | string> {
  if (truth.kind === 'route53-weighted') return truth.weights;
  if (truth.kind === 'global-accelerator') return truth.dials;
  return Object.fromEntries(Object.entries(truth.on).map(([r, on]) => [r, on ? 'On' : 'Off']));
}

/** At most this many running executions are described (each a DescribeExecution for its target). */
export const MAX_EXECUTIONS = 50;

const said = (error: unknown) =>
  `${errorName(error) || 'Error'}: ${(error instanceof Error ? error.message : String(error)).split('\n')[0]}`;

export async function attempt<T>(run: () => Promise<T>): Promise<Read<T>> {
  try {
    return { ok: true, value: await run() };
  } catch (error) {
    return { ok: false, problem: said(error) };
  }
}

async function capacityOf(c: StatusClients, t: TargetPolicy): Promise<Capacity> {
  switch (t.kind) {
    case 'sagemaker-variant':
      return variantCapacityFrom(
        await endpointReads(c.sageMaker).describeEndpoint(t.region, t.endpointName),
        t.variantName,
      );
    case 'sagemaker-inference-component':
      return sageMakerAdapter(c.sageMaker).componentCapacity(t.region, t.inferenceComponentName);
    case 'ec2-asg': {
      const read = await groupReads(c.autoScaling).describeGroups(t.region, [t.autoScalingGroupName]);
      const group = read.get(t.autoScalingGroupName);
      if (!group) throw new Error(`no Auto Scaling group ${t.autoScalingGroupName} in ${t.region}`);
      return group.capacity;
    }
  }
}

/**
 * The running executions of the scale-target machine by target id: ListExecutions RUNNING (one
 * page of up to MAX_EXECUTIONS, newest first), then each one's input for its target.
 */
export async function runningExecutions(
  machine: NonNullable<StatusClients['machine']>,
): Promise<Map<string, { name: string; startedAt: number }[]>> {
  const listed = await machine.sfn.send(
    new ListExecutionsCommand({
      stateMachineArn: machine.arn,
      statusFilter: 'RUNNING',
      maxResults: MAX_EXECUTIONS,
    }),
  );
  const byTarget = new Map<string, { name: string; startedAt: number }[]>();
  for (const e of listed.executions ?? []) {
    if (!e.executionArn || !e.name) continue;
    const out = await machine.sfn.send(new DescribeExecutionCommand({ executionArn: e.executionArn }));
    const targetId = (JSON.parse(out.input ?? '{}') as { targetId?: unknown }).targetId;
    if (typeof targetId !== 'string') continue;
    const list = byTarget.get(targetId) ?? [];
    list.push({ name: e.name, startedAt: e.startDate?.getTime() ?? 0 });
    byTarget.set(targetId, list);
  }
  return byTarget;
}

async function failoverOf(
  c: StatusClients,
  policy: PolicyFile,
  t: TargetPolicy,
): Promise<FailoverReads | null> {
  const group = policy.failover?.groups.find((g) => g.members.some((m) => m.targetId === t.id));
  if (!group) return null;
  const state = await attempt(async () => {
    const item = await dynamoFailoverStore(c.doc, c.tableName).read(group.id);
    if (!item) return null;
    const parsed = FailoverStateSchema.safeParse(item.state);
    if (!parsed.success)
      throw new Error(
        `the stored state does not decode: ${parsed.error.issues[0]?.path.join('.')} ${parsed.error.issues[0]?.message}`,
      );
    return parsed.data;
  });
  return {
    groupId: group.id,
    routing: group.routing.kind,
    state,
    truth: await attempt(async () => {
      const regions = group.members.flatMap(
        (m) => policy.targets.find((x) => x.id === m.targetId)?.region ?? [],
      );
      return truthByRegion(await c.routing.read(group.routing, regions));
    }),
  };
}

/** Every read of one target; `executions` is the stack's running executions, read once for all. */
export async function readTargetStatus(
  c: StatusClients,
  policy: PolicyFile,
  t: TargetPolicy,
  executions: Read<Map<string, { name: string; startedAt: number }[]>> | null,
): Promise<StatusReads> {
  const [capacity, lastRecord, state, warmPool, failover, mix] = await Promise.all([
    attempt(() => capacityOf(c, t)),
    attempt(async () => {
      const [last] = await decisionRecords(c.doc, c.tableName, t.id, 'DECISION#', {
        limit: 1,
        newestFirst: true,
      });
      return last ?? null;
    }),
    attempt(async () => decodeState(await dynamoStateStore(c.doc, c.tableName).read(t.id))),
    t.kind === 'ec2-asg' && t.warmPool?.enabled
      ? attempt(() => warmPoolsAdapter(c.autoScaling).read(t.region, t.autoScalingGroupName))
      : Promise.resolve(null),
    failoverOf(c, policy, t),
    t.capacityMix
      ? attempt(async () => {
          // One item holds both since issue 18; a SPOT item of before is read while it has no spot part.
          const item = await dynamoMixItems(c.doc, c.tableName).get(t.id);
          const spot = item?.spot ?? (await dynamoSpotStore(c.doc, c.tableName).get(t.id))?.spot ?? null;
          return { plan: item?.state ?? null, spot };
        })
      : Promise.resolve(null),
  ]);
  return {
    target: t,
    capacity,
    lastRecord,
    state,
    executions:
      executions === null
        ? null
        : executions.ok
          ? { ok: true, value: executions.value.get(t.id) ?? [] }
          : executions,
    warmPool,
    failover,
    mix,
  };
}
