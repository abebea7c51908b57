/**
 * The one human sentence on every decision: what happened and why, with the numbers the
 * on-call engineer needs at 03:12. Built from the reason codes, so code and sentence agree.
 */
import type { TargetPolicy } from '../policy/schema.ts';
import type { Decision, ReasonCode, SignalAssessment } from './types.ts';

const num = (x: number): string => (Number.isInteger(x) ? String(x) : x.toFixed(Math.abs(x) >= 10 ? 0 : 2));
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function describeSignal(s: SignalAssessment): string {
  if (s.value === null || s.ratio === null) return `${s.metric} has no fresh data`;
  const unit = s.kind === 'latency' ? ' ms' : '';
  const against = s.kind === 'latency' ? `the ${num(s.target)} ms SLO` : `its target of ${num(s.target)}`;
  return `${s.metric} at ${num(s.value)}${unit} is ${s.ratio.toFixed(2)}x ${against}`;
}

/** The signal that drove a scale-out: the breaching one with the largest proposal. */
function driver(d: Decision): SignalAssessment | undefined {
  let best: SignalAssessment | undefined;
  for (const s of d.signals) {
    if (s.status === 'high' && (best === undefined || (s.proposal ?? 0) > (best.proposal ?? 0))) best = s;
  }
  return best;
}

type Clause = (d: Decision, p: TargetPolicy) => string;

const CLAUSES: Record<ReasonCode, Clause> = {
  WithinBand: (d) => {
    const widened = d.signals.filter((s) => s.noiseBand !== undefined && s.status === 'within');
    const why = widened.map(
      (s) => `${s.metric}'s widened to +-${Math.round(100 * s.noiseBand!)} % by its measured noise`,
    );
    return why.length > 0
      ? `every signal is within its band (${why.join('; ')})`
      : 'every signal is within its band';
  },
  NoData: () => 'no signal has fresh data, so nothing is decided on it',
  PartialData: (d) =>
    `no fresh data for ${d.signals
      .filter((s) => s.status === 'missing')
      .map((s) => s.metric)
      .join(', ')}`,
  ScaleOutBreach: (d) => `${describeSignal(driver(d)!)}`,
  ScaleOutAwaitingBreaches: (d, p) =>
    `${describeSignal(driver(d)!)}; waiting for ${plural(p.damping.scaleOutBreaches, 'consecutive breaching period')}`,
  CapacityPending: (d) => `${describeSignal(driver(d)!)}, but instances already starting cover it`,
  LatencyGuard: (d) => `${describeSignal(driver(d)!)}, so capacity grows in proportion to the excess`,
  BreachPeak: (_d, p) =>
    `sized on the highest proposal of the last ${plural(p.damping.scaleOutBreaches, 'breaching period')}`,
  PanicScaleOut: (d, p) =>
    `panic: ${describeSignal(driver(d)!)} (panic at ${num(p.panic.threshold)}x), scaling at once`,
  PanicAtWrittenTargets: (d) => {
    const y = d.youngBurst;
    const s = driver(d);
    if (!y || !s || s.ratio === null) return 'the burst is met at the written targets';
    const at = `${s.metric} is ${(s.ratio * y.factor).toFixed(2)}x the written target of ${num(s.target / y.factor)}`;
    return `the burst is met at the written targets, not the error budget's ${y.factor.toFixed(2)}x (${at}): for its first ${plural(y.leadMinutes, 'minute')}, the lead time, capacity asked now would serve after it (it is ${plural(y.minutes, 'minute')} old)`;
  },
  PanicHold: (_d, p) =>
    `scale-in is blocked until load has been calm for ${p.panic.stableWindowSeconds} s after a panic`,
  ScaleInBreach: (_d, p) =>
    `every signal has been below its band for ${plural(p.damping.scaleInBreaches, 'period')}`,
  ScaleInAwaitingBreaches: (_d, p) =>
    `every signal is below its band; waiting for ${plural(p.damping.scaleInBreaches, 'consecutive period')}`,
  ScaleInStabilized: (_d, p) =>
    `held up by the highest recommendation of the last ${p.damping.scaleInStabilizationSeconds} s`,
  ScaleInBlockedByLatency: (d) =>
    `${d.signals
      .filter((s) => s.status === 'guarding')
      .map(describeSignal)
      .join('; ')}, too close to the SLO to scale in`,
  ScaleInBlockedByMissingData: (d, p) =>
    d.signals.some((s) => s.status === 'missing')
      ? 'the fresh signals are below their bands, but missing data never scales in'
      : `no fresh ${p.scaling.activation?.metric ?? 'activation'} total, and missing data never scales to zero`,
  ScaleOutCooldown: (_d, p) =>
    `within the ${p.damping.scaleOutCooldownSeconds} s scale-out cooldown, only a step as large as the last may pass`,
  ScaleInCooldown: (_d, p) => `within the ${p.damping.scaleInCooldownSeconds} s scale-in cooldown`,
  StepLimitUp: (_d, p) =>
    `step limited to +max(${p.damping.stepUp.instances}, ${p.damping.stepUp.percent} %) per period`,
  StepLimitDown: (_d, p) =>
    `step limited to -max(${p.damping.stepDown.instances}, ${p.damping.stepDown.percent} %) per period`,
  ClampedToMin: (_d, p) => `clamped to minCapacity ${p.scaling.minCapacity}`,
  ClampedToMax: (_d, p) => `clamped to maxCapacity ${p.scaling.maxCapacity}`,
  ActivationFromZero: (_d, p) =>
    `${p.scaling.activation?.metric ?? 'activation'} is above its activation threshold of ${p.scaling.activation?.threshold ?? 0}`,
  IdleAtZero: () => 'no demand at zero capacity',
  ScaleToZero: (_d, p) =>
    `${p.scaling.activation?.metric ?? 'activation'} is at or below its activation threshold of ${p.scaling.activation?.threshold ?? 0}, so the target goes to zero`,
  ForecastFloor: (d) =>
    d.floorKind === 'level'
      ? 'the last level plus its measured noise needs at least this much (no forecast yet)'
      : 'the forecast for the provisioning lead time needs at least this much',
  ForecastFallback: (d) =>
    d.floorFallback === 'naive-day'
      ? "forecast from yesterday's demand: the seasonal model scored worse over the last 24 h"
      : 'forecast from the last hour held flat: the seasonal model scored worse over the last 24 h',
  BurstFloor: (d) =>
    d.burstFloor
      ? `bursts shorter than a scale-out spend the error budget at the most headroom, so ${plural(d.burstFloor.capacity, 'instance')} stand until ${new Date(d.burstFloor.until).toISOString().slice(0, 16).replace('T', ' ')} UTC: the ${Number((100 * d.burstFloor.quantile).toFixed(2))}th percentile of recent demand (${Math.round(d.burstFloor.demand).toLocaleString('en-US')} requests a minute) at the SLO capacity${d.burstFloor.asWritten ? ', with the load targets as written (the floor holds what the lowered ones would)' : ''}`
      : 'a burst floor needs at least this much',
  FailoverFloor: (d) =>
    d.failoverFloor
      ? d.failoverFloor.phase === 'steady'
        ? `failover group ${d.failoverFloor.groupId} is steady: the standby keeps its warm floor of ${plural(d.failoverFloor.capacity, 'instance')}`
        : `failover group ${d.failoverFloor.groupId} is ${d.failoverFloor.phase}: the standby holds the ${plural(d.failoverFloor.capacity, 'instance')} the traffic move needs`
      : 'a failover group needs at least this much',
  MixPlanFloor: (d) =>
    `the capacity mix needs ${plural(d.mixFloor?.capacity ?? 0, 'instance')} so that losing its largest spot pool still serves the forecast`,
  CommittedFloor: (d) =>
    `the committed base of ${plural(d.committedFloor?.capacity ?? 0, 'instance')} is paid every hour whether it runs or not, so it serves`,
  SpotHeadroom: (d) =>
    `${plural(d.spotHeadroom?.held ?? 0, 'spot instance')} held beyond what the load asks, as headroom while the capacity mix runs spot (capacityMix.spot.overProvision ${d.spotHeadroom?.instances ?? 0})`,
  BudgetCapped: (d) =>
    d.budgetCeiling
      ? `the budget of ${d.budgetCeiling.maxUsdPerHour.toFixed(2)} USD/h pays for ${plural(d.budgetCeiling.capacity, 'instance')}, so scale-out stops there: the SLO is at risk for money`
      : 'the budget stops scale-out here: the SLO is at risk for money',
  BudgetBurning: (d) =>
    `the error budget burns ${burn(d.headroom?.fastBurn)} as fast as the objective allows over the fast window (${burn(d.headroom?.slowBurn)} over the slow one), so ${heldAt(d)}`,
  BudgetSpare: (d) =>
    `the error budget is spare (${Math.round((d.headroom?.remaining ?? 0) * 100)} % left, burning ${burn(d.headroom?.fastBurn)}), so load targets stand at ${factor(d)} of the policy's`,
  SpareRoomClosed: (d) =>
    `the error budget's spare room narrowed (a burn window burns, or the pace rose toward its limit), so load targets are back at ${factor(d)} of the policy's`,
  BudgetExhausted: (d) =>
    `the error budget is spent, so ${heldAt(d)}${d.burstFloor?.asWritten ? '' : ', the most headroom it allows'}`,
  ForecastConfident: (d) => {
    const r = d.headroom?.forecastRoom;
    if (!r)
      return `the forecast has been accurate and the error budget is healthy, so load targets stand at ${factor(d)} of the policy's`;
    const band = Math.round((r.bandRatio - 1) * 1000) / 10;
    return `the forecast has been accurate (its p90 ${band} % above its median) and the error budget is healthy, so load targets stand at ${factor(d)} of the policy's, keeping ${r.bandWeight} bands of room below the SLO capacity (written room ${r.writtenRoom.toFixed(2)}x)`;
  },
  LeadTimeMeasured: (d) =>
    d.leadTime
      ? `planned over the measured ${d.leadTime.minutes}-minute lead time (p90 of ${plural(d.leadTime.samples, 'scale-out')}), above the configured ${d.leadTime.configuredMinutes}`
      : 'planned over the measured lead time, above the configured one',
};

function burn(x: number | null | undefined): string {
  return x === null || x === undefined ? 'no reading' : `${x.toFixed(1)}x`;
}

const factor = (d: Decision): string => `${(d.headroom?.factor ?? 1).toFixed(2)}x`;
/** Where the control holds the load targets, or, while the burst floor holds its headroom, that they stand as written. */
const heldAt = (d: Decision): string =>
  d.burstFloor?.asWritten
    ? `the control is at ${factor(d)}, held by the burst floor instead: load targets stand as written`
    : `load targets stand at ${factor(d)} of the policy's`;

export function describeDecision(d: Decision, policy: TargetPolicy): string {
  const head =
    d.action === 'hold'
      ? `Hold at ${plural(d.currentCapacity, 'instance')}`
      : `${d.action === 'scale-out' ? 'Scale out' : 'Scale in'} from ${d.currentCapacity} to ${plural(d.desiredCapacity, 'instance')}`;
  return `${head}: ${d.reasons.map((r) => CLAUSES[r](d, policy)).join('; ')}.`;
}
