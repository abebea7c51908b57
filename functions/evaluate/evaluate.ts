/**
 * One invocation of the evaluate function, from raw event to decision records. Order, so that
 * an event that will be ignored costs no AWS call:
 *   parse (malformed, a malformed detail.shard included -> EventError) -> origin (source,
 *   account, region against the deployment's) -> age and alarm screening -> duplicate id ->
 *   policy (cached) -> which targets (a sharded tick: its shard's, shared/events/shards.ts) ->
 *   kill switch (read every evaluating invocation) -> observe (batched reads, the failover
 *   groups' FAILOVER# items and the capacity mix PLAN items among them) -> each target,
 *   TARGETS_IN_FLIGHT at a time: decide, claim, act, record.
 *
 * What the invocation could not do is in its report, never only in a log line: decision records
 * whose audit write failed (also the AuditWriteFailures metric, which the template alarms on),
 * and targets not started for lack of time (recorded as deferred, DeadlineReached).
 */

import { auditItem, type DecisionRecord, newDecisionId, type Trigger } from '../../shared/apply/records.ts';
import { clip } from '../../shared/events/bounded.ts';
import { EventError, type GovernorEvent, parseEvent } from '../../shared/events/parse.ts';
import {
  type Ignored,
  RecentIds,
  routeEvent,
  screenEvent,
  screenOrigin,
} from '../../shared/events/routing.ts';
import { inShard, type Shard, shardOfTick } from '../../shared/events/shards.ts';
import type { ResolvedGroup } from '../../shared/failover/group.ts';
import { DEADLINE_REACHED, type TimeLeft, unlimited } from '../../shared/invocation/budget.ts';
import type { Config, Mode } from '../../shared/invocation/config.ts';
import { readKillSwitch } from '../../shared/invocation/kill-switch.ts';
import { mapBounded } from '../../shared/invocation/pool.ts';
import type { TargetPolicy } from '../../shared/policy/schema.ts';
import { failoverGroupsOf } from './failover-floor.ts';
import { observe } from './observe.ts';
import type { PolicySource } from './policy-source.ts';
import type { Ports } from './ports.ts';
import { type Released, releaseSuspended } from './release.ts';
import { evaluateTarget, failedRecord, type TargetContext } from './target.ts';
import type { Telemetry } from './telemetry.ts';

export interface EvaluatorDeps {
  config: Config;
  ports: Ports;
  policy: PolicySource;
  telemetry: Telemetry;
  /** Overrides GOVERNOR_MODE (`governor invoke --shadow`). */
  mode?: Mode;
  /** Skip the audit writes (the CLI's --shadow prints the records instead). */
  writeAudit?: boolean;
  newId?: (now: number) => string;
  backoff?: (attempt: number) => Promise<void>;
  /** Milliseconds since some origin, for latency only (never for decisions). */
  clock?: () => number;
}

export interface InvocationReport {
  event: { kind: GovernorEvent['kind']; id: string };
  ignored: Ignored | null;
  records: DecisionRecord[];
  /** Targets whose decision record could not be written to the state table (it is in the log). */
  auditWriteFailures: string[];
  /** Targets not started for lack of time (their records say DeadlineReached). */
  deadlineSkipped: string[];
}

/** What the Lambda context says about this invocation (the CLI and tests give none). */
export interface Invocation {
  /** The function's own account, from invokedFunctionArn: events from others are refused. */
  account?: string;
  /** Milliseconds left before the invocation's deadline. */
  leftMs?: TimeLeft;
}

/**
 * Targets decided, claimed, acted on and recorded at once. Each is 2-4 calls one after the other
 * (UpdateItem, StartExecution or SetDesiredCapacity, PutItem; GetItem only when its state was
 * not in the tick's batched read or after a lost claim), about 20-60 ms in all:
 * 16 at a time get through 500 targets in 1-3 s, well under DynamoDB's and Step Functions' rates
 * (StartExecution refills 150-300 a second). Bounded so that a target started late checks the
 * time left then (EVALUATE_TARGET_MARGIN_MS), instead of all passing the check at once.
 */
export const TARGETS_IN_FLIGHT = 16;

const jitteredBackoff = (attempt: number) =>
  new Promise<void>((r) => setTimeout(r, attempt * (10 + Math.random() * 40)));

/** The kill switch, read on every evaluating invocation (its one meaning: kill-switch.ts). */
async function killSwitch(deps: EvaluatorDeps) {
  const name = deps.config.KILL_SWITCH_PARAMETER_NAME;
  const judged = await readKillSwitch((n) => deps.ports.parameters.get(n), name);
  if (judged.reason === 'Unreadable' || judged.reason === 'Missing')
    deps.telemetry.error(judged.message, { parameter: name, reason: judged.reason });
  else if (judged.reason === 'Unrecognised') deps.telemetry.warn(judged.message, { parameter: name });
  return judged;
}

/** The event's id and alarm name as records and logs carry them: bounded (parse limits them too). */
const triggerOf = (e: GovernorEvent): Trigger =>
  e.kind === 'tick'
    ? { event: 'tick', eventId: clip(e.id) }
    : { event: 'alarm', eventId: clip(e.id), alarmName: clip(e.alarmName) };

/**
 * The shard a tick names (detail.shard, shared/events/shards.ts), or null: an unsharded tick, or
 * an alarm, which evaluates the target it names whatever its shard. A malformed shard fails the
 * event before any AWS call, naming the field, as any malformed event does.
 */
function shardOf(event: GovernorEvent, raw: unknown): Shard | null {
  if (event.kind !== 'tick') return null;
  const found = shardOfTick(raw);
  if ('problem' in found) throw new EventError(found.problem);
  return found.shard;
}

export function createEvaluator(deps: EvaluatorDeps) {
  const recent = new RecentIds();
  const clock = deps.clock ?? (() => performance.now());
  const mode = deps.mode ?? deps.config.GOVERNOR_MODE;

  /** Writes the audit item; a failure is counted, logged, and named in the report (never thrown). */
  async function recordAudit(record: DecisionRecord): Promise<boolean> {
    if (deps.writeAudit === false) return true;
    try {
      await deps.ports.state.putAudit(auditItem(record, deps.config.AUDIT_TTL_DAYS));
      return true;
    } catch (error) {
      deps.telemetry.count?.('AuditWriteFailures', 1);
      deps.telemetry.error(
        `AuditWriteFailed: the decision record ${record.decisionId} of ${record.targetId} was not written to the state table; it is in this log only`,
        {
          targetId: record.targetId,
          decisionId: record.decisionId,
          error: clip(error instanceof Error ? `${error.name}: ${error.message}` : String(error)),
        },
      );
      return false;
    }
  }

  async function evaluateTargets(
    event: GovernorEvent,
    targets: TargetPolicy[],
    now: number,
    started: number,
    leftMs: TimeLeft,
    groups: readonly ResolvedGroup[],
  ) {
    const judged = await killSwitch(deps);
    // Release hands back before the evaluation reads other scalers: those it resumed show as active.
    const released =
      judged.reason === 'Release' && mode === 'active' && deps.ports.handBack
        ? await releaseSuspended(
            { groups: deps.ports.groups, handBack: deps.ports.handBack },
            targets,
            deps.telemetry,
          )
        : new Map<string, Released>();
    const ctx: TargetContext = {
      config: deps.config,
      mode,
      ports: deps.ports,
      telemetry: deps.telemetry,
      now,
      killSwitch: judged.on,
      ...(judged.on && judged.reason !== 'On' ? { killSwitchWhy: judged.message } : {}),
      killSwitchValue: judged.on ? null : judged.value,
      leftMs,
      trigger: triggerOf(event),
      newId: deps.newId ?? newDecisionId,
      backoff: deps.backoff ?? jitteredBackoff,
    };
    const observed = await observe(deps.ports, targets, now, groups);
    for (const p of observed.problems) deps.telemetry.warn(`metrics: ${p}`);
    if (observed.stateProblem) deps.telemetry.warn(`state: ${observed.stateProblem}`);
    return mapBounded(targets, TARGETS_IN_FLIGHT, async (t) => {
      const evaluated = await evaluateTarget(ctx, t, {
        capacity: observed.capacity.get(t.id)!,
        conflict: observed.conflicts.get(t.id)!,
        readings: observed.readings.get(t.id),
        ...(observed.stored.has(t.id) ? { stored: { item: observed.stored.get(t.id) } } : {}),
        ...(observed.failover.has(t.id) ? { failoverFloor: observed.failover.get(t.id)! } : {}),
        ...(observed.mix.has(t.id) ? { mixPlan: observed.mix.get(t.id)! } : {}),
      }).catch((error: unknown) =>
        failedRecord(
          ctx,
          t,
          `evaluation failed: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`,
        ),
      );
      const release = released.get(t.id);
      const record = release
        ? { ...evaluated, resumed: release.resumed, detail: `${evaluated.detail}; ${release.detail}` }
        : evaluated;
      const audited = await recordAudit(record);
      deps.telemetry.decision(record, Math.round(clock() - started));
      return { record, audited };
    });
  }

  return async function evaluate(
    raw: unknown,
    now: number,
    invocation: Invocation = {},
  ): Promise<InvocationReport> {
    const started = clock();
    const event = parseEvent(raw);
    const shard = shardOf(event, raw);
    const summary = { kind: event.kind, id: clip(event.id) };
    const ignore = (ignored: Ignored): InvocationReport => {
      const foreign = ignored.reason.startsWith('Foreign') && ignored.reason !== 'ForeignAlarm';
      if (foreign) deps.telemetry.count?.('ForeignEvents', 1);
      const line = `event ignored: ${ignored.reason}: ${ignored.message}`;
      const attributes = { reason: ignored.reason, eventId: clip(event.id) };
      if (foreign) deps.telemetry.warn(line, attributes);
      else deps.telemetry.info(line, attributes);
      return { event: summary, ignored, records: [], auditWriteFailures: [], deadlineSkipped: [] };
    };
    const origin = screenOrigin(event, { account: invocation.account, region: deps.config.AWS_REGION });
    if (origin) return ignore(origin);
    const screened = screenEvent(event, now, deps.config.MAX_EVENT_AGE_SECONDS);
    if (screened) return ignore(screened);
    if (!recent.firstTime(event.id)) {
      return ignore({
        reason: 'DuplicateEvent',
        message: `event ${event.id} was already evaluated by this container`,
      });
    }
    try {
      const policy = await deps.policy.current(now);
      const route = routeEvent(event, policy);
      if ('reason' in route) return ignore(route);
      const targets = shard ? inShard(route.targets, shard) : route.targets;
      if (shard && targets.length === 0) {
        deps.telemetry.info(
          `shard ${shard.index} of ${shard.count} holds none of the policy's targets: nothing to evaluate`,
        );
        return { event: summary, ignored: null, records: [], auditWriteFailures: [], deadlineSkipped: [] };
      }
      const results = await evaluateTargets(
        event,
        targets,
        now,
        started,
        invocation.leftMs ?? unlimited,
        failoverGroupsOf(policy, targets),
      );
      const records = results.map((r) => r.record);
      const deadlineSkipped = records
        .filter((r) => r.detail.startsWith(DEADLINE_REACHED))
        .map((r) => r.targetId);
      if (deadlineSkipped.length > 0) {
        deps.telemetry.count?.('DeadlineSkips', deadlineSkipped.length);
        deps.telemetry.warn(
          `DeadlineReached: ${deadlineSkipped.length} of ${records.length} targets were not started for lack of time (nothing changed for them): ${deadlineSkipped.join(', ')}`,
        );
      }
      // "Successful" needs one target evaluated: every target failing must trip the template's alarm.
      if (records.some((r) => r.outcome !== 'failed' && !r.detail.startsWith(DEADLINE_REACHED)))
        deps.telemetry.invocationSucceeded(Math.round(clock() - started));
      return {
        event: summary,
        ignored: null,
        records,
        auditWriteFailures: results.filter((r) => !r.audited).map((r) => r.record.targetId),
        deadlineSkipped,
      };
    } catch (error) {
      recent.forget(event.id); // a retry of a failed invocation must not be dropped as a duplicate
      throw error;
    }
  };
}
