/**
 * One run of the failover health evaluation (once a minute, in the standby region):
 *   parse the tick (malformed -> EventError) -> origin (source, account, region) and age:
 *   refused with no AWS call -> policy (SSM) -> per failover group: the stored FAILOVER# item
 *   (a tick already applied to it is refused) -> each member region's metrics, capacity and
 *   heartbeat (a failed read leaves that signal missing: unknown, never failed) ->
 *   stepFailover -> the item written with a condition on its version (a concurrent run that
 *   wrote first wins; this one records `superseded`) -> one decision record -> with actions,
 *   the failover state machine started (execution name = decision id: a duplicate is refused).
 * Shadow mode records every decision and advances the planner's state as a dry run, starting
 * nothing; the stored state remembers its mode, and the first active run after shadow starts
 * from the initial state (keeping the health history), so a dry-run trajectory never acts.
 * The kill switch (shared/invocation/kill-switch.ts) records `killed` and keeps the phase and the
 * weights where they were (only the health history moves), so the planner never believes in a
 * move that was not made.
 */

import { expiresAtFor, newDecisionId } from '../../shared/apply/records.ts';
import { clip } from '../../shared/events/bounded.ts';
import { type Ignored, screenScheduledTick } from '../../shared/events/routing.ts';
import { type ResolvedGroup, resolveFailoverGroups } from '../../shared/failover/group.ts';
import { failoverInput, needsExecution } from '../../shared/failover/machine-input.ts';
import { capacityFloors, initialFailoverState, stepFailover } from '../../shared/failover/plan.ts';
import type { ReconcileAct } from '../../shared/failover/reconcile.ts';
import { type FailoverState, FailoverStateSchema } from '../../shared/failover/types.ts';
import { readKillSwitch } from '../../shared/invocation/kill-switch.ts';
import type { PolicyFile } from '../../shared/policy/schema.ts';
import { readPolicy } from '../../shared/policy-store/read.ts';
import type { FailoverConfig } from './config.ts';
import { grantProblems } from './grants.ts';
import { clipped, readRegions } from './observe.ts';
import type { FailoverPorts } from './ports.ts';
import { type Memory, memoryOf, NO_MEMORY, observeRouting, settle } from './reconcile.ts';
import { decisionRecord, redoOf } from './record.ts';

export type FailoverOutcome =
  | 'started'
  | 'redone'
  | 'held'
  | 'rebased'
  | 'recorded'
  | 'shadow'
  | 'killed'
  | 'duplicate'
  | 'superseded'
  | 'failed';

export interface GroupOutcome {
  groupId: string;
  decisionId: string;
  outcome: FailoverOutcome;
  phase: string;
  reasons: string[];
  message: string;
}

export interface FailoverReport {
  eventId: string;
  ignored: Ignored | null;
  groups: GroupOutcome[];
}

export interface FailoverTelemetry {
  info(message: string, attributes?: Record<string, unknown>): void;
  error(message: string, attributes?: Record<string, unknown>): void;
  decision(record: Record<string, unknown>): void;
  /** The RoutingDrift metric of a group: minutes its routing has differed from the planner's intent. */
  drift?(groupId: string, minutes: number): void;
  /** The RoutingGrantMismatch metric of a group: its routing fields the stack's grants do not cover. */
  grantMismatch?(groupId: string, fields: number): void;
}

export interface FailoverDeps {
  config: FailoverConfig;
  ports: FailoverPorts;
  telemetry: FailoverTelemetry;
  random?: () => number;
}

export function createFailoverEvaluator(deps: FailoverDeps) {
  return async (raw: unknown, now: number, home: { account?: string } = {}): Promise<FailoverReport> => {
    const { event, ignored } = screenScheduledTick(
      raw,
      now,
      { account: home.account, region: deps.config.AWS_REGION },
      deps.config.MAX_TICK_AGE_SECONDS,
      'the failover evaluation runs on its schedule only',
    );
    if (ignored) {
      deps.telemetry.info(`event refused: ${ignored.message}`, { reason: ignored.reason });
      return { eventId: event.id, ignored, groups: [] };
    }
    const merged = await readPolicy(deps.ports.parameters, deps.config.POLICY_PARAMETER_NAME);
    if (!merged.ok) throw new Error(`no valid policy: ${merged.problems.join('; ')}`);
    const policy = merged.policy;
    const groups = resolveFailoverGroups(policy).filter((g) =>
      g.members.some((m) => m.region === deps.config.AWS_REGION && m.baseWeight === 0),
    );
    checkGrants(deps, groups);
    const judged =
      deps.config.GOVERNOR_MODE === 'shadow'
        ? null
        : await readKillSwitch((n) => deps.ports.parameters.get(n), deps.config.KILL_SWITCH_PARAMETER_NAME);
    const outcomes: GroupOutcome[] = [];
    for (const g of groups) outcomes.push(await evaluateGroup(deps, policy, g, event.id, now, judged));
    return { eventId: event.id, ignored: null, groups: outcomes };
  };
}

/**
 * The stack's routing grants against the policy's groups (./grants.ts), every run, in every mode:
 * one error line per field out of them, and RoutingGrantMismatch per group (0 once it matches).
 */
function checkGrants(deps: FailoverDeps, groups: readonly ResolvedGroup[]): void {
  const c = deps.config;
  const problems = grantProblems(groups, {
    hostedZoneId: c.FAILOVER_HOSTED_ZONE_ID,
    recordNames: c.FAILOVER_RECORD_NAMES,
    recordTypes: c.FAILOVER_RECORD_TYPES,
    routingControlArns: c.FAILOVER_ROUTING_CONTROL_ARNS,
    endpointGroupArns: c.FAILOVER_ENDPOINT_GROUP_ARNS,
  });
  for (const p of problems)
    deps.telemetry.error(`RoutingGrantMismatch: ${clip(p.message, 600)}`, {
      groupId: p.groupId,
      field: p.field,
    });
  for (const g of groups)
    deps.telemetry.grantMismatch?.(g.id, problems.filter((p) => p.groupId === g.id).length);
}

interface Stored {
  state: FailoverState;
  version: number | null;
  mode: string | null;
  lastEventId: string | null;
  memory: Memory;
}

function decode(deps: FailoverDeps, g: ResolvedGroup, item: Record<string, unknown> | undefined): Stored {
  if (!item)
    return {
      state: initialFailoverState(g),
      version: null,
      mode: null,
      lastEventId: null,
      memory: NO_MEMORY,
    };
  const parsed = FailoverStateSchema.safeParse(item.state);
  if (!parsed.success) deps.telemetry.error(`${g.id}: stored state malformed, starting from steady`);
  return {
    state: parsed.success ? parsed.data : initialFailoverState(g),
    version: typeof item.version === 'number' ? item.version : null,
    mode: typeof item.mode === 'string' ? item.mode : null,
    lastEventId: typeof item.lastEventId === 'string' ? item.lastEventId : null,
    memory: memoryOf(item),
  };
}

const OUTCOME_OF: Record<Exclude<ReconcileAct, 'plan'>, FailoverOutcome> = {
  hold: 'held',
  rebase: 'rebased',
  'redo-execution': 'redone',
  'redo-routing': 'redone',
};

async function evaluateGroup(
  deps: FailoverDeps,
  policy: PolicyFile,
  g: ResolvedGroup,
  eventId: string,
  now: number,
  judged: Awaited<ReturnType<typeof readKillSwitch>> | null,
): Promise<GroupOutcome> {
  const mode = deps.config.GOVERNOR_MODE;
  const stored = decode(deps, g, await deps.ports.store.read(g.id));
  const decisionId = newDecisionId(now, deps.random);
  if (stored.lastEventId === eventId)
    return {
      groupId: g.id,
      decisionId,
      outcome: 'duplicate',
      phase: stored.state.phase,
      reasons: [],
      message: `tick ${clip(eventId, 64)} was already applied`,
    };
  // A dry-run trajectory never acts: the first active run after shadow starts from steady.
  const prev =
    mode === 'active' && stored.mode === 'shadow'
      ? { ...initialFailoverState(g), health: stored.state.health }
      : stored.state;
  const result = stepFailover(prev, await readRegions(deps, policy, g, now), g, now);
  const killed = judged?.on === true;
  const at = new Date(now).toISOString();
  const expiresAt = expiresAtFor(at, deps.config.AUDIT_TTL_DAYS);
  const arn = deps.config.FAILOVER_STATE_MACHINE_ARN;
  // Shadow mode acts on nothing, so there is nothing to reconcile: it plans as before.
  const seen =
    mode === 'active'
      ? await observeRouting(deps.ports, arn, g, prev, stored.memory, killed, now, (m) =>
          deps.telemetry.info(m),
        )
      : null;
  const settled = seen
    ? settle(seen.verdict, seen.last, prev, result, stored.memory, killed)
    : {
        act: 'plan' as const,
        next: killed ? { ...prev, health: result.state.health } : result.state,
        memory: stored.memory,
      };
  const planned = settled.act === 'plan';
  const acting = mode === 'active' && !killed && planned && needsExecution(result.actions);
  const redo = settled.act === 'redo-execution' || settled.act === 'redo-routing';
  const input = acting
    ? failoverInput({
        decisionId,
        group: g,
        targets: policy.targets,
        decision: result.decision,
        actions: result.actions,
        previousWeights: prev.weights,
        killSwitchValue: judged?.value ?? '',
        now,
        expiresAt,
      })
    : redo && seen
      ? redoOf(settled.act, stored.memory, decisionId, g, prev, seen, judged?.value ?? '', now, expiresAt)
      : null;
  const memory =
    input === null
      ? { ...settled.memory, generationInput: stored.memory.generationInput }
      : acting
        ? {
            generation: decisionId,
            generationInput: JSON.stringify(input),
            prior: prev,
            attempts: 0,
            driftSince: settled.memory.driftSince,
          }
        : { ...settled.memory, generation: decisionId, generationInput: JSON.stringify(input) };
  const won = await deps.ports.store.write(g.id, stored.version, {
    state: settled.next,
    mode,
    lastEventId: eventId,
    updatedAt: at,
    lastDecisionId: decisionId,
    floors: capacityFloors(g, settled.next),
    ...memory,
  });
  let outcome: FailoverOutcome = !won
    ? 'superseded'
    : mode === 'shadow'
      ? 'shadow'
      : killed
        ? settled.act === 'rebase'
          ? 'rebased'
          : 'killed'
        : !planned
          ? OUTCOME_OF[settled.act as Exclude<ReconcileAct, 'plan'>]
          : acting
            ? 'started'
            : 'recorded';
  let detail = killed ? (judged?.message ?? '') : '';
  if (won && input !== null) {
    try {
      const started = await deps.ports.executions.start(arn, decisionId, input);
      if (started.duplicate) outcome = 'duplicate';
    } catch (e) {
      outcome = 'failed';
      detail = `the failover state machine did not start: ${clipped(e)}`;
    }
  }
  const record = decisionRecord({
    g,
    at,
    decisionId,
    mode,
    outcome,
    prev,
    settled,
    result,
    seen,
    memory,
    detail,
    expiresAt,
  });
  await deps.ports.store.putRecord(record);
  deps.telemetry.decision(record);
  if (seen && seen.verdict.driftMinutes !== null) deps.telemetry.drift?.(g.id, seen.verdict.driftMinutes);
  if (outcome === 'failed') throw new Error(`${g.id}: ${detail}`);
  return {
    groupId: g.id,
    decisionId,
    outcome,
    phase: settled.next.phase,
    reasons: record.reasons,
    message: record.message,
  };
}
