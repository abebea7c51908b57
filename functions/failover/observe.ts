/**
 * Each member region's health, capacity and heartbeat for one evaluation of a failover group:
 * a read that fails leaves its signal missing (the planner calls the period unknown, never failed).
 */

import { clip } from '../../shared/events/bounded.ts';
import type { ResolvedGroup } from '../../shared/failover/group.ts';
import type { FailoverObservation } from '../../shared/failover/types.ts';
import { errorText } from '../../shared/invocation/errors.ts';
import type { PolicyFile } from '../../shared/policy/schema.ts';
import { healthQueries, observation, type RegionRead } from '../../shared/signals/failover-observe.ts';
import type { FailoverPorts } from './ports.ts';

/** What reading the regions needs of the evaluator. */
export interface RegionReadDeps {
  ports: Pick<FailoverPorts, 'metrics' | 'sageMaker' | 'groups' | 'heartbeats'>;
  config: { METRIC_NAMESPACE: string };
  telemetry: { info(message: string): void };
}

/** A caught error as text, clipped: its message may quote what a sender controls. */
export const clipped = (e: unknown) => clip(errorText(e));

export async function readRegions(
  deps: RegionReadDeps,
  policy: PolicyFile,
  g: ResolvedGroup,
  now: number,
): Promise<FailoverObservation> {
  const queries = healthQueries(g, policy.targets, deps.config.METRIC_NAMESPACE);
  const reads: Record<string, RegionRead> = {};
  const window = {
    start: Math.floor(now / 60_000) * 60_000 - g.health.staleAfterSeconds * 1000 - 60_000,
    end: Math.floor(now / 60_000) * 60_000,
  };
  for (const m of g.members) {
    const t = policy.targets.find((x) => x.id === m.targetId)!;
    const read: RegionRead = { results: null };
    const attempt = async (what: string, f: () => Promise<void>) => {
      try {
        await f();
      } catch (e) {
        deps.telemetry.info(`${g.id}: ${what} in ${m.region} unreadable, left missing: ${clipped(e)}`);
      }
    };
    await attempt('metrics', async () => {
      read.results = await deps.ports.metrics.getMetricData(
        m.region,
        queries.filter((q) => q.region === m.region),
        window,
      );
    });
    await attempt('capacity', async () => {
      const c =
        t.kind === 'sagemaker-variant'
          ? await deps.ports.sageMaker.variantCapacity(t.region, t.endpointName, t.variantName)
          : t.kind === 'sagemaker-inference-component'
            ? await deps.ports.sageMaker.componentCapacity(t.region, t.inferenceComponentName)
            : (await deps.ports.groups.describeGroups(t.region, [t.autoScalingGroupName])).get(
                t.autoScalingGroupName,
              )?.capacity;
      if (c) read.capacity = { desired: c.desired, ready: c.ready };
    });
    await attempt('heartbeat', async () => {
      const beat = await deps.ports.heartbeats.lastBeat(m.region, m.targetId);
      if (beat !== null) read.lastBeatAt = beat;
    });
    reads[m.region] = read;
  }
  return observation(g, queries, reads, now);
}
