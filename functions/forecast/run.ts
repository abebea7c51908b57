/**
 * One hourly run of the forecast function, from the raw event to one outcome per target.
 * Order, so that a bad event or policy costs no metric read:
 *   parse the tick (malformed -> EventError) -> its origin (source, account, region against the
 *   deployment's) and age (at most MAX_TICK_AGE_SECONDS old, at most 60 s ahead): refused with
 *   no AWS call -> its id, claimed in the state table's tick ledger: a tick already run is
 *   refused (a failed run may run again) -> policy from SSM, main parameter and parts (invalid -> PolicyError) ->
 *   targets with forecast.enabled, noise.enabled or a burst floor -> which are due (GetItem: a
 *   floor younger than refreshMinutes, noise and burst demand younger than an hour are kept) ->
 *   demand history, paged GetMetricData per region (five-minute and one-minute queries in one
 *   call where CloudWatch allows) -> each target: noise, burst demand, forecast, floor (forecast
 *   or level), scheduled actions.
 * Every target is attempted; a target whose I/O failed fails the run at the end (after the
 * others are written), so the function's Errors metric and its alarm see it.
 * In shadow mode, or with the kill switch on (read every run, its one meaning in
 * shared/invocation/kill-switch.ts: only "off" lets changes through; missing or unreadable is on),
 * floors are still written (they act on nothing by themselves) but no scheduled action is put
 * and no warm pool resized. In shadow mode Governor's earlier scheduled actions are removed, so
 * none fires later; under the kill switch nothing is deleted either.
 * A target is not started with less than FORECAST_TARGET_MARGIN_MS left (outcome deferred,
 * DeadlineReached); the run then fails, so its retry (the same tick) redoes the rest.
 */
import { clip } from '../../shared/events/bounded.ts';
import { type Ignored, screenScheduledTick } from '../../shared/events/routing.ts';
import {
  deadlineReached,
  FORECAST_TARGET_MARGIN_MS,
  type TimeLeft,
  unlimited,
} from '../../shared/invocation/budget.ts';
import { errorText } from '../../shared/invocation/errors.ts';
import { readKillSwitch } from '../../shared/invocation/kill-switch.ts';
import type { PolicyFile } from '../../shared/policy/schema.ts';
import { readPolicy } from '../../shared/policy-store/read.ts';
import { burstMeasureOf } from '../../shared/state/burst-demand.ts';
import type { ForecastConfig } from './config.ts';
import type { RunContext } from './context.ts';
import { dueTargets, needsOf } from './due.ts';
import { readHistories } from './history.ts';
import { type TargetOutcome, type Withheld, warmFailed } from './outcomes.ts';
import type { ForecastPorts } from './ports.ts';
import { forecastTarget } from './target.ts';
import type { ForecastTelemetry } from './telemetry.ts';

export interface ForecasterDeps {
  config: ForecastConfig;
  ports: ForecastPorts;
  telemetry: ForecastTelemetry;
}

export interface ForecastReport {
  eventId: string;
  /** Why the tick was refused (foreign, stale, future, already run), or null when it ran. */
  ignored: Ignored | null;
  outcomes: TargetOutcome[];
}

/** What the Lambda context says about this run (tests give none). */
export interface ForecastInvocation {
  /** The function's own account, from invokedFunctionArn: ticks from others are refused. */
  account?: string;
  leftMs?: TimeLeft;
}

/** How far ahead a tick may be dated (clock skew). */
/** The function's timeout: a tick still "running" after longer than this was killed, and may run again. */
const RUN_TIMEOUT_MS = 300_000;

export class PolicyError extends Error {
  override name = 'PolicyError';
}

export class ForecastRunError extends Error {
  override name = 'ForecastRunError';
}

/**
 * The policy parameter and its parts under `<name>/parts/`, merged and validated as one
 * (shared/policy-store/read.ts); a bad part fails the run like a bad main parameter.
 */
async function loadPolicy(deps: ForecasterDeps): Promise<PolicyFile> {
  const merged = await readPolicy(deps.ports.parameters, deps.config.POLICY_PARAMETER_NAME);
  if (!merged.ok) {
    for (const line of merged.problems) deps.telemetry.error(`policy problem: ${line}`);
    throw new PolicyError(`no valid policy: ${merged.problems.join('; ')}`);
  }
  return merged.policy;
}

/** Why capacity-changing writes are withheld this run, or null when Governor is active. */
async function withheld(deps: ForecasterDeps): Promise<Withheld | null> {
  if (deps.config.GOVERNOR_MODE === 'shadow') return 'shadow';
  const name = deps.config.KILL_SWITCH_PARAMETER_NAME;
  const judged = await readKillSwitch((n) => deps.ports.parameters.get(n), name);
  if (!judged.on) return null;
  const line = `${judged.message}: no scheduled action is put or deleted, no warm pool resized`;
  if (judged.reason === 'On' || judged.reason === 'Release') deps.telemetry.info(line, { parameter: name });
  else deps.telemetry.error(line, { parameter: name, reason: judged.reason });
  return 'kill-switch';
}

const failed = (o: TargetOutcome) =>
  o.outcome === 'failed' ||
  o.outcome === 'deferred' ||
  (o.outcome === 'written' && (o.actions.status === 'failed' || warmFailed(o.warm)));

/** A tick's refusal for the log: its reason code and one sentence, with no AWS call after it. */
function refuse(deps: ForecasterDeps, id: string, ignored: Ignored): ForecastReport {
  const line = `tick refused: ${ignored.reason}: ${ignored.message}`;
  const attributes = { reason: ignored.reason, eventId: clip(id) };
  if (ignored.reason === 'DuplicateEvent') deps.telemetry.info(line, attributes);
  else deps.telemetry.warn(line, attributes);
  return { eventId: clip(id), ignored, outcomes: [] };
}

/** The tick's claim in the ledger, or why it is a duplicate. */
async function claim(deps: ForecasterDeps, id: string, now: number): Promise<Ignored | null> {
  const taken = await deps.ports.floors.claimTick(id, now, now - RUN_TIMEOUT_MS);
  if (taken.claimed) return null;
  const when = taken.startedAt ? ` at ${taken.startedAt}` : '';
  return {
    reason: 'DuplicateEvent',
    message: `tick ${clip(id, 64)} was already run${when} (${taken.status ?? 'recorded'} in the state table): nothing is done again`,
  };
}

export function createForecaster(deps: ForecasterDeps) {
  async function targetsOf(policy: PolicyFile, now: number, leftMs: TimeLeft) {
    const targets = policy.targets.filter(
      (t) => t.forecast?.enabled || t.noise?.enabled || burstMeasureOf(t) !== null,
    );
    if (targets.length === 0)
      deps.telemetry.info(
        'no target has forecast.enabled, noise.enabled or a burst floor: nothing to forecast',
      );
    const { due, outcomes } = await dueTargets(deps, targets, now);
    const histories = await readHistories(deps.ports, needsOf(due), now);
    const ctx: RunContext = { ...deps, now, leftMs, withheld: due.length > 0 ? await withheld(deps) : null };
    for (const { t, lead, floorFrom } of due) {
      const late = deadlineReached(
        leftMs(),
        FORECAST_TARGET_MARGIN_MS,
        "one target's floor and scheduled actions",
      );
      if (late) {
        outcomes.push({ targetId: t.id, outcome: 'deferred', detail: late });
        continue;
      }
      const h = histories.get(t.id)!;
      const outcome =
        h instanceof Error
          ? {
              targetId: t.id,
              outcome: 'failed' as const,
              detail: `cannot read demand history: ${errorText(h)}`,
            }
          : await forecastTarget(ctx, t, h, lead, floorFrom).catch(
              (error: unknown): TargetOutcome => ({
                targetId: t.id,
                outcome: 'failed',
                detail: errorText(error),
              }),
            );
      outcomes.push(outcome);
    }
    return outcomes;
  }

  return async function run(
    raw: unknown,
    now: number,
    invocation: ForecastInvocation = {},
  ): Promise<ForecastReport> {
    const { event, ignored: screened } = screenScheduledTick(
      raw,
      now,
      { account: invocation.account, region: deps.config.AWS_REGION },
      deps.config.MAX_TICK_AGE_SECONDS,
      'event field detail-type is an alarm: the forecast function runs on its hourly "Scheduled Event"',
    );
    if (screened) return refuse(deps, event.id, screened);
    const duplicate = await claim(deps, event.id, now);
    if (duplicate) return refuse(deps, event.id, duplicate);
    try {
      const report = await runTick(event.id, now, invocation.leftMs ?? unlimited);
      await finish(event.id, 'done', now);
      return report;
    } catch (error) {
      await finish(event.id, 'failed', now);
      throw error;
    }
  };

  /** Records how the tick ended; a failure to record is logged (the TTL clears the item anyway). */
  async function finish(id: string, status: 'done' | 'failed', now: number) {
    await deps.ports.floors.finishTick(id, status, now).catch((error: unknown) =>
      deps.telemetry.error(`cannot record tick ${clip(id, 64)} as ${status} in the state table`, {
        error: errorText(error),
      }),
    );
  }

  async function runTick(id: string, now: number, leftMs: TimeLeft): Promise<ForecastReport> {
    const policy = await loadPolicy(deps);
    const outcomes = await targetsOf(policy, now, leftMs);
    for (const o of outcomes) deps.telemetry.outcome(o);
    const bad = outcomes.filter(failed);
    if (bad.length > 0)
      throw new ForecastRunError(
        `forecast failed for ${bad.length} of ${outcomes.length} targets: ${bad.map((o) => o.targetId).join(', ')} (see the log)`,
      );
    return { eventId: clip(id), ignored: null, outcomes };
  }
}
