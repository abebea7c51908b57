/**
 * One hourly run of the forecast function, from the raw event to one outcome per target.
 * Order, so that a bad event or policy costs no metric read:
 *   parse the tick (malformed -> EventError) -> policy from SSM (invalid -> PolicyError) ->
 *   targets with forecast.enabled -> which are due (GetItem: a floor younger than
 *   refreshMinutes is kept) -> demand history, one paged GetMetricData per region ->
 *   each target: forecast, floor, scheduled actions.
 * Every target is attempted; a target whose I/O failed fails the run at the end (after the
 * others are written), so the function's Errors metric and its alarm see it.
 * In shadow mode, or with the kill switch on (read every run; unreadable counts as on), floors
 * are still written (they act on nothing by themselves) but no scheduled action is put and no
 * warm pool resized: Governor's earlier scheduled actions are removed, so none fires later.
 */
import { MAX_HISTORY_QUERIES } from '../../shared/aws/demand-history.ts';
import {
  type DemandHistory,
  demandHistory,
  demandQueries,
  fromFirstPresent,
  HISTORY_PERIOD_SECONDS,
  type HistoryQuery,
  type HistoryWindow,
  historyWindow,
} from '../../shared/control/demand.ts';
import { EventError, parseEvent } from '../../shared/control/events.ts';
import { isFresh } from '../../shared/control/forecast-floor.ts';
import { sourceProblems } from '../../shared/control/sources.ts';
import { formatProblem, parsePolicyText } from '../../shared/policy/load.ts';
import type { PolicyFile, TargetPolicy } from '../../shared/policy/schema.ts';
import type { ForecastConfig } from './config.ts';
import type { ForecastPorts } from './ports.ts';
import {
  errorText,
  forecastTarget,
  type RunContext,
  type TargetOutcome,
  type Withheld,
  warmFailed,
} from './target.ts';
import type { ForecastTelemetry } from './telemetry.ts';

export interface ForecasterDeps {
  config: ForecastConfig;
  ports: ForecastPorts;
  telemetry: ForecastTelemetry;
}

export interface ForecastReport {
  eventId: string;
  outcomes: TargetOutcome[];
}

export class PolicyError extends Error {
  override name = 'PolicyError';
}

export class ForecastRunError extends Error {
  override name = 'ForecastRunError';
}

async function loadPolicy(deps: ForecasterDeps): Promise<PolicyFile> {
  const name = deps.config.POLICY_PARAMETER_NAME;
  const text = await deps.ports.parameters.get(name);
  if (text === null)
    throw new PolicyError(`policy parameter ${name} does not exist: create it with the policy YAML`);
  const parsed = parsePolicyText(text);
  const problems = parsed.ok ? sourceProblems(parsed.policy.targets) : parsed.problems;
  if (!parsed.ok || problems.length > 0) {
    const lines = problems.map(formatProblem);
    for (const line of lines) deps.telemetry.error(`policy problem: ${name}: ${line}`);
    throw new PolicyError(`no valid policy in ${name}: ${lines.join('; ')}`);
  }
  return parsed.policy;
}

/** Why capacity-changing writes are withheld this run, or null when Governor is active. */
async function withheld(deps: ForecasterDeps): Promise<Withheld | null> {
  if (deps.config.GOVERNOR_MODE === 'shadow') return 'shadow';
  try {
    const value = await deps.ports.parameters.get(deps.config.KILL_SWITCH_PARAMETER_NAME);
    return value?.trim().toLowerCase() === 'on' ? 'kill-switch' : null;
  } catch (error) {
    deps.telemetry.error('cannot read the kill switch: treating it as on, no scheduled action or warm pool', {
      parameter: deps.config.KILL_SWITCH_PARAMETER_NAME,
      error: errorText(error),
    });
    return 'kill-switch';
  }
}

type Histories = Map<string, { demand: DemandHistory; window: HistoryWindow } | Error>;

/** One target's part of its region's history: the last historyDays (the windows end together), from its first datapoint. */
function ownSlice(t: TargetPolicy, demand: DemandHistory, now: number) {
  const window = historyWindow(now, t.forecast!.historyDays);
  if (!demand.ok) return { demand, window };
  const bins = Math.round((window.end - window.start) / (HISTORY_PERIOD_SECONDS * 1000));
  return { demand: { ...demand, history: fromFirstPresent(demand.history.slice(-bins)) }, window };
}

/** Demand history of the due targets: per region, one window (the longest historyDays), paged calls. */
async function readHistories(deps: ForecasterDeps, due: TargetPolicy[], now: number): Promise<Histories> {
  const out: Histories = new Map();
  const regions = [...new Set(due.map((t) => t.region))];
  for (const region of regions) {
    const targets = due.filter((t) => t.region === region);
    const window = historyWindow(now, Math.max(...targets.map((t) => t.forecast!.historyDays)));
    const queries = demandQueries(targets);
    for (let i = 0; i < queries.length; i += MAX_HISTORY_QUERIES) {
      const chunk = queries.slice(i, i + MAX_HISTORY_QUERIES);
      const inChunk = targets.filter((t) => chunk.some((q) => q.targetId === t.id));
      try {
        const results = await deps.ports.history.demand(region, chunk, window);
        for (const t of inChunk) {
          const own: HistoryQuery[] = chunk.filter((q) => q.targetId === t.id);
          out.set(t.id, ownSlice(t, demandHistory(own, results, window), now));
        }
      } catch (error) {
        for (const t of inChunk) out.set(t.id, error instanceof Error ? error : new Error(String(error)));
      }
    }
  }
  return out;
}

/** The targets whose floor is due, and a 'fresh' or 'failed' outcome for the others. */
async function dueTargets(deps: ForecasterDeps, targets: TargetPolicy[], now: number) {
  const due: TargetPolicy[] = [];
  const outcomes: TargetOutcome[] = [];
  for (const t of targets) {
    try {
      const stored = await deps.ports.floors.read(t.id);
      if (isFresh(t, stored, now))
        outcomes.push({
          targetId: t.id,
          outcome: 'fresh',
          computedAt: (stored as { computedAt: number }).computedAt,
        });
      else due.push(t);
    } catch (error) {
      outcomes.push({
        targetId: t.id,
        outcome: 'failed',
        detail: `cannot read the stored floor: ${errorText(error)}`,
      });
    }
  }
  return { due, outcomes };
}

const failed = (o: TargetOutcome) =>
  o.outcome === 'failed' ||
  (o.outcome === 'written' && (o.actions.status === 'failed' || warmFailed(o.warm)));

export function createForecaster(deps: ForecasterDeps) {
  return async function run(raw: unknown, now: number): Promise<ForecastReport> {
    const event = parseEvent(raw);
    if (event.kind !== 'tick')
      throw new EventError(
        'event field detail-type is an alarm: the forecast function runs on its hourly "Scheduled Event"',
      );
    const policy = await loadPolicy(deps);
    const targets = policy.targets.filter((t) => t.forecast?.enabled);
    if (targets.length === 0) deps.telemetry.info('no target has forecast.enabled: nothing to forecast');
    const { due, outcomes } = await dueTargets(deps, targets, now);
    const histories = await readHistories(deps, due, now);
    const ctx: RunContext = { ...deps, now, withheld: due.length > 0 ? await withheld(deps) : null };
    for (const t of due) {
      const h = histories.get(t.id)!;
      const outcome =
        h instanceof Error
          ? {
              targetId: t.id,
              outcome: 'failed' as const,
              detail: `cannot read demand history: ${errorText(h)}`,
            }
          : await forecastTarget(ctx, t, h.demand, h.window).catch(
              (error: unknown): TargetOutcome => ({
                targetId: t.id,
                outcome: 'failed',
                detail: errorText(error),
              }),
            );
      outcomes.push(outcome);
    }
    for (const o of outcomes) deps.telemetry.outcome(o);
    const bad = outcomes.filter(failed);
    if (bad.length > 0)
      throw new ForecastRunError(
        `forecast failed for ${bad.length} of ${outcomes.length} targets: ${bad.map((o) => o.targetId).join(', ')} (see the log)`,
      );
    return { eventId: event.id, outcomes };
  };
}
