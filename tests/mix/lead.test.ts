/** The replacement lead: measured like a scale-out, a configured value only as a minimum. */
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_REPLACEMENT_LEAD_MINUTES,
  replacementLeadMinutes,
  resolveMixPolicy,
} from '#shared/mix/types.ts';
import { policyOrThrow } from '#shared/policy/load.ts';

const target = (replacementLeadTimeMinutes?: number) =>
  policyOrThrow({
    version: 1,
    targets: [
      {
        id: 'gpu',
        kind: 'ec2-asg',
        region: 'us-east-1',
        autoScalingGroupName: 'gpu',
        scaling: { minCapacity: 1, maxCapacity: 20 },
        signals: [{ metric: 'gpuUtilization', target: 70 }],
        capacityMix: {
          pools: [{ instanceType: 'g5.2xlarge', onDemandUsdPerHour: 1.2 }],
          ...(replacementLeadTimeMinutes ? { replacementLeadTimeMinutes } : {}),
        },
      },
    ],
  }).targets[0]!;

describe('replacementLeadMinutes', () => {
  it.each([
    [undefined, null, DEFAULT_REPLACEMENT_LEAD_MINUTES, 'nothing configured, nothing measured: the default'],
    [undefined, 9, 9, 'nothing configured: the measured scale-out lead, shorter or longer'],
    [undefined, 22, 22, 'nothing configured: the measured scale-out lead, longer'],
    [20, 9, 20, 'configured longer than measured: the configured minimum'],
    [5, 9, 9, 'configured shorter than measured: the measured lead wins'],
  ] as const)('(%s, %s) -> %s: %s', (configured, measured, expected, _why) => {
    expect(replacementLeadMinutes(configured, measured)).toBe(expected);
  });

  it('resolveMixPolicy gives the planner the resolved lead', () => {
    expect(resolveMixPolicy(target())!.replacementLeadMinutes).toBe(15);
    expect(resolveMixPolicy(target(), 10)!.replacementLeadMinutes).toBe(10);
    expect(resolveMixPolicy(target(30), 10)!.replacementLeadMinutes).toBe(30);
  });
});
