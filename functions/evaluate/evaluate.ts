/**
 * One invocation of the evaluate function, from raw event to decision records. Order, so that
 * an event that will be ignored costs no AWS call:
 *   parse (malformed -> EventError) -> age and alarm screening -> duplicate id -> policy
 *   (cached) -> which targets -> kill switch (read every evaluating invocation) -> observe
 *   (batched reads) -> each target: decide, claim, act, record.
 */

import type { Config, Mode } from '../../shared/control/config.ts';
import { type GovernorEvent, parseEvent } from '../../shared/control/events.ts';
import { auditItem, type DecisionRecord, newDecisionId, type Trigger } from '../../shared/control/records.ts';
import { type Ignored, RecentIds, routeEvent, screenEvent } from '../../shared/control/routing.ts';
import type { TargetPolicy } from '../../shared/policy/schema.ts';
import { observe } from './observe.ts';
import type { PolicySource } from './policy-source.ts';
import type { Ports } from './ports.ts';
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
}

const jitteredBackoff = (attempt: number) =>
  new Promise<void>((r) => setTimeout(r, attempt * (10 + Math.random() * 40)));

/** The kill switch is read on every evaluating invocation; unreadable counts as on (fail safe). */
async function killSwitchOn(deps: EvaluatorDeps): Promise<boolean> {
  try {
    const value = await deps.ports.parameters.get(deps.config.KILL_SWITCH_PARAMETER_NAME);
    return value?.trim().toLowerCase() === 'on';
  } catch (error) {
    deps.telemetry.error('cannot read the kill switch: treating it as on, no action this invocation', {
      parameter: deps.config.KILL_SWITCH_PARAMETER_NAME,
      error: error instanceof Error ? error.message : String(error),
    });
    return true;
  }
}

const triggerOf = (e: GovernorEvent): Trigger =>
  e.kind === 'tick'
    ? { event: 'tick', eventId: e.id }
    : { event: 'alarm', eventId: e.id, alarmName: e.alarmName };

export function createEvaluator(deps: EvaluatorDeps) {
  const recent = new RecentIds();
  const clock = deps.clock ?? (() => performance.now());
  const mode = deps.mode ?? deps.config.GOVERNOR_MODE;

  async function evaluateTargets(
    event: GovernorEvent,
    targets: TargetPolicy[],
    now: number,
    started: number,
  ) {
    const ctx: TargetContext = {
      config: deps.config,
      mode,
      ports: deps.ports,
      telemetry: deps.telemetry,
      now,
      killSwitch: await killSwitchOn(deps),
      trigger: triggerOf(event),
      newId: deps.newId ?? newDecisionId,
      backoff: deps.backoff ?? jitteredBackoff,
    };
    const observed = await observe(deps.ports, targets, now);
    for (const p of observed.problems) deps.telemetry.warn(`metrics: ${p}`);
    return Promise.all(
      targets.map(async (t) => {
        const record = await evaluateTarget(ctx, t, {
          capacity: observed.capacity.get(t.id)!,
          conflict: observed.conflicts.get(t.id)!,
          readings: observed.readings.get(t.id),
        }).catch((error: unknown) =>
          failedRecord(
            ctx,
            t,
            `evaluation failed: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`,
          ),
        );
        if (deps.writeAudit !== false) {
          await deps.ports.state
            .putAudit(auditItem(record, deps.config.AUDIT_TTL_DAYS))
            .catch((error: unknown) =>
              deps.telemetry.error('cannot write the decision record', {
                targetId: t.id,
                error: String(error),
              }),
            );
        }
        deps.telemetry.decision(record, Math.round(clock() - started));
        return record;
      }),
    );
  }

  return async function evaluate(raw: unknown, now: number): Promise<InvocationReport> {
    const started = clock();
    const event = parseEvent(raw);
    const summary = { kind: event.kind, id: event.id };
    const ignore = (ignored: Ignored): InvocationReport => {
      deps.telemetry.info(`event ignored: ${ignored.message}`, { reason: ignored.reason, eventId: event.id });
      return { event: summary, ignored, records: [] };
    };
    const screened = screenEvent(event, now, deps.config.MAX_EVENT_AGE_SECONDS);
    if (screened) return ignore(screened);
    if (!recent.firstTime(event.id)) {
      return ignore({
        reason: 'DuplicateEvent',
        message: `event ${event.id} was already evaluated by this container`,
      });
    }
    try {
      const route = routeEvent(event, await deps.policy.current(now));
      if ('reason' in route) return ignore(route);
      const records = await evaluateTargets(event, route.targets, now, started);
      // "Successful" needs one target evaluated: every target failing must trip the template's alarm.
      if (records.some((r) => r.outcome !== 'failed'))
        deps.telemetry.invocationSucceeded(Math.round(clock() - started));
      return { event: summary, ignored: null, records };
    } catch (error) {
      recent.forget(event.id); // a retry of a failed invocation must not be dropped as a duplicate
      throw error;
    }
  };
}
