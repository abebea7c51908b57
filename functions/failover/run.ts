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
import { initialFailoverState, stepFailover } from '../../shared/failover/plan.ts';
import { type FailoverState, FailoverStateSchema } from '../../shared/failover/types.ts';
import { errorText } from '../../shared/invocation/errors.ts';
import { readKillSwitch } from '../../shared/invocation/kill-switch.ts';
import type { PolicyFile } from '../../shared/policy/schema.ts';
import { readPolicy } from '../../shared/policy-store/read.ts';
import { healthQueries, observation, type RegionRead } from '../../shared/signals/failover-observe.ts';
import type { FailoverConfig } from './config.ts';
import type { FailoverPorts } from './ports.ts';

export type FailoverOutcome =
  | 'started'
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
}

export interface FailoverDeps {
  config: FailoverConfig;
  ports: FailoverPorts;
  telemetry: FailoverTelemetry;
  random?: () => number;
}

/** A caught error as text, clipped: its message may quote what a sender controls. */
const clipped = (e: unknown) => clip(errorText(e));

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
    const judged =
      deps.config.GOVERNOR_MODE === 'shadow'
        ? null
        : await readKillSwitch((n) => deps.ports.parameters.get(n), deps.config.KILL_SWITCH_PARAMETER_NAME);
    const outcomes: GroupOutcome[] = [];
    for (const g of groups) outcomes.push(await evaluateGroup(deps, policy, g, event.id, now, judged));
    return { eventId: event.id, ignored: null, groups: outcomes };
  };
}

async function readRegions(deps: FailoverDeps, policy: PolicyFile, g: ResolvedGroup, now: number) {
  const queries = healthQueries(g, policy.targets, deps.config.METRIC_NAMESPACE);
  const reads: Record<string, RegionRead> = {};
  const window = {
    start: Math.floor(now / 60_000) * 60_000 - g.health.staleAfterSeconds * 1000 - 60_000,
    end: Math.floor(now / 60_000) * 60_000,
  };
  for (const m of g.members) {
    const t = policy.targets.find((x) => x.id === m.targetId)!;
    const read: RegionRead = { results: null };
    const attempt = async (what: string, f: () => Promise<void>) => {
      try {
        await f();
      } catch (e) {
        deps.telemetry.info(`${g.id}: ${what} in ${m.region} unreadable, left missing: ${clipped(e)}`);
      }
    };
    await attempt('metrics', async () => {
      read.results = await deps.ports.metrics.getMetricData(
        m.region,
        queries.filter((q) => q.region === m.region),
        window,
      );
    });
    await attempt('capacity', async () => {
      const c =
        t.kind === 'sagemaker-variant'
          ? await deps.ports.sageMaker.variantCapacity(t.region, t.endpointName, t.variantName)
          : t.kind === 'sagemaker-inference-component'
            ? await deps.ports.sageMaker.componentCapacity(t.region, t.inferenceComponentName)
            : (await deps.ports.groups.describeGroups(t.region, [t.autoScalingGroupName])).get(
                t.autoScalingGroupName,
              )?.capacity;
      if (c) read.capacity = { desired: c.desired, ready: c.ready };
    });
    await attempt('heartbeat', async () => {
      const beat = await deps.ports.heartbeats.lastBeat(m.region, m.targetId);
      if (beat !== null) read.lastBeatAt = beat;
    });
    reads[m.region] = read;
  }
  return observation(g, queries, reads, now);
}

interface Stored {
  state: FailoverState;
  version: number | null;
  mode: string | null;
  lastEventId: string | null;
}

function decode(deps: FailoverDeps, g: ResolvedGroup, item: Record<string, unknown> | undefined): Stored {
  if (!item) return { state: initialFailoverState(g), version: null, mode: null, lastEventId: null };
  const parsed = FailoverStateSchema.safeParse(item.state);
  if (!parsed.success) deps.telemetry.error(`${g.id}: stored state malformed, starting from steady`);
  return {
    state: parsed.success ? parsed.data : initialFailoverState(g),
    version: typeof item.version === 'number' ? item.version : null,
    mode: typeof item.mode === 'string' ? item.mode : null,
    lastEventId: typeof item.lastEventId === 'string' ? item.lastEventId : null,
  };
}

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
  const acting = mode === 'active' && !killed && needsExecution(result.actions);
  const next: FailoverState = killed ? { ...prev, health: result.state.health } : result.state;
  const at = new Date(now).toISOString();
  const won = await deps.ports.store.write(g.id, stored.version, {
    state: next,
    mode,
    lastEventId: eventId,
    updatedAt: at,
    lastDecisionId: decisionId,
    floors: result.floors,
  });
  let outcome: FailoverOutcome = !won
    ? 'superseded'
    : mode === 'shadow'
      ? 'shadow'
      : killed
        ? 'killed'
        : acting
          ? 'started'
          : 'recorded';
  let detail = killed ? (judged?.message ?? '') : '';
  if (won && acting) {
    try {
      const input = failoverInput({
        decisionId,
        group: g,
        targets: policy.targets,
        decision: result.decision,
        actions: result.actions,
        previousWeights: prev.weights,
        killSwitchValue: judged?.value ?? '',
        now,
        expiresAt: expiresAtFor(at, deps.config.AUDIT_TTL_DAYS),
      });
      const started = await deps.ports.executions.start(
        deps.config.FAILOVER_STATE_MACHINE_ARN,
        decisionId,
        input,
      );
      if (started.duplicate) outcome = 'duplicate';
    } catch (e) {
      outcome = 'failed';
      detail = `the failover state machine did not start: ${clipped(e)}`;
    }
  }
  const record = {
    pk: `FAILOVER#${g.id}`,
    sk: `DECISION#${at}#${decisionId}`,
    decisionId,
    groupId: g.id,
    at,
    mode,
    outcome,
    phase: result.decision.phase,
    previousPhase: result.decision.previousPhase,
    reasons: result.decision.reasons,
    message: result.decision.message,
    weights: result.decision.weights,
    actions: outcome === 'started' ? result.actions : [],
    planned: result.actions,
    health: Object.fromEntries(
      Object.entries(result.decision.health).map(([r, h]) => [
        r,
        { status: h.status, reasons: h.reasons, message: clip(h.message) },
      ]),
    ),
    detail,
    expiresAt: expiresAtFor(at, deps.config.AUDIT_TTL_DAYS),
  };
  await deps.ports.store.putRecord(record);
  deps.telemetry.decision(record);
  if (outcome === 'failed') throw new Error(`${g.id}: ${detail}`);
  return {
    groupId: g.id,
    decisionId,
    outcome,
    phase: result.decision.phase,
    reasons: result.decision.reasons,
    message: result.decision.message,
  };
}
