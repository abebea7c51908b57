/**
 * The kill switch's `release`: before the (killed) evaluation, hand every scaler Governor
 * suspended back to its owner. Only targets with onConflictingScaler: suspend are looked at:
 * Governor suspends nothing on the others. What is found suspended there is resumed:
 * - a SageMaker target registered with dynamic scaling suspended both ways (what the scale-target
 *   state machine leaves): RegisterScalableTarget with both directions resumed;
 * - a group with AlarmNotification suspended (what act.ts leaves): ResumeProcesses AlarmNotification.
 *
 * Calls: one DescribeScalableTargets per 50 SageMaker targets and region, one
 * DescribeAutoScalingGroups per 50 groups and region, and one write per scaler still suspended.
 * Idempotent: with the switch left on release, the next tick finds nothing suspended and writes
 * nothing. A failed resume is in the target's record and the log, and the next tick tries again.
 */
import { refKey, type ScalableRef, scalableRef } from '../../shared/aws/app-autoscaling.ts';
import type { HandBackPort } from '../../shared/aws/hand-back.ts';
import type { TargetPolicy } from '../../shared/policy/schema.ts';
import type { Ports } from './ports.ts';
import type { Telemetry } from './telemetry.ts';

/** What release did for one target, merged into its decision record. */
export interface Released {
  /** The Application Auto Scaling resource id or the group name resumed; null when none was. */
  resumed: string | null;
  /** One clause for the record's detail. */
  detail: string;
}

/** `Name: message`, one line (a record's detail stays one line). */
const errorText = (e: unknown) =>
  (e instanceof Error ? `${e.name}: ${e.message}` : String(e)).split('\n')[0]!;

type ReleasePorts = Pick<Ports, 'groups'> & { handBack: HandBackPort };

const byRegion = <T extends TargetPolicy>(targets: readonly T[]) => {
  const out = new Map<string, T[]>();
  for (const t of targets) out.set(t.region, [...(out.get(t.region) ?? []), t]);
  return out;
};

async function resumeOne(
  into: Map<string, Released>,
  t: TargetPolicy,
  name: string,
  what: string,
  resume: () => Promise<void>,
  telemetry: Telemetry,
) {
  try {
    await resume();
    into.set(t.id, { resumed: name, detail: `released: resumed ${what}` });
    telemetry.warn(`released: resumed ${what}`, { targetId: t.id });
  } catch (error) {
    const why = errorText(error);
    into.set(t.id, {
      resumed: null,
      detail: `release could not resume ${what} (${why}); the next tick tries again`,
    });
    telemetry.error(`release could not resume ${what}: ${why}`, { targetId: t.id });
  }
}

async function releaseSageMaker(
  ports: ReleasePorts,
  region: string,
  list: TargetPolicy[],
  into: Map<string, Released>,
  telemetry: Telemetry,
) {
  const refs = new Map(list.map((t) => [t.id, scalableRef(t) as ScalableRef]));
  const suspended = await ports.handBack.suspendedScalers(region, [...refs.values()]);
  for (const t of list) {
    const found = suspended.get(refKey(refs.get(t.id)!));
    if (!found) {
      into.set(t.id, {
        resumed: null,
        detail: 'released: no Application Auto Scaling policy of it was suspended',
      });
      continue;
    }
    const what = `the Application Auto Scaling policies on ${found.ref.resourceId} (dynamic scaling no longer suspended)`;
    await resumeOne(
      into,
      t,
      found.ref.resourceId,
      what,
      () => ports.handBack.resumeDynamicScaling(region, found),
      telemetry,
    );
  }
}

async function releaseGroups(
  ports: ReleasePorts,
  region: string,
  list: TargetPolicy[],
  into: Map<string, Released>,
  telemetry: Telemetry,
) {
  const names = list.map((t) => (t.kind === 'ec2-asg' ? t.autoScalingGroupName : ''));
  const groups = await ports.groups.describeGroups(region, names);
  for (const [i, t] of list.entries()) {
    const name = names[i]!;
    if (!groups.get(name)?.alarmsSuspended) {
      into.set(t.id, {
        resumed: null,
        detail: `released: the AlarmNotification process of ${name} was not suspended`,
      });
      continue;
    }
    const what = `the AlarmNotification process of Auto Scaling group ${name}`;
    await resumeOne(
      into,
      t,
      name,
      what,
      () => ports.handBack.resumeAlarmNotification(region, name),
      telemetry,
    );
  }
}

/** Resumes what Governor suspended on the targets; one entry per target with onConflictingScaler: suspend. */
export async function releaseSuspended(
  ports: ReleasePorts,
  targets: readonly TargetPolicy[],
  telemetry: Telemetry,
): Promise<Map<string, Released>> {
  const into = new Map<string, Released>();
  const suspending = targets.filter((t) => t.onConflictingScaler === 'suspend');
  const groups = suspending.filter((t) => t.kind === 'ec2-asg');
  const sageMaker = suspending.filter((t) => t.kind !== 'ec2-asg');
  const passes = [
    ...[...byRegion(sageMaker)].map(([region, list]) => ({
      list,
      run: () => releaseSageMaker(ports, region, list, into, telemetry),
    })),
    ...[...byRegion(groups)].map(([region, list]) => ({
      list,
      run: () => releaseGroups(ports, region, list, into, telemetry),
    })),
  ];
  await Promise.all(
    passes.map(({ list, run }) =>
      run().catch((error: unknown) => {
        const why = errorText(error);
        telemetry.error(`release could not read what is suspended: ${why}`);
        for (const t of list)
          if (!into.has(t.id))
            into.set(t.id, {
              resumed: null,
              detail: `release could not read what is suspended (${why}); the next tick tries again`,
            });
      }),
    ),
  );
  return into;
}
