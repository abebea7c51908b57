/**
 * The failover state machine's hands (Task "lambda:invoke", one op per call), for what an
 * aws-sdk integration cannot reach from the standby region: a target in another region, ARC's
 * cluster endpoints, Global Accelerator's us-west-2 API. Each op is one small idempotent step:
 *   prescale: desired = max(current desired, asked) for one target (never lowers);
 *   ready:    every receiving target has at least its asked instances in service;
 *   route:    one routing action through the group's routing adapter;
 *   check:    a fresh error-rate or p95 reading past the threshold in a receiving region
 *             (missing data is not a regression).
 * Errors are thrown: the state machine's Retry and Catch own them.
 */
import type { Capacity } from '../../shared/aws/capacity.ts';
import type { RoutingAction } from '../../shared/failover/types.ts';
import type { FailoverRouting } from '../../shared/policy/failover-schema.ts';

export type TargetRef =
  | { kind: 'sagemaker-variant'; endpointName: string; variantName: string }
  | { kind: 'sagemaker-inference-component'; endpointName: string; inferenceComponentName: string }
  | { kind: 'ec2-asg'; autoScalingGroupName: string };

export interface PrescaleItem {
  targetId: string;
  region: string;
  desired: number;
  target: TargetRef;
}

export interface ActPorts {
  capacity(region: string, target: TargetRef): Promise<Capacity>;
  setCapacity(region: string, target: TargetRef, desired: number): Promise<void>;
  route(routing: FailoverRouting, action: RoutingAction): Promise<string>;
  /** The newest fresh readings of the receiving regions' targets. */
  readings(
    check: CheckInput,
  ): Promise<{ region: string; errorRatePercent?: number; p95LatencyMs?: number }[]>;
}

export interface CheckInput {
  regions: string[];
  targets: string[];
  errorRatePercent: number;
  p95LatencyMs?: number;
  staleAfterSeconds: number;
}

export type ActEvent =
  | { op: 'prescale'; prescale: PrescaleItem }
  | { op: 'ready'; prescale: PrescaleItem[] }
  | { op: 'route'; routing: FailoverRouting; action: RoutingAction }
  | { op: 'check'; check: CheckInput };

export async function act(ports: ActPorts, event: ActEvent): Promise<Record<string, unknown>> {
  switch (event.op) {
    case 'prescale': {
      const p = event.prescale;
      const now = await ports.capacity(p.region, p.target);
      if (now.desired >= p.desired)
        return { detail: `${p.targetId} already at ${now.desired} (asked ${p.desired})` };
      await ports.setCapacity(p.region, p.target, p.desired);
      return { detail: `${p.targetId} in ${p.region}: desired ${now.desired} -> ${p.desired}` };
    }
    case 'ready': {
      const lines: string[] = [];
      let ready = true;
      for (const p of event.prescale) {
        const c = await ports.capacity(p.region, p.target);
        if (c.ready < p.desired) ready = false;
        lines.push(`${p.targetId} ${c.ready} of ${p.desired} ready`);
      }
      return { ready, detail: lines.join(', ') };
    }
    case 'route':
      return { detail: await ports.route(event.routing, event.action) };
    case 'check': {
      const c = event.check;
      const breaches = (await ports.readings(c)).flatMap((r) => [
        ...(r.errorRatePercent !== undefined && r.errorRatePercent > c.errorRatePercent
          ? [`${r.region}: errorRatePercent ${r.errorRatePercent} > ${c.errorRatePercent}`]
          : []),
        ...(c.p95LatencyMs !== undefined && r.p95LatencyMs !== undefined && r.p95LatencyMs > c.p95LatencyMs
          ? [`${r.region}: p95LatencyMs ${r.p95LatencyMs} > ${c.p95LatencyMs}`]
          : []),
      ]);
      return {
        regressed: breaches.length > 0,
        detail: breaches.length > 0 ? breaches.join('; ') : 'no fresh reading past a threshold',
      };
    }
  }
}
