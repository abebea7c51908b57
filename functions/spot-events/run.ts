/**
 * One SQS batch of spot events (docs/interruptions.md):
 *   parse every record (malformed: recorded, not retried) -> screen the origin (another account
 *   or region: ignored, no call) -> the policy's managed ec2-asg targets with capacityMix.spot in
 *   this region (none: everything ignored, no call) -> one batched DescribeAutoScalingInstances
 *   for the instances named (an instance in no managed group: ignored) -> group by target ->
 *   kill switch (active mode) -> SPOT and PLAN items, one BatchGetItem each -> per target:
 *   handleSpotBatch -> DetachInstances once per target (chunks of 20) -> the shifted
 *   MixedInstancesPolicy -> SPOT written on condition of its version; on conflict re-read and
 *   redo once (what was already done is not done again); still in conflict, or a call failed:
 *   those messages are batch item failures, so SQS redelivers them. An instance is marked
 *   handled only once its DetachInstances call succeeded, so a redelivery is safe.
 * Shadow mode writes SPOT (the availability and breaker timeline as active would have it) and
 * calls nothing else that writes. The kill switch writes nothing at all and records `killed`.
 */
import { readKillSwitch } from '../../shared/control/kill-switch.ts';
import { readPolicy } from '../../shared/control/policy-store.ts';
import { instanceOf, parseSpotBody, type SpotEvent } from '../../shared/interruptions/events.ts';
import { handleSpotBatch } from '../../shared/interruptions/handle.ts';
import type { SpotDecision } from '../../shared/interruptions/message.ts';
import { type SpotState, unmarkHandled } from '../../shared/interruptions/state.ts';
import { type MixPlan, type MixPolicy, resolveMixPolicy } from '../../shared/mix/types.ts';
import type { PolicyFile } from '../../shared/policy/schema.ts';
import type { SpotEventsConfig } from './config.ts';
import type { SpotEventsPorts } from './ports.ts';

export interface SqsBatch {
  Records: { messageId: string; body: string }[];
}

/** An event and the SQS message it came in. */
export interface Tagged {
  messageId: string;
  event: SpotEvent;
}

export type IgnoreReason =
  | 'Malformed'
  | 'ForeignAccount'
  | 'ForeignRegion'
  | 'NotManaged'
  /** In no Auto Scaling group now: already detached (a late duplicate), or never in one. */
  | 'NotInGroup'
  | 'NotEc2Instance';

export interface Managed {
  policy: MixPolicy;
  groupName: string;
  region: string;
}

export type Outcome = 'applied' | 'shadow' | 'killed' | 'failed' | 'superseded';

export interface TargetReport {
  targetId: string;
  outcome: Outcome;
  replaced: string[];
  duplicates: number;
  poolsMarked: string[];
  breakerOpened: boolean;
  shifted: boolean;
  failedMessages: string[];
  detail: string;
}

export interface SpotEventsTelemetry {
  info(message: string, attributes?: Record<string, unknown>): void;
  error(message: string, attributes?: Record<string, unknown>): void;
  decision(record: Record<string, unknown>): void;
  count(metric: SpotMetric, value: number): void;
}

export type SpotMetric =
  | 'ReplacementsRequested'
  | 'DuplicatesIgnored'
  | 'ForeignIgnored'
  | 'PoolsMarkedUnavailable'
  | 'SpotBreakerOpened';

export interface SpotEventsDeps {
  config: SpotEventsConfig;
  ports: SpotEventsPorts;
  telemetry: SpotEventsTelemetry;
}

export interface SpotEventsResult {
  batchItemFailures: { itemIdentifier: string }[];
  targets: TargetReport[];
  ignored: Record<IgnoreReason, number>;
}

const errorText = (e: unknown) =>
  (e instanceof Error ? `${e.name}: ${e.message}` : String(e)).split('\n')[0] ?? '';

/** The managed targets of this region: ec2-asg with capacityMix.spot, by group name. */
export function managedGroups(policy: PolicyFile, region: string): Map<string, Managed> {
  const out = new Map<string, Managed>();
  for (const t of policy.targets) {
    if (t.kind !== 'ec2-asg' || t.region !== region || !t.capacityMix?.spot) continue;
    const mix = resolveMixPolicy(t);
    if (mix) out.set(t.autoScalingGroupName, { policy: mix, groupName: t.autoScalingGroupName, region });
  }
  return out;
}

export function createSpotEventsHandler(deps: SpotEventsDeps) {
  const { config, ports, telemetry } = deps;
  let cached: { policy: PolicyFile; at: number } | null = null;
  const policyAt = async (now: number): Promise<PolicyFile> => {
    if (cached && now - cached.at < config.POLICY_CACHE_SECONDS * 1000) return cached.policy;
    const merged = await readPolicy(ports.parameters, config.POLICY_PARAMETER_NAME);
    if (!merged.ok) throw new Error(`no valid policy: ${merged.problems.join('; ')}`);
    cached = { policy: merged.policy, at: now };
    return merged.policy;
  };

  return async (batch: SqsBatch, now: number, home: { account?: string } = {}): Promise<SpotEventsResult> => {
    const ignored: Record<IgnoreReason, number> = {
      Malformed: 0,
      ForeignAccount: 0,
      ForeignRegion: 0,
      NotManaged: 0,
      NotInGroup: 0,
      NotEc2Instance: 0,
    };
    const ignore = (reason: IgnoreReason, messageId: string, detail: string) => {
      ignored[reason]++;
      telemetry.decision({
        kind: 'ignored',
        reasons: [reason],
        messageId,
        message: detail,
        at: new Date(now).toISOString(),
      });
    };
    const candidates = screen(batch, config.AWS_REGION, home.account, ignore);
    const byTarget = candidates.length > 0 ? await route(candidates, await policyAt(now), ignore) : new Map();
    telemetry.count(
      'ForeignIgnored',
      ignored.ForeignAccount + ignored.ForeignRegion + ignored.NotManaged + ignored.NotInGroup,
    );
    const targets: TargetReport[] = [];
    if (byTarget.size > 0) {
      const killed =
        config.GOVERNOR_MODE === 'shadow'
          ? null
          : await readKillSwitch((n) => ports.parameters.get(n), config.KILL_SWITCH_PARAMETER_NAME);
      const ids = [...byTarget.keys()];
      const [spots, plans] = await Promise.all([ports.spot.getMany(ids), ports.plans.getMany(ids)]);
      for (const [id, { managed, events }] of byTarget) {
        const stored = spots.get(id) ?? null;
        const start = {
          spot: stored?.spot ?? null,
          version: stored?.version ?? 0,
          plan: plans.get(id)?.state.plan ?? null,
        };
        targets.push(
          await handleTarget(deps, managed, events, start, now, killed?.on === true ? killed.message : null),
        );
      }
    }
    return {
      batchItemFailures: targets
        .flatMap((t) => t.failedMessages)
        .map((itemIdentifier) => ({ itemIdentifier })),
      targets,
      ignored,
    };
  };

  /** Parsed events of this account and region. */
  function screen(
    batch: SqsBatch,
    region: string,
    account: string | undefined,
    ignore: (r: IgnoreReason, m: string, d: string) => void,
  ): Tagged[] {
    const out: Tagged[] = [];
    for (const r of batch.Records) {
      const parsed = parseSpotBody(r.body);
      if (!parsed.ok) {
        ignore('Malformed', r.messageId, parsed.problem);
        continue;
      }
      if (parsed.events.length === 0)
        ignore('NotEc2Instance', r.messageId, 'a Health event of another service');
      for (const event of parsed.events) {
        if (account !== undefined && event.account !== account)
          ignore('ForeignAccount', r.messageId, `event ${event.eventId} from account ${event.account}`);
        else if (event.region !== region)
          ignore('ForeignRegion', r.messageId, `event ${event.eventId} from region ${event.region}`);
        else out.push({ messageId: r.messageId, event });
      }
    }
    return out;
  }

  /** Events by managed target: instances looked up in one batched call, failed launches by group name. */
  async function route(
    tagged: Tagged[],
    policy: PolicyFile,
    ignore: (r: IgnoreReason, m: string, d: string) => void,
  ): Promise<Map<string, { managed: Managed; events: Tagged[] }>> {
    const groups = managedGroups(policy, config.AWS_REGION);
    const out = new Map<string, { managed: Managed; events: Tagged[] }>();
    const instances = [
      ...new Set(tagged.map((t) => instanceOf(t.event)).filter((i): i is string => i !== null)),
    ];
    const groupOf =
      groups.size > 0 && instances.length > 0
        ? await ports.groups.groupsOf(config.AWS_REGION, instances)
        : new Map<string, string>();
    for (const t of tagged) {
      const instance = instanceOf(t.event);
      const group =
        t.event.kind === 'launch-failed' ? t.event.groupName : instance ? groupOf.get(instance) : undefined;
      const managed = group ? groups.get(group) : undefined;
      if (!managed) {
        if (instance && !group)
          ignore(
            'NotInGroup',
            t.messageId,
            `${instance}: in no Auto Scaling group now (already detached, or never in one)`,
          );
        else
          ignore('NotManaged', t.messageId, `${group}: not a managed ec2-asg target with capacityMix.spot`);
        continue;
      }
      const entry = out.get(managed.policy.targetId) ?? { managed, events: [] };
      entry.events.push(t);
      out.set(managed.policy.targetId, entry);
    }
    return out;
  }
}

interface Start {
  spot: SpotState | null;
  version: number;
  plan: MixPlan | null;
}

/** One target's events: step, act what was not yet done, write; on conflict re-read and redo once. */
async function handleTarget(
  deps: SpotEventsDeps,
  m: Managed,
  tagged: Tagged[],
  start: Start,
  now: number,
  killedBy: string | null,
): Promise<TargetReport> {
  const { ports, telemetry, config } = deps;
  const events = tagged.map((t) => t.event);
  const messagesOf = (pred: (e: SpotEvent) => boolean) => [
    ...new Set(tagged.filter((t) => pred(t.event)).map((t) => t.messageId)),
  ];
  const report: TargetReport = {
    targetId: m.policy.targetId,
    outcome: config.GOVERNOR_MODE === 'shadow' ? 'shadow' : killedBy ? 'killed' : 'applied',
    replaced: [],
    duplicates: 0,
    poolsMarked: [],
    breakerOpened: false,
    shifted: false,
    failedMessages: [],
    detail: killedBy ?? '',
  };
  const acting = report.outcome === 'applied';
  const detached = new Set<string>();
  const failedIds = new Set<string>();
  let shiftedKey: string | null = null;
  let current = start;
  for (let attempt = 1; attempt <= 2; attempt++) {
    const r = handleSpotBatch({ state: current.spot, events, policy: m.policy, plan: current.plan, now });
    let state = r.state;
    let shiftFailed = false;
    if (acting) {
      for (const a of r.actions) {
        if (a.kind === 'replace') {
          const todo = a.instanceIds.filter((i) => !detached.has(i) && !failedIds.has(i));
          if (todo.length === 0) continue;
          const out = await ports.groups.replace(m.region, m.groupName, todo);
          for (const i of out.detached) detached.add(i);
          for (const f of out.failed) {
            for (const i of f.instanceIds) failedIds.add(i);
            telemetry.error(f.error, { targetId: m.policy.targetId });
            report.detail = f.error;
          }
        }
        if (a.kind === 'shift') {
          const key = JSON.stringify(a.plan.mixedInstancesPolicy);
          if (key === shiftedKey) continue;
          try {
            const applied = await ports.mixedInstances.apply(m.region, m.groupName, a.plan);
            if (applied.status === 'busy') throw new Error(applied.message);
            if (applied.status === 'refused') report.detail = applied.message;
            shiftedKey = key;
          } catch (e) {
            shiftFailed = true;
            report.detail = `the shift was not applied: ${errorText(e)}`;
            telemetry.error(report.detail, { targetId: m.policy.targetId });
          }
        }
      }
      if (shiftFailed) state = r.stateIfShiftFails;
      state = unmarkHandled(state, [...failedIds]);
    }
    if (killedBy) {
      logDecisions(telemetry, r.decisions, report.outcome, m);
      return report;
    }
    const written = await ports.spot.put(m.policy.targetId, state, current.version);
    if (written === 'written') {
      report.replaced = acting
        ? [...detached]
        : (r.actions.find((a) => a.kind === 'replace')?.instanceIds ?? []);
      report.duplicates = r.duplicates.length;
      report.poolsMarked = shiftFailed ? [] : r.poolsMarked;
      report.breakerOpened = !shiftFailed && r.actions.some((a) => a.kind === 'breaker-opened');
      report.shifted = shiftedKey !== null;
      const failedInstances = messagesOf(
        (e) => (e.kind === 'interruption' || e.kind === 'retirement') && failedIds.has(e.instanceId),
      );
      const shiftMessages = shiftFailed
        ? messagesOf(
            (e) =>
              e.kind === 'launch-failed' ||
              (r.actions.some((a) => a.kind === 'breaker-opened') && e.kind === 'interruption'),
          )
        : [];
      report.failedMessages = [...new Set([...failedInstances, ...shiftMessages])];
      if (report.failedMessages.length > 0) report.outcome = 'failed';
      logDecisions(telemetry, r.decisions, report.outcome, m, report.detail);
      emit(telemetry, report);
      return report;
    }
    const [spot, plan] = await Promise.all([
      ports.spot.get(m.policy.targetId),
      ports.plans.get(m.policy.targetId),
    ]);
    current = { spot: spot?.spot ?? null, version: spot?.version ?? 0, plan: plan?.state.plan ?? null };
  }
  report.outcome = 'superseded';
  report.detail =
    'the SPOT item changed under two attempts in a row: every message of this target is redelivered';
  report.replaced = [...detached];
  report.failedMessages = messagesOf(() => true);
  telemetry.error(report.detail, { targetId: m.policy.targetId });
  emit(telemetry, report);
  return report;
}

function logDecisions(
  t: SpotEventsTelemetry,
  decisions: SpotDecision[],
  outcome: Outcome,
  m: Managed,
  detail = '',
) {
  for (const d of decisions)
    t.decision({
      kind: d.kind,
      targetId: d.targetId,
      groupName: m.groupName,
      at: new Date(d.at).toISOString(),
      outcome,
      reasons: d.reasons,
      message: d.message,
      instanceIds: d.items.map((x) => x.id),
      eventIds: d.items.map((x) => x.event.eventId),
      ...(d.until !== undefined ? { until: new Date(d.until).toISOString() } : {}),
      ...(d.plan ? { mixedInstancesPolicy: d.plan.mixedInstancesPolicy } : {}),
      ...(detail ? { detail } : {}),
    });
}

function emit(t: SpotEventsTelemetry, r: TargetReport) {
  t.count('ReplacementsRequested', r.replaced.length);
  t.count('DuplicatesIgnored', r.duplicates);
  t.count('PoolsMarkedUnavailable', r.poolsMarked.length);
  t.count('SpotBreakerOpened', r.breakerOpened ? 1 : 0);
}
