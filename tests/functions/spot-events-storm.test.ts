/**
 * The storm replay, the done-means of issue 11 item 4 (tests/interruptions/storm.ts): 500
 * interruption warnings within 2 minutes for one group, SQS batches of 100 with duplicates and
 * foreign events. Each instance replaced exactly once; DetachInstances calls per batch =
 * ceil(new instances / 20); the breaker opens once and the shift to on-demand is applied once;
 * no call from a duplicate or a foreign event; API calls per minute bounded.
 */
import { DetachInstancesCommand, UpdateAutoScalingGroupCommand } from '@aws-sdk/client-auto-scaling';
import { describe, expect, it } from 'vitest';
import { GROUP } from '../interruptions/aws-fakes.ts';
import { replayStorm, STORM_T0 } from '../interruptions/storm.ts';

describe('the storm replay', async () => {
  const { batches, setup } = await replayStorm();
  const detachCalls = batches.flatMap((b) => b.result.targets.flatMap((t) => t.replaced));

  it('the plan runs at least 500 spot instances (the storm reclaims within the fleet)', () => {
    expect(setup.plan.spot).toBeGreaterThanOrEqual(500);
  });

  it('replaces each of the 500 warned instances exactly once, with no batch item failure', () => {
    expect(detachCalls).toHaveLength(500);
    expect(new Set(detachCalls).size).toBe(500);
    expect(batches.every((b) => b.result.batchItemFailures.length === 0)).toBe(true);
  });

  it('calls DetachInstances ceil(new instances / 20) times per batch, always keeping desired capacity', () => {
    for (const b of batches) expect(b.calls.DetachInstances ?? 0).toBe(Math.ceil(b.newInstances / 20));
    const inputs = setup.aws.asg.commandCalls(DetachInstancesCommand).map((c) => c.args[0].input);
    expect(
      inputs.every((i) => i.ShouldDecrementDesiredCapacity === false && i.AutoScalingGroupName === GROUP),
    ).toBe(true);
  });

  it('opens the breaker once and applies the shift to on-demand once', () => {
    const opened = batches.filter((b) => b.result.targets.some((t) => t.breakerOpened));
    expect(opened).toHaveLength(1);
    const shifts = batches.map((b) => b.calls.UpdateAutoScalingGroup ?? 0);
    expect(shifts.reduce((s, n) => s + n, 0)).toBe(1);
    const update = setup.aws.asg.commandCalls(UpdateAutoScalingGroupCommand);
    // aws.reset() clears history per batch: the one Update is in the batch that opened it.
    expect(update).toHaveLength(opened[0] === batches.at(-1) ? 1 : 0);
    const spot = setup.aws.table.get('MIX#gpu|PLAN') as { spot: { breakerOpenUntil: number } };
    expect(spot.spot.breakerOpenUntil).toBe(opened[0]!.at + 60 * 60_000);
  });

  it('no call from a duplicate or a foreign event: ignored ones counted, none detached', () => {
    const ignored = batches.reduce(
      (s, b) =>
        s + b.result.ignored.ForeignAccount + b.result.ignored.ForeignRegion + b.result.ignored.NotManaged,
      0,
    );
    expect(ignored).toBe(40);
    expect(detachCalls.some((i) => Number.parseInt(i.slice(2), 16) >= 600)).toBe(false);
    // A duplicate within a batch is caught by the SPOT item; one in a later batch finds its
    // instance already detached (in no group), so the lookup alone answers it.
    const dups = batches.reduce((s, b) => s + b.result.targets.reduce((x, t) => x + t.duplicates, 0), 0);
    const late = batches.reduce((s, b) => s + b.result.ignored.NotInGroup, 0);
    expect(dups + late).toBe(50);
    // A batch of duplicates and foreign events only costs the lookup and reads, never a write.
    for (const b of batches)
      if (b.newInstances === 0)
        expect((b.calls.DetachInstances ?? 0) + (b.calls.UpdateAutoScalingGroup ?? 0)).toBe(0);
  });

  it('API calls stay under 60 per minute over the storm, and under 20 per batch', () => {
    const total = batches.reduce((s, b) => s + Object.values(b.calls).reduce((x, n) => x + n, 0), 0);
    const minutes = (batches.at(-1)!.at - STORM_T0) / 60_000;
    expect(total / minutes).toBeLessThan(60);
    for (const b of batches) expect(Object.values(b.calls).reduce((x, n) => x + n, 0)).toBeLessThan(20);
  });
});
