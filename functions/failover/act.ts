/**
 * The failover state machine's hands (Task "lambda:invoke", one op per call), for what an
 * aws-sdk integration cannot reach from the standby region: a target in another region, ARC's
 * cluster endpoints, Global Accelerator's us-west-2 API. Each op is one small idempotent step:
 *   prescale: desired = max(current desired, asked) for one target (never lowers);
 *   ready:    every receiving target has at least its asked instances in service;
 *   route:    one routing action through the group's routing adapter (regions mapped to the
 *             policy's set identifiers, routing control ARNs or endpoint group ARNs);
 *   check:    a fresh error-rate or p95 reading past the threshold in a receiving region
 *             (missing or stale data is not a regression).
 * The two ops that change something (prescale, route) read the kill switch first (its one
 * meaning: shared/invocation/kill-switch.ts) and refuse while it is on; a prescale refuses a target
 * outside the managed name prefixes (the role could not change it anyway). Refusals and failed
 * I/O are thrown, named: the state machine's Retry and Catch own them, and its failure record
 * (PHASE#<decision>#failed) carries the name and the sentence.
 */
import * as z from 'zod';
import type { ApplyResult, Capacity } from '../../shared/aws/capacity.ts';
import type { TrafficDialsPort } from '../../shared/aws/routing-accelerator.ts';
import type { ClusterEndpoint, ControlState, RoutingControlsPort } from '../../shared/aws/routing-arc.ts';
import type { WaitOptions, WeightedRecordsPort } from '../../shared/aws/routing-route53.ts';
import { clip } from '../../shared/events/bounded.ts';
import type { RoutingAction } from '../../shared/failover/types.ts';
import type { KillSwitch } from '../../shared/invocation/kill-switch.ts';
import { type FailoverRouting, FailoverRoutingSchema } from '../../shared/policy/failover-schema.ts';
import { ActError } from './act-errors.ts';
import { type PolicyView, scopedPrescale, scopedRouting } from './act-scope.ts';

const name = z.string().min(1);
const TargetRefSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('sagemaker-variant'), endpointName: name, variantName: name }),
  z.object({
    kind: z.literal('sagemaker-inference-component'),
    endpointName: name,
    inferenceComponentName: name,
  }),
  z.object({ kind: z.literal('ec2-asg'), autoScalingGroupName: name }),
]);
export type TargetRef = z.infer<typeof TargetRefSchema>;

const PrescaleItemSchema = z.object({
  targetId: name,
  region: name,
  desired: z.number().int().min(0),
  target: TargetRefSchema,
});
export type PrescaleItem = z.infer<typeof PrescaleItemSchema>;

const weights = z.record(z.string(), z.number().min(0).max(100));
const RoutingActionSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('set-weights'), groupId: name, weights }),
  z.object({
    kind: z.literal('set-routing-controls'),
    groupId: name,
    on: z.array(z.string()).min(1),
    off: z.array(z.string()),
    weights,
  }),
  z.object({ kind: z.literal('set-dials'), groupId: name, dials: weights, weights }),
]);

const CheckInputSchema = z.object({
  regions: z.array(z.string()),
  targets: z.array(z.string()),
  errorRatePercent: z.number(),
  p95LatencyMs: z.number().optional(),
  staleAfterSeconds: z.number().positive(),
  waitSeconds: z.number().optional(),
});
export type CheckInput = z.infer<typeof CheckInputSchema>;

export const ActEventSchema = z.discriminatedUnion('op', [
  z.object({ op: z.literal('prescale'), prescale: PrescaleItemSchema }),
  z.object({ op: z.literal('ready'), prescale: z.array(PrescaleItemSchema) }),
  // The routing schema refuses ARC cluster endpoints off AWS's own domains (shared/policy/arc-endpoints.ts).
  z.object({ op: z.literal('route'), routing: FailoverRoutingSchema, action: RoutingActionSchema }),
  z.object({ op: z.literal('check'), check: CheckInputSchema }),
]);
export type ActEvent = z.infer<typeof ActEventSchema>;

export { ActError, type ActErrorName } from './act-errors.ts';

/** The event checked against the state machine's contract, or InvalidActEvent naming the field. */
export function parseActEvent(raw: unknown): ActEvent {
  const r = ActEventSchema.safeParse(raw);
  if (r.success) return r.data;
  const lines = r.error.issues.map((i) => `${i.path.join('.') || 'event'}: ${i.message}`);
  // Clipped: the paths and values quote the input (a record's detail and a log line carry it).
  throw new ActError('InvalidActEvent', clip(`the act event is malformed: ${lines.join('; ')}`, 1000));
}

/** A reading with the time it was for (epoch ms). */
export interface Timed {
  value: number;
  timestamp: number;
}

export interface ActPorts {
  capacity(region: string, target: TargetRef): Promise<Capacity>;
  setCapacity(region: string, target: TargetRef, desired: number): Promise<ApplyResult>;
  weightedRecords(): WeightedRecordsPort;
  routingControls(endpoints: readonly ClusterEndpoint[]): RoutingControlsPort;
  trafficDials(): TrafficDialsPort;
  /** The newest readings of the receiving regions' targets (none: missing). */
  readings(
    check: CheckInput,
    now: number,
  ): Promise<{ region: string; errorRatePercent?: Timed; p95LatencyMs?: Timed }[]>;
  killSwitch(): Promise<KillSwitch>;
  /** The policy's failover groups and targets: what an event may name (./act-scope.ts). */
  policy(): Promise<PolicyView>;
}

/** The name prefixes the role may change (ManagedEndpointPrefix, ManagedAutoScalingGroupPrefix). */
export interface ActScope {
  endpointPrefix: string;
  groupPrefix: string;
  /** Route 53 waits for INSYNC this long within the call (the step's own wait follows). */
  route53Wait?: WaitOptions;
}

function checkManaged(p: PrescaleItem, scope: ActScope): void {
  const [what, prefix, value] =
    p.target.kind === 'ec2-asg'
      ? ['Auto Scaling group', scope.groupPrefix, p.target.autoScalingGroupName]
      : p.target.kind === 'sagemaker-variant'
        ? ['endpoint', scope.endpointPrefix, p.target.endpointName]
        : ['inference component', scope.endpointPrefix, p.target.inferenceComponentName];
  if (prefix === '' || !value.startsWith(prefix))
    throw new ActError(
      'UnmanagedTarget',
      `${p.targetId}: ${what} ${value} is outside the managed prefix "${prefix}": Governor changes only resources named with it (the template's Managed*Prefix)`,
    );
}

async function refuseIfKilled(ports: ActPorts, what: string): Promise<void> {
  const k = await ports.killSwitch();
  if (k.on) throw new ActError('KillSwitchOn', `${what} not done: ${k.message}`);
}

const mapped = (ids: Readonly<Record<string, string>>, regions: readonly string[], what: string) =>
  regions.map((r) => {
    const id = ids[r];
    if (!id) throw new ActError('RoutingNotMapped', `the policy's routing names no ${what} for ${r}`);
    return [r, id] as const;
  });

/** One routing action through its adapter; the sentence says what was set. */
export async function route(ports: ActPorts, routing: FailoverRouting, a: RoutingAction, scope: ActScope) {
  if (routing.kind === 'route53-weighted' && a.kind === 'set-weights') {
    const pairs = mapped(routing.setIdentifiers, Object.keys(a.weights).sort(), 'set identifier');
    const group = { hostedZoneId: routing.hostedZoneId, name: routing.recordName, type: routing.recordType };
    const change = await ports
      .weightedRecords()
      .setWeights(group, Object.fromEntries(pairs.map(([r, id]) => [id, a.weights[r]!])), scope.route53Wait);
    const set = pairs.map(([r, id]) => `${r} (${id}) ${a.weights[r]}`).join(', ');
    return change.changeId === null
      ? `weights already ${set}`
      : `weights ${set}: change ${change.changeId} ${change.status}`;
  }
  if (routing.kind === 'arc-routing-controls' && a.kind === 'set-routing-controls') {
    const states: Record<string, ControlState> = {};
    for (const [, arn] of mapped(routing.routingControls, a.on, 'routing control')) states[arn] = 'On';
    for (const [, arn] of mapped(routing.routingControls, a.off, 'routing control')) states[arn] = 'Off';
    const endpoints = routing.clusterEndpoints.map((e) => ({ url: e.endpoint, region: e.region }));
    await ports.routingControls(endpoints).setStates([{ name: a.groupId, states }]);
    return `routing controls on: ${a.on.join(', ')}; off: ${a.off.join(', ') || 'none'}`;
  }
  if (routing.kind === 'global-accelerator' && a.kind === 'set-dials') {
    const pairs = mapped(routing.endpointGroups, Object.keys(a.dials).sort(), 'endpoint group');
    const change = await ports
      .trafficDials()
      .setDials(Object.fromEntries(pairs.map(([r, arn]) => [arn, a.dials[r]!])));
    return `dials ${pairs.map(([r]) => `${r} ${a.dials[r]} %`).join(', ')} (${change.changed.length} endpoint groups written)`;
  }
  throw new ActError('RoutingNotMapped', `a ${a.kind} action cannot be applied to ${routing.kind} routing`);
}

/** The newest fresh readings past a threshold, one line each. Missing or stale is no breach. */
export function breaches(
  c: CheckInput,
  read: readonly { region: string; errorRatePercent?: Timed; p95LatencyMs?: Timed }[],
  now: number,
): string[] {
  const fresh = (t: Timed | undefined) =>
    t && now - t.timestamp <= c.staleAfterSeconds * 1000 ? t.value : undefined;
  return read.flatMap((r) => {
    const err = fresh(r.errorRatePercent);
    const p95 = fresh(r.p95LatencyMs);
    return [
      ...(err !== undefined && err > c.errorRatePercent
        ? [`${r.region}: errorRatePercent ${err} > ${c.errorRatePercent}`]
        : []),
      ...(c.p95LatencyMs !== undefined && p95 !== undefined && p95 > c.p95LatencyMs
        ? [`${r.region}: p95LatencyMs ${p95} > ${c.p95LatencyMs}`]
        : []),
    ];
  });
}

export async function act(
  ports: ActPorts,
  event: ActEvent,
  scope: ActScope,
  now: number,
): Promise<Record<string, unknown>> {
  switch (event.op) {
    case 'prescale': {
      checkManaged(event.prescale, scope);
      const { item: p, note } = scopedPrescale(event.prescale, await ports.policy());
      const before = await ports.capacity(p.region, p.target);
      if (before.desired >= p.desired)
        return { detail: `${p.targetId} already at ${before.desired} (asked ${p.desired}${note})` };
      await refuseIfKilled(ports, `the prescale of ${p.targetId}`);
      const result = await ports.setCapacity(p.region, p.target, p.desired);
      if (result.status === 'busy')
        throw new ActError('CapacityBusy', `${p.targetId} in ${p.region} is updating: ${result.message}`);
      return { detail: `${p.targetId} in ${p.region}: desired ${before.desired} -> ${p.desired}${note}` };
    }
    case 'ready': {
      const lines: string[] = [];
      let ready = true;
      const policy = await ports.policy();
      for (const asked of event.prescale) {
        const p = scopedPrescale(asked, policy).item;
        const c = await ports.capacity(p.region, p.target);
        if (c.ready < p.desired) ready = false;
        lines.push(`${p.targetId} ${c.ready} of ${p.desired} ready`);
      }
      return { ready, detail: lines.join(', ') };
    }
    case 'route': {
      const routing = scopedRouting(event.routing, event.action, await ports.policy());
      await refuseIfKilled(ports, `the ${event.action.kind} of ${event.action.groupId}`);
      return { detail: await route(ports, routing, event.action, scope) };
    }
    case 'check': {
      const found = breaches(event.check, await ports.readings(event.check, now), now);
      return {
        regressed: found.length > 0,
        detail: found.length > 0 ? found.join('; ') : 'no fresh reading past a threshold',
      };
    }
  }
}
