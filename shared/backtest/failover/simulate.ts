/**
 * The two-region tick loop of the failover backtest. Per minute m, in this order:
 *   1. each region: started instances serve; the outage's first minute takes its fleet (region.ts);
 *   2. routing: the failover planner's stepFailover (shared/failover, unchanged) on what it can
 *      observe of each region (observe.ts), or Route 53's failover health check (route-only), or
 *      fixed weights; the weights it returns apply from this minute;
 *   3. each region's governor decides, raised to the planner's floor for its target; a region in
 *      its outage does nothing;
 *   4. each region serves r(m) x its weight / 100 and publishes its datapoint.
 * A minute violates when any region it sent requests to violates; its served-within-SLO share is
 * the requests sent to regions that did not violate, over all requests (1 with none).
 */

import type { ResolvedGroup } from '../../failover/group.ts';
import { initialFailoverState, stepFailover } from '../../failover/plan.ts';
import type { FailoverReasonCode, FailoverState, Weights } from '../../failover/types.ts';
import type { Policy } from '../policies/types.ts';
import type { ResolvedScenario, Workload } from '../scenario.ts';
import { observe } from './observe.ts';
import type { Outage } from './outage.ts';
import { RegionSim } from './region.ts';

export interface RegionSetup {
  region: string;
  targetId: string;
  policy: Policy;
  initialReady: number;
  minCapacity: number;
}

/**
 * Route 53 failover routing: a health check every 30 s, 3 failures to fail and 3 successes to
 * pass (the defaults), so 90 s: at minute m the primary is unhealthy when it had no ready
 * instance in minutes m - 2 and m - 1, and healthy again when it had one in both.
 */
export const ROUTE53_CHECK_MINUTES = 2;

export type Routing =
  | { kind: 'planner'; group: ResolvedGroup }
  | { kind: 'route-only'; primary: string; standby: string }
  | { kind: 'fixed'; weights: Weights };

export interface FailoverSimInput {
  scenario: ResolvedScenario;
  workload: Workload;
  outage: Outage | null;
  regions: RegionSetup[];
  routing: Routing;
  /** Requests per minute one instance is planned at (trace units), for the demand reading. */
  plannedPerInstance: number;
}

/** A planner decision worth showing: the phase or the weights changed. */
export interface RoutingMark {
  minute: number;
  phase: string;
  weights: Weights;
  reasons: FailoverReasonCode[] | ['Route53HealthCheck'];
  message: string;
}

export interface FailoverSimResult {
  instanceMinutes: number;
  /** Per minute: 1 when some region the minute's requests went to violated the SLO. */
  violated: Uint8Array;
  /** Per minute: the share of requests served within the SLO (0..1). */
  served: Float64Array;
  /** Per region: weight (percent) per minute. */
  weights: Record<string, Int8Array>;
  /** Per region: ready instances per minute. */
  ready: Record<string, Int32Array>;
  /** Per region: instances billed per minute. */
  provisioned: Record<string, Int32Array>;
  /** Per region: instance-minutes. */
  regionInstanceMinutes: Record<string, number>;
  marks: RoutingMark[];
}

const MINUTE = 60_000;

function routeOnly(
  r: Extract<Routing, { kind: 'route-only' }>,
  sims: Map<string, RegionSim>,
  m: number,
  prev: Weights,
): Weights {
  const primary = sims.get(r.primary)!;
  if (m < ROUTE53_CHECK_MINUTES) return prev;
  let dark = 0;
  for (let j = m - ROUTE53_CHECK_MINUTES; j < m; j++) if (primary.ready[j] === 0) dark++;
  if (dark === ROUTE53_CHECK_MINUTES) return { [r.primary]: 0, [r.standby]: 100 };
  if (dark === 0) return { [r.primary]: 100, [r.standby]: 0 };
  return prev;
}

export function simulateFailover(input: FailoverSimInput): FailoverSimResult {
  const { scenario, workload, outage, routing } = input;
  const n = workload.work.length;
  const sims = input.regions.map((s) => new RegionSim({ ...s, scenario, minutes: n }));
  const byRegion = new Map(sims.map((s) => [s.region, s]));
  const weightSeries = Object.fromEntries(sims.map((s) => [s.region, new Int8Array(n)]));
  const violated = new Uint8Array(n);
  const served = new Float64Array(n);
  const marks: RoutingMark[] = [];
  let state: FailoverState | undefined =
    routing.kind === 'planner' ? initialFailoverState(routing.group) : undefined;
  let weights: Weights =
    routing.kind === 'planner'
      ? state!.weights
      : routing.kind === 'fixed'
        ? routing.weights
        : { [routing.primary]: 100, [routing.standby]: 0 };
  for (let m = 0; m < n; m++) {
    for (const s of sims)
      s.begin(m, outage !== null && s.region === outage.region && m >= outage.start && m < outage.end);
    let floors: Record<string, number> = {};
    if (routing.kind === 'planner') {
      const res = stepFailover(state!, observe(sims, m, input.plannedPerInstance), routing.group, m * MINUTE);
      if (res.state.phase !== state!.phase || res.state.weights !== state!.weights)
        marks.push({
          minute: m,
          phase: res.state.phase,
          weights: res.state.weights,
          reasons: res.decision.reasons,
          message: res.decision.message,
        });
      state = res.state;
      weights = res.state.weights;
      floors = res.floors;
    } else if (routing.kind === 'route-only') {
      const next = routeOnly(routing, byRegion, m, weights);
      if (next[routing.primary] !== weights[routing.primary])
        marks.push({
          minute: m,
          phase: 'route53',
          weights: next,
          reasons: ['Route53HealthCheck'],
          message: `Route 53 health check: ${routing.primary} ${next[routing.primary]} %, ${routing.standby} ${next[routing.standby]} %`,
        });
      weights = next;
    }
    for (const s of sims) s.decide(m, floors[s.targetId] ?? 0);
    const requests = workload.requests[m]!;
    const work = workload.work[m]!;
    let within = 0;
    for (const s of sims) {
      const w = weights[s.region] ?? 0;
      weightSeries[s.region]![m] = w;
      s.serve(m, (requests * w) / 100, (work * w) / 100);
      if (w > 0 && s.violated[m]) violated[m] = 1;
      else within += s.requests[m]!;
    }
    served[m] = requests > 0 ? within / requests : 1;
  }
  let instanceMinutes = 0;
  const regionInstanceMinutes: Record<string, number> = {};
  for (const s of sims) {
    const im = Math.round(s.instanceMinutes * 1e6) / 1e6;
    regionInstanceMinutes[s.region] = im;
    instanceMinutes += im;
  }
  return {
    instanceMinutes,
    violated,
    served,
    weights: weightSeries,
    ready: Object.fromEntries(sims.map((s) => [s.region, s.ready])),
    provisioned: Object.fromEntries(sims.map((s) => [s.region, s.provisioned])),
    regionInstanceMinutes,
    marks,
  };
}
