/**
 * One hourly run of the forecast function, from the raw event to one outcome per target.
 * Order, so that a bad event or policy costs no metric read:
 *   parse the tick (malformed -> EventError) -> policy from SSM (invalid -> PolicyError) ->
 *   targets with forecast.enabled or noise.enabled -> which are due (GetItem: a floor and noise
 *   younger than refreshMinutes are kept) -> demand history, paged GetMetricData per region
 *   (five-minute and one-minute queries in one call where CloudWatch allows) -> each target:
 *   noise, forecast, floor (forecast or level), scheduled actions.
 * Every target is attempted; a target whose I/O failed fails the run at the end (after the
 * others are written), so the function's Errors metric and its alarm see it.
 * In shadow mode, or with the kill switch on (read every run; unreadable counts as on), floors
 * are still written (they act on nothing by themselves) but no scheduled action is put and no
 * warm pool resized: Governor's earlier scheduled actions are removed, so none fires later.
 */
import type { StoredForecastInputs } from '../../shared/aws/forecast-store.ts';
import { EventError, parseEvent } from '../../shared/control/events.ts';
import { isFresh } from '../../shared/control/forecast-floor.ts';
import type { HistoryNeed } from '../../shared/control/history-plan.ts';
import { storedLead } from '../../shared/control/lead-samples.ts';
import { isNoiseFresh } from '../../shared/control/noise.ts';
import { sourceProblems } from '../../shared/control/sources.ts';
import { ForecastFloorSchema, type StoredNoise, StoredNoiseSchema } from '../../shared/control/state.ts';
import { formatProblem, parsePolicyText } from '../../shared/policy/load.ts';
import type { PolicyFile, TargetPolicy } from '../../shared/policy/schema.ts';
import type { ForecastConfig } from './config.ts';
import { readHistories } from './history.ts';
import type { ForecastPorts } from './ports.ts';
import {
  errorText,
  forecastTarget,
  type RunContext,
  type TargetLead,
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

/** A target this run visits: whether its floor and its noise are due, and the lead it plans over. */
interface DueTarget {
  t: TargetPolicy;
  /** null for a target without a forecast (noise only). */
  lead: TargetLead | null;
}

/** The lead a forecast target plans over, and the problems of its stored samples. */
function leadOf(deps: ForecasterDeps, t: TargetPolicy, stored: StoredForecastInputs): TargetLead | null {
  if (!t.forecast?.enabled) return null;
  const { lead, problems } = storedLead(t.forecast.leadTimeMinutes, stored);
  for (const p of problems) deps.telemetry.warn(`state of ${t.id}: ${p}`, { targetId: t.id });
  const previous = ForecastFloorSchema.safeParse(stored.floor);
  return { ...lead, previousMinutes: previous.data?.leadTimeMinutes ?? null };
}

/** The stored noise, or undefined (a malformed one is set aside with a warning, and refitted). */
function noiseOf(deps: ForecasterDeps, t: TargetPolicy, raw: unknown): StoredNoise | undefined {
  if (raw === undefined) return undefined;
  const parsed = StoredNoiseSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(value)'} ${i.message}`).join('; ');
  deps.telemetry.warn(`state of ${t.id}: noise set aside (refitted this run): ${issues}`, { targetId: t.id });
  return undefined;
}

/**
 * The targets that are due, with the lead each is planned over, and a 'fresh' or 'failed'
 * outcome for the others. One GetItem a target reads the stored floor, the measured lead times
 * and the noise. A forecast target is due when its floor is not fresh (built over another lead
 * or noise term than now applies, or older than refreshMinutes) or its noise is not; a target
 * with noise alone when its noise is older than an hour.
 */
async function dueTargets(deps: ForecasterDeps, targets: TargetPolicy[], now: number) {
  const due: DueTarget[] = [];
  const outcomes: TargetOutcome[] = [];
  for (const t of targets) {
    try {
      const stored = await deps.ports.floors.read(t.id);
      const lead = leadOf(deps, t, stored);
      const noise = noiseOf(deps, t, stored.noise);
      const noiseFresh = !t.noise?.enabled || isNoiseFresh(t, noise, now);
      if (lead && (!isFresh(t, stored.floor, now, lead.minutes) || !noiseFresh)) due.push({ t, lead });
      else if (lead) {
        const floor = ForecastFloorSchema.parse(stored.floor);
        outcomes.push({ targetId: t.id, outcome: 'fresh', computedAt: floor.computedAt });
      } else if (!noiseFresh) due.push({ t, lead: null });
      else outcomes.push({ targetId: t.id, outcome: 'fresh', computedAt: noise!.computedAt, of: 'noise' });
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

/** What each due target reads: five-minute history for a forecast, one-minute for its noise. */
const needsOf = (due: DueTarget[]): HistoryNeed[] =>
  due.map(({ t, lead }) => ({ target: t, forecast: lead !== null, noise: t.noise?.enabled === true }));

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
    const targets = policy.targets.filter((t) => t.forecast?.enabled || t.noise?.enabled);
    if (targets.length === 0)
      deps.telemetry.info('no target has forecast.enabled or noise.enabled: nothing to forecast');
    const { due, outcomes } = await dueTargets(deps, targets, now);
    const histories = await readHistories(deps.ports, needsOf(due), now);
    const ctx: RunContext = { ...deps, now, withheld: due.length > 0 ? await withheld(deps) : null };
    for (const { t, lead } of due) {
      const h = histories.get(t.id)!;
      const outcome =
        h instanceof Error
          ? {
              targetId: t.id,
              outcome: 'failed' as const,
              detail: `cannot read demand history: ${errorText(h)}`,
            }
          : await forecastTarget(ctx, t, h, lead).catch(
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
