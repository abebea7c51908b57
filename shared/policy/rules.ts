/**
 * Rules that span fields, checked after each field is valid on its own. Each message names
 * the path and says how to fix it, because an operator reads it in a terminal or an alarm.
 */
import { capacityMixProblems } from './capacity-mix-rules.ts';
import { plannedRequestsPerInstance, type TargetPolicy } from './schema.ts';
import { sloProblems } from './slo-rules.ts';

export interface PolicyProblem {
  path: string;
  message: string;
}

type Path = (string | number)[];

function physicalKey(t: TargetPolicy): string {
  switch (t.kind) {
    case 'sagemaker-variant':
      return `${t.region}/endpoint/${t.endpointName}/variant/${t.variantName}`;
    case 'sagemaker-inference-component':
      return `${t.region}/inference-component/${t.inferenceComponentName}`;
    case 'ec2-asg':
      return `${t.region}/asg/${t.autoScalingGroupName}`;
  }
}

function targetProblems(t: TargetPolicy, at: Path, add: (path: Path, message: string) => void): void {
  const { scaling, damping } = t;
  if (scaling.minCapacity > scaling.maxCapacity) {
    add(
      [...at, 'scaling', 'minCapacity'],
      `(${scaling.minCapacity}) is greater than maxCapacity (${scaling.maxCapacity}): lower minCapacity or raise maxCapacity`,
    );
  }
  if (scaling.scaleToZero && t.kind === 'sagemaker-variant') {
    add(
      [...at, 'scaling', 'scaleToZero'],
      'is not supported for kind sagemaker-variant (an endpoint variant keeps at least 1 instance): set it to false, or use an inference component',
    );
  }
  if (scaling.minCapacity === 0 && !scaling.scaleToZero) {
    add(
      [...at, 'scaling', 'minCapacity'],
      'is 0 but scaleToZero is false: set minCapacity to 1 or more, or scaleToZero: true',
    );
  }
  if (scaling.scaleToZero && scaling.minCapacity > 0) {
    // minCapacity is a hard bound the engine always clamps to, so zero would never be reached.
    add(
      [...at, 'scaling', 'minCapacity'],
      `is ${scaling.minCapacity} but scaleToZero is true: the target can never reach zero; set minCapacity to 0, or scaleToZero: false`,
    );
  }
  if (scaling.scaleToZero && !scaling.activation) {
    add(
      [...at, 'scaling', 'activation'],
      'is required when scaleToZero is true: name the total metric and threshold that wake the target from zero',
    );
  }
  if (damping.scaleInBreaches < damping.scaleOutBreaches) {
    add(
      [...at, 'damping', 'scaleInBreaches'],
      `(${damping.scaleInBreaches}) is less than scaleOutBreaches (${damping.scaleOutBreaches}): scale-in must wait at least as long as scale-out`,
    );
  }
  if (damping.scaleInStabilizationSeconds < damping.periodSeconds) {
    add(
      [...at, 'damping', 'scaleInStabilizationSeconds'],
      `(${damping.scaleInStabilizationSeconds}) is shorter than periodSeconds (${damping.periodSeconds}): make the window at least one period`,
    );
  }
  if (t.forecast?.enabled && plannedRequestsPerInstance(t) === null) {
    add(
      [...at, 'forecast', 'requestsPerInstance'],
      'is needed to turn forecast demand into instances: set it, add an invocationsPerInstance signal, or set instanceCapacity',
    );
  }
  if (t.warmPool?.enabled && t.kind !== 'ec2-asg' && !t.forecast?.enabled) {
    add(
      [...at, 'warmPool'],
      `needs forecast on kind ${t.kind}: SageMaker keeps no warm pool, so Governor keeps standby headroom above the forecast floor; add a forecast section, or remove warmPool`,
    );
  }
  if (t.noise?.enabled && t.noise.floorSigmas > 0 && !t.instanceCapacity) {
    add(
      [...at, 'noise', 'floorSigmas'],
      'needs instanceCapacity.requestsPerMinuteAtSlo to turn demand plus noise into instances: add it (from a load test), or set floorSigmas to 0',
    );
  }
  if (
    t.noise?.enabled &&
    t.noise.bandSigmas > 0 &&
    !t.signals.some((s) => s.metric === 'invocationsPerInstance')
  ) {
    add(
      [...at, 'noise', 'bandSigmas'],
      'widens the invocationsPerInstance band, and this target has no such signal: add one, or set bandSigmas to 0',
    );
  }
  if (t.warmPool && t.warmPool.minSize > t.warmPool.maxSize) {
    add(
      [...at, 'warmPool', 'minSize'],
      `(${t.warmPool.minSize}) is greater than maxSize (${t.warmPool.maxSize}): lower minSize or raise maxSize`,
    );
  }
  capacityMixProblems(t, at, add);
  sloProblems(t, at, add);
  const seen = new Map<string, number>();
  t.signals.forEach((s, i) => {
    const first = seen.get(s.metric);
    if (first !== undefined) {
      add(
        [...at, 'signals', i, 'metric'],
        `repeats ${s.metric} (already signals[${first}]): keep one entry per metric`,
      );
    }
    seen.set(s.metric, i);
    if (s.staleAfterSeconds < damping.periodSeconds) {
      add(
        [...at, 'signals', i, 'staleAfterSeconds'],
        `(${s.staleAfterSeconds}) is shorter than damping.periodSeconds (${damping.periodSeconds}): every reading would be stale`,
      );
    }
  });
}

/**
 * Every cross-field problem of the targets that are valid field by field. `targets` may have
 * holes (undefined) where a target failed its own schema, so one broken target does not hide
 * the rule breaches of the others.
 */
export function crossFieldProblems(targets: readonly (TargetPolicy | undefined)[]): PolicyProblem[] {
  const problems: PolicyProblem[] = [];
  const add = (path: Path, message: string) => problems.push({ path: formatPath(path), message });
  const ids = new Map<string, number>();
  const places = new Map<string, number>();
  targets.forEach((t, i) => {
    if (!t) return;
    const at: Path = ['targets', i];
    const firstId = ids.get(t.id);
    if (firstId !== undefined)
      add([...at, 'id'], `"${t.id}" is already used by targets[${firstId}]: ids must be unique`);
    ids.set(t.id, i);
    const key = physicalKey(t);
    const firstPlace = places.get(key);
    if (firstPlace !== undefined) {
      add(
        at,
        `manages the same resource as targets[${firstPlace}] (${key}): two policies would fight over it`,
      );
    }
    places.set(key, i);
    targetProblems(t, at, add);
  });
  return problems;
}

/** `targets[0].scaling.minCapacity` from zod's path array. */
export function formatPath(path: readonly PropertyKey[]): string {
  return path
    .map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i === 0 ? '' : '.'}${String(p)}`))
    .join('');
}
