/**
 * `governor status` as text: per target a head line and one labelled line per part, like
 * `kubectl describe hpa`. A part whose read failed says so on its own line; a part the target
 * does not have (no failover group, no capacity mix) is left out. Pure.
 *
 *   chat-llm: endpoint chat-llm-prod, variant AllTraffic (us-east-1)
 *     mode           shadow (the last decision's)
 *     kill switch    off
 *     capacity       2 serving, 2 desired (InService)
 *     last decision  2025-06-02 03:12:30Z  2 -> 6    shadow    PanicScaleOut
 *                    Panic: ... | shadow mode: nothing changed
 */
import { timelineLines } from './decisions.ts';
import type { SloSummary, TargetStatus } from './status.ts';

const LABEL = 15;
const pct = (x: number) => `${(x * 100).toFixed(2)} %`;
const at = (isoTime: string) => isoTime.replace('T', ' ').replace(/\.\d+Z$/, 'Z');
const weights = (w: Record<string, number | string>) =>
  Object.entries(w)
    .map(([region, v]) => `${region} ${v}`)
    .join(', ');
const isProblem = (v: unknown): v is { problem: string } =>
  typeof v === 'object' && v !== null && 'problem' in v;

function line(label: string, text: string): string {
  return `  ${label.padEnd(LABEL)}${text}`;
}

function more(text: string): string {
  return `  ${' '.repeat(LABEL)}${text}`;
}

function sloText(s: SloSummary): string {
  const attained =
    s.attainment === null
      ? 'no minute observed yet'
      : `${pct(s.attainment)} attained over ${s.observedMinutes} minutes (${s.badMinutes} bad)`;
  const burns = [
    s.fastBurn === null ? null : `fast burn ${s.fastBurn.toFixed(2)}`,
    s.slowBurn === null ? null : `slow burn ${s.slowBurn.toFixed(2)}`,
    s.headroomFactor === null
      ? null
      : s.spareRoom
        ? `headroom factor ${s.headroomFactor} (spare room: leaner than written while the budget goes unspent)`
        : `headroom factor ${s.headroomFactor}`,
    s.forecastRoom === null
      ? null
      : `forecast room open: targets at ${s.forecastRoom.factor.toFixed(2)}x (band ${pct(s.forecastRoom.bandRatio - 1)})`,
  ].filter((x) => x !== null);
  return `${s.objective}: ${attained}; ${pct(Math.max(-9.99, s.budgetLeft))} of the budget left${burns.length > 0 ? `; ${burns.join(', ')}` : ''}`;
}

function decisionLines(s: TargetStatus): string[] {
  if (s.lastDecision === null) return [line('last decision', 'none recorded yet')];
  if (isProblem(s.lastDecision)) return [line('last decision', `cannot read: ${s.lastDecision.problem}`)];
  const [head, said] = timelineLines(s.lastDecision);
  return said === undefined
    ? [line('last decision', head!)]
    : [line('last decision', head!), more(said.trim())];
}

function inFlightText(s: TargetStatus): string {
  if (s.inFlight === null) return 'no scale-target state machine in this stack';
  if (isProblem(s.inFlight)) return `cannot read: ${s.inFlight.problem}`;
  const pending = s.pending
    ? `; pending ${s.pending.decisionId} to ${s.pending.desiredCapacity} since ${at(s.pending.at)}`
    : '';
  if (s.inFlight.length === 0) return `no execution running${pending}`;
  const runs = s.inFlight.map((e) => `${e.name} (since ${at(e.since)})`).join(', ');
  return `${s.inFlight.length} running: ${runs}${pending}`;
}

function failoverLines(f: NonNullable<TargetStatus['failover']>): string[] {
  if ('problem' in f) return [line('failover', `group ${f.group}: cannot read: ${f.problem}`)];
  const moving = f.direction ? ` (${f.direction} of ${f.source})` : '';
  const intent = f.intent
    ? `weights ${weights(f.intent)} (intent, last applied)`
    : 'base weights (nothing applied yet)';
  const truth =
    f.truth === null
      ? `${f.routing}: not read`
      : isProblem(f.truth)
        ? `${f.routing} cannot be read: ${f.truth.problem}`
        : `${f.routing} says ${weights(f.truth)}`;
  return [
    line('failover', `group ${f.group}: phase ${f.phase}${moving}`),
    line('routing', `${intent}; ${truth}`),
  ];
}

function mixLines(m: NonNullable<TargetStatus['mix']>): string[] {
  if ('problem' in m) return [line('mix', `cannot read: ${m.problem}`)];
  const plan = m.plan
    ? `${m.plan.capacity} instances: ${m.plan.onDemand} on-demand (${m.plan.committed} committed) + ${m.plan.spot} spot, ${m.plan.usdPerHour.toFixed(2)} USD an hour${m.lastChangeAt ? `, since ${at(m.lastChangeAt)}` : ''}`
    : 'no plan yet';
  const spot = m.spot
    ? [
        m.spot.breakerOpenUntil ? `breaker open until ${at(m.spot.breakerOpenUntil)}` : 'breaker closed',
        m.spot.unavailablePools.length > 0
          ? `unavailable: ${m.spot.unavailablePools.join(', ')}`
          : 'every pool available',
        `${m.spot.warnings} interruption warning(s) in the window`,
      ].join('; ')
    : 'no interruption recorded';
  return [line('mix plan', plan), line('spot', spot)];
}

export function statusLines(s: TargetStatus): string[] {
  const capacity = isProblem(s.capacity)
    ? `cannot read: ${s.capacity.problem}`
    : `${s.capacity.ready} serving, ${s.capacity.desired} desired (${s.capacity.status})`;
  const out = [
    `${s.id}: ${s.resource} (${s.region})`,
    line('mode', s.mode ? `${s.mode} (the last decision's)` : 'unknown: no decision recorded yet'),
    line('kill switch', s.killSwitch),
    line('capacity', capacity),
    ...decisionLines(s),
    line('in flight', inFlightText(s)),
  ];
  if (s.forecastFloor)
    out.push(
      line('forecast floor', `${s.forecastFloor.capacity} now (schedule until ${at(s.forecastFloor.until)})`),
    );
  if (s.warmPool !== null)
    out.push(
      line(
        'warm pool',
        isProblem(s.warmPool)
          ? `cannot read: ${s.warmPool.problem}`
          : s.warmPool
            ? `min ${s.warmPool.minSize}, max prepared ${s.warmPool.maxGroupPreparedCapacity ?? 'group max'} (${s.warmPool.poolState})`
            : 'none on the group yet',
      ),
    );
  // spread-ok: a failover or mix block is a handful of lines
  if (s.failover) out.push(...failoverLines(s.failover));
  // spread-ok: a failover or mix block is a handful of lines
  if (s.mix) out.push(...mixLines(s.mix));
  if (s.slo) out.push(line('slo', sloText(s.slo)));
  for (const p of s.problems) out.push(line('problem', p));
  return out;
}
