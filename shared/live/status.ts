/**
 * `governor status`: what one target's reads (./status-reads.ts) say, as a view an operator reads
 * like `kubectl describe hpa`, and `--json` prints as it is. Each read is a value or the problem
 * that stopped it (`Read`): one read that fails is shown as such, the others still are. Pure:
 * time comes in as `now`.
 *
 * The error budget is read off the stored ledger the way the evaluator reads it
 * (functions/evaluate/slo.ts): the ledger from the state item's `slo`, moved to `now`, and
 * budgetStatus over the policy's objective.
 */
import type { FailoverState } from '../failover/types.ts';
import type { SpotState } from '../interruptions/state.ts';
import type { MixState } from '../mix/types.ts';
import type { TargetPolicy } from '../policy/schema.ts';
import { budgetStatus } from '../slo/budget.ts';
import { forecastRoom, type RoomInput, writtenRoomOf } from '../slo/forecast-room.ts';
import { SliLedger } from '../slo/ledger.ts';
import { describeObjective, type ResolvedSlo, sloOf } from '../slo/objective.ts';
import type { StoredState } from '../state/item.ts';
import { type TimelineRow, timelineRow } from './decisions.ts';
import { describeSwitch } from './switch.ts';

export type Read<T> = { ok: true; value: T } | { ok: false; problem: string };

export interface Capacity {
  desired: number;
  ready: number;
  status: string;
}

export interface WarmPool {
  minSize: number;
  maxGroupPreparedCapacity: number | null;
  poolState: string;
}

export interface FailoverReads {
  groupId: string;
  routing: string;
  /** The group's stored planner state (null: none stored yet, the group is steady). */
  state: Read<FailoverState | null>;
  /** What the routing service says now, by region: weights, dials or On/Off (null: not read). */
  truth: Read<Record<string, number | string>> | null;
}

/** Everything `status` read about one target. */
export interface StatusReads {
  target: TargetPolicy;
  capacity: Read<Capacity>;
  lastRecord: Read<Record<string, unknown> | null>;
  state: Read<StoredState>;
  /** Running scale-target executions of this target (null: the stack has no state machine). */
  executions: Read<{ name: string; startedAt: number }[]> | null;
  /** Auto Scaling groups with a warmPool in the policy only. */
  warmPool: Read<WarmPool | null> | null;
  failover: FailoverReads | null;
  /** Targets with capacityMix only. */
  mix: Read<{ plan: MixState | null; spot: SpotState | null }> | null;
}

export interface TargetStatus {
  id: string;
  kind: TargetPolicy['kind'];
  resource: string;
  region: string;
  /** The mode of the last decision record: what the evaluate function ran in a minute ago. */
  mode: string | null;
  killSwitch: string;
  capacity: Capacity | { problem: string };
  lastDecision: TimelineRow | null | { problem: string };
  pending: { decisionId: string; desiredCapacity: number; at: string } | null;
  inFlight: { name: string; since: string }[] | null | { problem: string };
  /** The floor's step now; bandRatio: its forecast band, p90 / p50 (null: a level floor, or none stored). */
  forecastFloor: { capacity: number; until: string; bandRatio: number | null } | null;
  warmPool: WarmPool | null | { problem: string };
  failover:
    | {
        group: string;
        routing: string;
        phase: string;
        direction: string | null;
        source: string | null;
        intent: Record<string, number> | null;
        truth: Record<string, number | string> | null | { problem: string };
      }
    | { group: string; problem: string }
    | null;
  mix:
    | { plan: MixState['plan']; lastChangeAt: string | null; spot: SpotSummary | null }
    | { problem: string }
    | null;
  slo: SloSummary | null;
  problems: string[];
}

export interface SpotSummary {
  breakerOpenUntil: string | null;
  unavailablePools: string[];
  warnings: number;
}

export interface SloSummary {
  objective: string;
  attainment: number | null;
  observedMinutes: number;
  badMinutes: number;
  budgetLeft: number;
  fastBurn: number | null;
  slowBurn: number | null;
  headroomFactor: number | null;
  /** The forecast room's factor now, from the floor step's band, when it opens above headroomFactor; else null. */
  forecastRoom: { factor: number; bandRatio: number } | null;
  /** The stored factor stands past maxTargetFactor: in the spare room (shared/slo/control.ts spareCap). */
  spareRoom: boolean;
}

const iso = (t: number) => new Date(t).toISOString();
const orProblem = <T>(r: Read<T>): T | { problem: string } => (r.ok ? r.value : { problem: r.problem });

export function resourceOf(t: TargetPolicy): string {
  switch (t.kind) {
    case 'sagemaker-variant':
      return `endpoint ${t.endpointName}, variant ${t.variantName}`;
    case 'sagemaker-inference-component':
      return `inference component ${t.inferenceComponentName} on endpoint ${t.endpointName}`;
    case 'ec2-asg':
      return `Auto Scaling group ${t.autoScalingGroupName}`;
  }
}

/** The error budget as the evaluator reads it, at `now`; null without an SLI or a stored ledger. */
export function sloSummary(
  t: TargetPolicy,
  stored: StoredState['slo'],
  now: number,
  /** The floor's step now, for the forecast room: its band and the lead it was planned over. */
  floor: Pick<RoomInput, 'bandRatio' | 'lead'> | null = null,
): SloSummary | null {
  const slo = sloOf(t);
  if (!slo.sli) return null;
  const fast = slo.control?.fastWindowMinutes ?? 5;
  const slow = slo.control?.slowWindowMinutes ?? 60;
  const ledger = stored
    ? SliLedger.fromJSON(stored.ledger, fast, slo.windowMinutes)
    : new SliLedger(fast, slo.windowMinutes);
  ledger.advanceTo(Math.floor(now / 60_000));
  const status = budgetStatus(ledger, slo, slow, Math.floor(now / 60_000));
  return {
    objective: describeObjective(slo),
    attainment: status.attainment,
    observedMinutes: status.window.observed,
    badMinutes: status.window.bad,
    budgetLeft: status.remaining,
    fastBurn: status.fastBurn,
    slowBurn: status.slowBurn,
    headroomFactor: stored?.headroom.factor ?? null,
    forecastRoom: roomNow(t, slo.control, stored?.headroom.factor ?? 1, floor, status),
    spareRoom: slo.control != null && (stored?.headroom.factor ?? 1) > slo.control.maxTargetFactor,
  };
}

/** The forecast room the evaluator would open now (shared/slo/forecast-room.ts), or null. */
function roomNow(
  t: TargetPolicy,
  control: ResolvedSlo['control'],
  factor: number,
  floor: Pick<RoomInput, 'bandRatio' | 'lead'> | null,
  burn: RoomInput['burn'],
): SloSummary['forecastRoom'] {
  const bandRatio = floor?.bandRatio ?? null;
  if (!control || !floor || bandRatio === null) return null;
  const room = forecastRoom({
    factor,
    bandRatio,
    room: control.forecastRoom,
    writtenRoom: writtenRoomOf(t),
    burn,
    lead: floor.lead,
  });
  return room.opened ? { factor: room.factor, bandRatio } : null;
}

function failoverView(f: FailoverReads | null): TargetStatus['failover'] {
  if (!f) return null;
  if (!f.state.ok) return { group: f.groupId, problem: f.state.problem };
  const s = f.state.value;
  return {
    group: f.groupId,
    routing: f.routing,
    phase: s?.phase ?? 'steady (no state stored yet)',
    direction: s?.direction ?? null,
    source: s?.source ?? null,
    intent: s?.weights ?? null,
    truth: f.truth === null ? null : orProblem(f.truth),
  };
}

function spotSummary(spot: SpotState | null, now: number): SpotSummary | null {
  if (!spot) return null;
  return {
    breakerOpenUntil:
      spot.breakerOpenUntil !== null && spot.breakerOpenUntil > now ? iso(spot.breakerOpenUntil) : null,
    unavailablePools: Object.entries(spot.poolsUnavailableUntil)
      .filter(([, until]) => until > now)
      .map(([pool]) => pool),
    warnings: Object.keys(spot.warnings).length,
  };
}

/** The floor the forecast function stored, if its schedule covers `now`. */
function floorNow(state: StoredState, now: number): TargetStatus['forecastFloor'] {
  const f = state.forecastFloor;
  if (!f) return null;
  const step = Math.floor((now - f.startsAt) / (f.stepMinutes * 60_000));
  const capacity = f.capacities[step];
  if (step < 0 || capacity === undefined) return null;
  return {
    capacity,
    until: iso(f.startsAt + f.capacities.length * f.stepMinutes * 60_000),
    bandRatio: f.kind === 'level' ? null : (f.bandRatios?.[step] ?? null),
  };
}

/** The floor step's band and the lead the floor was planned over, for the forecast room. */
function roomFloor(
  state: StoredState | null,
  step: TargetStatus['forecastFloor'],
): Pick<RoomInput, 'bandRatio' | 'lead'> | null {
  const f = state?.forecastFloor;
  if (!f || !step) return null;
  const lead = {
    minutes: f.leadTimeMinutes,
    configuredMinutes: f.configuredLeadTimeMinutes ?? f.leadTimeMinutes,
  };
  return { bandRatio: step.bandRatio, lead };
}

export function targetStatus(reads: StatusReads, killSwitch: string | null, now: number): TargetStatus {
  const t = reads.target;
  const state = reads.state.ok ? reads.state.value : null;
  const record = reads.lastRecord.ok ? reads.lastRecord.value : null;
  const mode = typeof record?.mode === 'string' ? record.mode : null;
  const pending = state?.pending;
  const floorStep = state ? floorNow(state, now) : null;
  return {
    id: t.id,
    kind: t.kind,
    resource: resourceOf(t),
    region: t.region,
    mode,
    killSwitch: describeSwitch(killSwitch),
    capacity: orProblem(reads.capacity),
    lastDecision: reads.lastRecord.ok ? record && timelineRow(record) : { problem: reads.lastRecord.problem },
    pending: pending
      ? { decisionId: pending.decisionId, desiredCapacity: pending.desiredCapacity, at: iso(pending.at) }
      : null,
    inFlight:
      reads.executions === null
        ? null
        : reads.executions.ok
          ? reads.executions.value.map((e) => ({ name: e.name, since: iso(e.startedAt) }))
          : { problem: reads.executions.problem },
    forecastFloor: floorStep,
    warmPool: reads.warmPool === null ? null : orProblem(reads.warmPool),
    failover: failoverView(reads.failover),
    mix:
      reads.mix === null
        ? null
        : reads.mix.ok
          ? {
              plan: reads.mix.value.plan?.plan ?? null,
              lastChangeAt:
                reads.mix.value.plan?.lastChangeAt != null ? iso(reads.mix.value.plan.lastChangeAt) : null,
              spot: spotSummary(reads.mix.value.spot, now),
            }
          : { problem: reads.mix.problem },
    slo: sloSummary(t, state?.slo, now, roomFloor(state, floorStep)),
    problems: [...(reads.state.ok ? reads.state.value.problems : [`state item: ${reads.state.problem}`])],
  };
}
