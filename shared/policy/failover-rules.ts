/**
 * Cross-field rules of the `failover` block, checked after each field is valid on its own.
 * Each message names the path and the fix; tests/policy/failover-rules.test.ts pins every one
 * and tests/policy/fixtures/failover/ holds a file that breaks it.
 */
import type { FailoverGroup, FailoverPolicy } from './failover-schema.ts';
import type { PolicyProblem } from './rules.ts';
import { formatPath } from './rules.ts';
import type { TargetPolicy } from './schema.ts';

type Path = (string | number)[];
type Add = (path: Path, message: string) => void;

/** Worst-case minutes from the first breaching period to 100 % shifted; must fit rtoMinutes. */
export function worstCaseFailoverMinutes(g: FailoverGroup): number {
  const detect = (g.health.failPeriods * g.health.periodSeconds) / 60;
  return detect + g.shift.prescaleTimeoutMinutes + g.shift.checkMinutes * (g.shift.stepsPercent.length - 1);
}

function memberProblems(
  g: FailoverGroup,
  at: Path,
  targets: readonly (TargetPolicy | undefined)[],
  add: Add,
): (string | undefined)[] {
  const byId = new Map(targets.filter((t) => t !== undefined).map((t) => [t.id, t]));
  const incomplete = targets.includes(undefined);
  const regions = new Map<string, number>();
  return g.members.map((m, i) => {
    const here = [...at, 'members', i];
    if (g.mode === 'active-active' && m.role !== undefined)
      add([...here, 'role'], 'is for primary-standby groups: remove it, or set mode: primary-standby');
    if (g.mode === 'active-active' && m.weight === undefined)
      add(
        [...here, 'weight'],
        'is required in an active-active group: give each member its percent of traffic',
      );
    if (g.mode === 'primary-standby' && m.weight !== undefined)
      add([...here, 'weight'], 'is for active-active groups: remove it (the primary takes 100 %)');
    const t = byId.get(m.targetId);
    if (!t) {
      // A target that failed its own schema may be the one named: its problems are reported already.
      if (!incomplete) {
        const ids = [...byId.keys()].join(', ');
        add([...here, 'targetId'], `"${m.targetId}" is not a target in this file: use one of ${ids}`);
      }
      return undefined;
    }
    const first = regions.get(t.region);
    if (first !== undefined) {
      add(
        [...here, 'targetId'],
        `"${m.targetId}" is in ${t.region}, as members[${first}] is: a group's targets must be in different regions`,
      );
    }
    regions.set(t.region, i);
    if (m.warmFloor !== undefined) {
      if (g.mode === 'active-active' || m.role === 'primary') {
        add(
          [...here, 'warmFloor'],
          'is for standby members: remove it (a serving region scales on its own signals)',
        );
      } else if (m.warmFloor < t.scaling.minCapacity || m.warmFloor > t.scaling.maxCapacity) {
        add(
          [...here, 'warmFloor'],
          `(${m.warmFloor}) is outside target ${t.id}'s minCapacity-maxCapacity (${t.scaling.minCapacity}-${t.scaling.maxCapacity}): set it within them, or change the target's bounds`,
        );
      }
    }
    return t.region;
  });
}

function shapeProblems(g: FailoverGroup, at: Path, add: Add): void {
  if (g.mode === 'primary-standby') {
    const primaries = g.members.filter((m) => m.role === 'primary').length;
    if (primaries !== 1) {
      add(
        [...at, 'members'],
        `needs exactly one member with role: primary (found ${primaries}): mark the region that serves traffic, or set mode: active-active`,
      );
    }
  } else {
    const sum = g.members.reduce((s, m) => s + (m.weight ?? 0), 0);
    if (g.members.every((m) => m.weight !== undefined) && sum !== 100)
      add([...at, 'members'], `weights sum to ${sum}: make them sum to 100`);
  }
  const steps = g.shift.stepsPercent;
  const down = steps.findIndex((s, i) => i > 0 && s <= (steps[i - 1] ?? 0));
  if (down > 0) {
    add(
      [...at, 'shift', 'stepsPercent', down],
      `(${steps[down]}) is not above the step before it (${steps[down - 1]}): steps must strictly increase`,
    );
  }
  if (steps.at(-1) !== 100)
    add([...at, 'shift', 'stepsPercent'], `ends at ${steps.at(-1)}: the last step must be 100`);
  const h = g.health;
  if (h.failPeriods > h.failWindowPeriods) {
    add(
      [...at, 'health', 'failPeriods'],
      `(${h.failPeriods}) is greater than failWindowPeriods (${h.failWindowPeriods}): N of M needs N <= M`,
    );
  }
  if (h.recoverPeriods <= h.failWindowPeriods) {
    add(
      [...at, 'health', 'recoverPeriods'],
      `(${h.recoverPeriods}) is not longer than failWindowPeriods (${h.failWindowPeriods}): recovery must take longer than failure, or traffic flaps`,
    );
  }
  if (h.staleAfterSeconds < h.periodSeconds) {
    add(
      [...at, 'health', 'staleAfterSeconds'],
      `(${h.staleAfterSeconds}) is shorter than periodSeconds (${h.periodSeconds}): every period would be unknown`,
    );
  }
  const worst = worstCaseFailoverMinutes(g);
  if (worst > g.rtoMinutes) {
    add(
      [...at, 'rtoMinutes'],
      `(${g.rtoMinutes}) is shorter than the worst-case failover, ${worst} min (failPeriods x periodSeconds + prescaleTimeoutMinutes + checkMinutes per step after the first): shorten those, use fewer steps, or raise rtoMinutes`,
    );
  }
}

const ROUTING_FIELD = {
  'arc-routing-controls': 'routingControls',
  'route53-weighted': 'setIdentifiers',
  'global-accelerator': 'endpointGroups',
} as const;

function routingProblems(g: FailoverGroup, at: Path, regions: (string | undefined)[], add: Add): void {
  const field = ROUTING_FIELD[g.routing.kind];
  const r = g.routing;
  const keyed: Record<string, string> =
    r.kind === 'arc-routing-controls'
      ? r.routingControls
      : r.kind === 'route53-weighted'
        ? r.setIdentifiers
        : r.endpointGroups;
  const path = [...at, 'routing', field];
  regions.forEach((region, i) => {
    if (region !== undefined && keyed[region] === undefined)
      add(path, `has no entry for ${region} (members[${i}]): add one, as routing kind ${r.kind} needs`);
  });
  if (!regions.includes(undefined)) {
    for (const region of Object.keys(keyed)) {
      if (!regions.includes(region))
        add([...path, region], 'is not the region of any member: remove it, or add that region to the group');
    }
  }
  if (r.kind === 'global-accelerator') {
    for (const [region, arn] of Object.entries(r.endpointGroups)) {
      if (!arn.startsWith(`${r.listenerArn}/endpoint-group/`))
        add(
          [...path, region],
          "is not an endpoint group of listenerArn: use one of that listener's endpoint groups",
        );
    }
  }
}

/** Every cross-field problem of a field-valid failover block against the file's targets (holes allowed). */
export function failoverProblems(
  failover: FailoverPolicy,
  targets: readonly (TargetPolicy | undefined)[],
): PolicyProblem[] {
  const problems: PolicyProblem[] = [];
  const add: Add = (path, message) => problems.push({ path: formatPath(path), message });
  const ids = new Map<string, number>();
  const grouped = new Map<string, number>();
  failover.groups.forEach((g, gi) => {
    const at: Path = ['failover', 'groups', gi];
    const first = ids.get(g.id);
    if (first !== undefined)
      add([...at, 'id'], `"${g.id}" is already used by failover.groups[${first}]: group ids must be unique`);
    ids.set(g.id, gi);
    g.members.forEach((m, mi) => {
      const other = grouped.get(m.targetId);
      if (other !== undefined && other !== gi) {
        add(
          [...at, 'members', mi, 'targetId'],
          `"${m.targetId}" is already in failover.groups[${other}]: a target belongs to one group at most`,
        );
      }
      grouped.set(m.targetId, gi);
    });
    const regions = memberProblems(g, at, targets, add);
    shapeProblems(g, at, add);
    routingProblems(g, at, regions, add);
  });
  return problems;
}
