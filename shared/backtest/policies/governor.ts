/**
 * The governor policy: the policy file's target through the real decide() of
 * shared/engine/decide.ts, the same code that runs in Lambda, with its engine state carried
 * from tick to tick as DynamoDB would carry it. Each minute it gets the snapshot the Lambda
 * would read: the newest delivered datapoint of each signal, stamped with its minute and the
 * ready count it was averaged over (Reading.basis), capacity.desired = ready + pending and
 * capacity.ready = ready.
 *
 * Units: request-based signals are multiplied by k = requestsPerMinuteAtSlo / mu, so a policy
 * written for instances that serve 120 requests a minute at the SLO reads the trace as if its
 * instances did (Scenario.policyUnitScale); percentages and latencies need no scaling.
 */

import { decide } from '../../engine/decide.ts';
import { describeDecision } from '../../engine/message.ts';
import type { EngineState, ReasonCode, SignalSnapshot } from '../../engine/types.ts';
import { bandRatioOf } from '../../floors/forecast.ts';
import { effectiveLead } from '../../floors/lead-time.ts';
import { DEFAULT_LEAD_TIME_MINUTES } from '../../policy/forecast-schema.ts';
import { plannedRequestsPerInstance, type TargetPolicy } from '../../policy/schema.ts';
import { basisSource } from '../../signals/sources.ts';
import { type NoiseModel, rescaleNoise } from '../../sizing/noise-model.ts';
import {
  BURST_MEASURE_MINUTES,
  type BurstDemand,
  type BurstFloorDecision,
  type BurstFloorState,
  burstFloor,
  burstTriggered,
  measureBurstDemand,
} from '../../slo/burst-floor.ts';
import type { HeadroomState } from '../../slo/control.ts';
import { forecastRoom, type RoomDecision, type RoomInput, writtenRoomOf } from '../../slo/forecast-room.ts';
import { annotateDecision, floorWithHeadroom, headroomReasons, withHeadroom } from '../../slo/headroom.ts';
import { SliLedger, type SliSample } from '../../slo/ledger.ts';
import { sloOf } from '../../slo/objective.ts';
import { type SloStep, sliSample, stepSlo } from '../../slo/step.ts';
import type { DecisionMark } from '../types.ts';
import { ScaleOutClock } from './lead-clock.ts';
import type { Lookahead, LookaheadFloor } from './lookahead.ts';
import { readersOf, snapshotWith } from './snapshot.ts';
import type { FleetView, Policy } from './types.ts';

export interface GovernorOptions {
  /** Shown in the table: 'governor', or 'governor-reactive' without the look-ahead. */
  name?: string;
  target: TargetPolicy;
  /** Forecast floor and warm-pool sizing (absent: reactive only). */
  lookahead?: Lookahead;
  /** k: request signals are multiplied by it. */
  unitScale: number;
  warmPoolSize: number;
}

/**
 * The error-budget control as the evaluator runs it: each minute the newly delivered datapoints'
 * latency readings go into the SLI ledger and the headroom moves; the decision is made with the
 * load targets times the factor and the floor divided by it, or by the forecast room's factor
 * where the minute's forecast band earns it (shared/slo/forecast-room.ts), as the evaluator reads
 * the band stored beside the floor. Null: the target has no objective
 * with control (no latency signal, or control off), and decide() sees the policy as written.
 */
function budgetControl(target: TargetPolicy, unitScale: number) {
  const slo = sloOf(target);
  const control = slo.control;
  const sli = slo.sli;
  if (!control || !sli) return null;
  const ledger = new SliLedger(control.fastWindowMinutes, slo.windowMinutes);
  const withControl = { ...slo, control };
  const field = sli.metric;
  let seen = 0;
  let state: HeadroomState | undefined;
  const targets = new Map<number, TargetPolicy>();
  const writtenRoom = writtenRoomOf(target);
  let lastRoom: { factor: number; target: TargetPolicy } | null = null;
  let burstState: BurstFloorState | undefined;
  /** The burst demand measured at a whole hour of delivered minutes (as the forecast function measures it hourly). */
  let measured: { at: number; value: BurstDemand | null } | null = null;
  const rpmAtSlo = target.instanceCapacity?.requestsPerMinuteAtSlo;
  const planned = plannedRequestsPerInstance(target);
  const burstOn = control.burstFloor.enabled && rpmAtSlo !== undefined;
  /** The ledger counts the trace's requests, the floor reads the policy's units. */
  const scaled = (v: number | null) => (v === null ? null : v * unitScale);
  /**
   * The burst floor this minute (shared/slo/burst-floor.ts). The demand quantile and the level are
   * computed only while the floor is triggered or stands; the quantile is the one measured at the
   * last whole hour of delivered minutes, what an hourly measurement would hold.
   */
  const burst = (view: FleetView, step: SloStep, room: RoomDecision): BurstFloorDecision | null => {
    const now = view.now;
    const trigger = { pace: step.status.pace, budgetFactor: step.headroom.factor, control };
    const until = burstState?.standUntil ?? null;
    if (!burstTriggered(trigger) && (until === null || now >= until)) {
      burstState = undefined;
      return null;
    }
    const delivered = view.metrics.count;
    const hour = delivered - (delivered % BURST_MEASURE_MINUTES);
    if (measured?.at !== hour) {
      // The delivered requests of the window before that hour, in the policy's units.
      const from = Math.max(0, hour - control.burstFloor.windowMinutes);
      const window = new Float64Array(hour - from);
      for (let i = from; i < hour; i++) window[i - from] = view.metrics.valueAt(i, 'requests') * unitScale;
      const at = now - (delivered - hour) * 60_000;
      measured = { at: hour, value: measureBurstDemand(window, slo.minutes, control, at) };
    }
    const decision = burstFloor(burstState, {
      now,
      ...trigger,
      appliedFactor: room.factor,
      measured: measured.value,
      level: scaled(ledger.fastLevel()),
      requestsPerMinuteAtSlo: rpmAtSlo,
      plannedRequestsPerInstance: planned,
    });
    burstState = decision.state;
    return decision;
  };
  /** The target under a factor: the budget's kept by value, the room's one at a time (it moves with the band). */
  const scaledTarget = (room: RoomDecision): TargetPolicy => {
    const f = room.factor;
    if (room.opened) {
      if (lastRoom?.factor !== f) lastRoom = { factor: f, target: withHeadroom(target, f) };
      return lastRoom.target;
    }
    let scaled = targets.get(f);
    if (!scaled) {
      scaled = withHeadroom(target, f);
      targets.set(f, scaled);
    }
    return scaled;
  };
  return {
    /** bandRatio: the forecast band of the minute (p90 / p50), null without one; lead: the measured lead now, the next floor's. */
    step(
      view: FleetView,
      bandRatio: number | null,
      lead: RoomInput['lead'],
    ): { step: SloStep; room: RoomDecision; target: TargetPolicy; burst: BurstFloorDecision | null } {
      const samples: SliSample[] = [];
      for (; seen < view.metrics.count; seen++) {
        // One field at a time: no datapoint object built per simulated minute.
        const m = view.metrics;
        const s = sliSample(
          m.valueAt(seen, 'minute'),
          m.valueAt(seen, field),
          sli.sloMs,
          m.valueAt(seen, 'requests'),
        );
        if (s) samples.push(s);
      }
      const step = stepSlo(ledger, state, samples, withControl, view.now);
      state = step.headroom.state;
      const room = forecastRoom({
        factor: step.headroom.factor,
        bandRatio,
        room: control.forecastRoom,
        writtenRoom,
        burn: step.status,
        lead,
      });
      const b = burstOn ? burst(view, step, room) : null;
      // While the burst floor holds the headroom the lowered targets would, the targets stand as written.
      return { step, room, target: b?.asWritten ? target : scaledTarget(room), burst: b };
    },
  };
}

export function governorPolicy(options: GovernorOptions): Policy {
  const { target, unitScale } = options;
  let state: EngineState | undefined;
  /** Reasons counted in a Map (a keyed object's increments were a twentieth of a minute); the same order out. */
  const reasonCounts = new Map<ReasonCode, number>();
  const count = (code: ReasonCode) => reasonCounts.set(code, (reasonCounts.get(code) ?? 0) + 1);
  const decisions: DecisionMark[] = [];
  const { lookahead } = options;
  const quantile = target.forecast?.quantile ?? 'p90';
  const clock = new ScaleOutClock();
  const configuredLead = target.forecast?.leadTimeMinutes ?? DEFAULT_LEAD_TIME_MINUTES;
  let lead = effectiveLead(configuredLead, []);
  /** The lead now against the configured one, for the forecast room (a new object only when it moves). */
  let roomLead: RoomInput['lead'] = { minutes: lead.minutes, configuredMinutes: configuredLead };
  const budget = budgetControl(target, unitScale);
  const readsBasis = basisSource(target) !== null;
  // The budget's scaled targets change the signals' targets, never which metrics they read.
  const readers = readersOf(target);
  let spotHeadroom = 0;
  let floors = { committed: 0, lossCover: 0 };
  /** The snapshot's lead and noise, new objects only when they change (decide() only reads them). */
  let leadTime: SignalSnapshot['leadTime'];
  let noiseFit: NoiseModel | null = null;
  let scaledNoise: NoiseModel | null = null;
  const step = (view: FleetView, minute: number): number => {
    if (clock.observe(view.ready, view.now)) {
      lead = effectiveLead(configuredLead, clock.samples);
      roomLead = { minutes: lead.minutes, configuredMinutes: configuredLead };
    }
    let floor: LookaheadFloor | undefined;
    if (lookahead) {
      lookahead.setLeadMinutes(lead.minutes);
      lookahead.update(view.metrics, minute);
      floor = lookahead.floorAt(minute);
    }
    // The forecast band of the minute (the one its floor was planned from), for the room.
    const band =
      floor?.kind === 'forecast' && lookahead
        ? bandRatioOf(lookahead.p50[minute]!, lookahead.p90[minute]!)
        : null;
    const slo = budget?.step(view, band, roomLead);
    const factor = slo?.burst?.asWritten ? 1 : (slo?.room.factor ?? 1);
    const policy = slo?.target ?? target;
    const snapshot = snapshotWith(view, readers, unitScale, readsBasis);
    // The factor goes with the lowered targets, as the evaluator gives it: a young panic is sized without it.
    if (factor !== 1) snapshot.headroomFactor = factor;
    if (lookahead) {
      if (floor?.kind === 'forecast') {
        snapshot.forecastFloor = {
          capacity: floorWithHeadroom(floor.capacity, factor),
          quantile,
          ...(floor.fallback ? { fallback: floor.fallback } : {}),
        };
        if (leadTime?.minutes !== lead.minutes || leadTime.samples !== lead.samples)
          leadTime = { minutes: lead.minutes, configuredMinutes: configuredLead, samples: lead.samples };
        snapshot.leadTime = leadTime;
      } else if (floor)
        snapshot.forecastFloor = {
          capacity: floorWithHeadroom(floor.capacity, factor),
          quantile,
          kind: 'level',
        };
      const noise = lookahead.noise;
      if (noise) {
        // Rescaled once per fit (hourly), not per minute.
        if (noise !== noiseFit) {
          noiseFit = noise;
          scaledNoise = rescaleNoise(noise, unitScale);
        }
        snapshot.noise = scaledNoise!;
      }
    }
    if (slo?.burst?.floor) snapshot.burstFloor = slo.burst.floor;
    if (spotHeadroom > 0) {
      // The mix's floors go to the engine with the headroom, as the evaluator gives them in AWS.
      snapshot.spotHeadroom = { instances: spotHeadroom };
      if (floors.committed > 0) snapshot.committedFloor = { capacity: floors.committed };
      if (floors.lossCover > 0) snapshot.mixFloor = { capacity: floors.lossCover };
    }
    // The sentence is built for scaling actions only, the ones the report shows.
    const decided = decide(state, snapshot, policy, view.now, { sentence: false });
    clock.decided(decided.decision.currentCapacity, decided.decision.desiredCapacity, view.now);
    state = decided.state;
    let d = decided.decision;
    if (d.action === 'hold') {
      // A hold is only counted: its reasons and the control's, without the annotated decision.
      for (const code of d.reasons) count(code);
      if (slo) for (const code of headroomReasons(slo.step.headroom, slo.room)) count(code);
      return d.desiredCapacity;
    }
    if (slo)
      d = annotateDecision(decided, slo.step.headroom, slo.step.status, policy, false, slo.room).decision;
    for (const code of d.reasons) count(code);
    decisions.push({
      minute,
      action: d.action,
      from: d.currentCapacity,
      to: d.desiredCapacity,
      reasons: d.reasons,
      message: describeDecision(d, policy),
    });
    return d.desiredCapacity;
  };
  return {
    name: options.name ?? 'governor',
    decide: step,
    setSpotHeadroom: (instances, now) => {
      spotHeadroom = instances;
      floors = now;
    },
    warmPoolSize: options.warmPoolSize,
    ...(lookahead?.warmPoolSize !== undefined ? { warmPoolSizeAt: () => lookahead.warmPoolSize ?? 0 } : {}),
    explain: () => ({ reasonCounts: Object.fromEntries(reasonCounts), decisions }),
    ...(lookahead ? { forecastBand: () => ({ p50: lookahead.p50, p90: lookahead.p90 }) } : {}),
  };
}
