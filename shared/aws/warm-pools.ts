/**
 * EC2 Auto Scaling warm pools of the managed groups, sized by the forecast function:
 * DescribeWarmPool, then PutWarmPool only when the size differs. Raw output is converted by
 * small pure functions that reject a malformed configuration instead of reading it as 0.
 */
import {
  type AutoScalingClient,
  DescribeWarmPoolCommand,
  PutWarmPoolCommand,
  type WarmPoolConfiguration,
} from '@aws-sdk/client-auto-scaling';
import { countField, MalformedResponseError } from './capacity.ts';

/** A group's warm pool as Governor reads it; null when the group has none. */
export interface WarmPoolSetting {
  minSize: number;
  /** -1 or absent in AWS: the pool is MaxSize - DesiredCapacity (null here). */
  maxGroupPreparedCapacity: number | null;
  poolState: string;
  reuseOnScaleIn: boolean;
}

/** DescribeWarmPool's configuration to WarmPoolSetting; a missing MinSize or PoolState is malformed. */
export function warmPoolSettingFrom(
  group: string,
  c: WarmPoolConfiguration | undefined,
): WarmPoolSetting | null {
  if (!c) return null;
  const at = `DescribeWarmPool ${group}.WarmPoolConfiguration`;
  const minSize = countField(c.MinSize, `${at}.MinSize`);
  if (typeof c.PoolState !== 'string') throw new MalformedResponseError(`${at}.PoolState is missing`);
  const max = c.MaxGroupPreparedCapacity;
  return {
    minSize,
    maxGroupPreparedCapacity: typeof max === 'number' && max >= 0 ? max : null,
    poolState: c.PoolState,
    reuseOnScaleIn: c.InstanceReusePolicy?.ReuseOnScaleIn === true,
  };
}

/**
 * The PutWarmPool input that gives the pool exactly `size` instances, or null when it has that
 * already. AWS: only when MinSize and MaxGroupPreparedCapacity are equal does a warm pool have
 * an absolute size (otherwise it follows the group's desired capacity). An existing pool keeps
 * its state (Stopped, Hibernated, Running) and reuse policy, which are the operator's choice; a
 * new one is Stopped, the state whose idle cost (volumes only) the sizing assumed.
 */
export function warmPoolChange(group: string, current: WarmPoolSetting | null, size: number) {
  if (current && current.minSize === size && current.maxGroupPreparedCapacity === size) return null;
  return {
    AutoScalingGroupName: group,
    MinSize: size,
    MaxGroupPreparedCapacity: size,
    PoolState: (current?.poolState ?? 'Stopped') as 'Stopped' | 'Hibernated' | 'Running',
    ...(current ? { InstanceReusePolicy: { ReuseOnScaleIn: current.reuseOnScaleIn } } : {}),
  };
}

export interface WarmPoolsPort {
  read(region: string, group: string): Promise<WarmPoolSetting | null>;
  /** Sets the pool to exactly `size` instances; false when it had that size already (no write). */
  resize(region: string, group: string, size: number): Promise<boolean>;
}

export function warmPoolsAdapter(clientFor: (region: string) => AutoScalingClient): WarmPoolsPort {
  const read = async (region: string, group: string) => {
    const out = await clientFor(region).send(new DescribeWarmPoolCommand({ AutoScalingGroupName: group }));
    return warmPoolSettingFrom(group, out.WarmPoolConfiguration);
  };
  return {
    read,
    async resize(region, group, size) {
      const change = warmPoolChange(group, await read(region, group), size);
      if (!change) return false;
      await clientFor(region).send(new PutWarmPoolCommand(change));
      return true;
    },
  };
}
