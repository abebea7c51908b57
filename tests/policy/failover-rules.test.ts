/**
 * Failover rules that need no fixture file: boundaries (equal values pass), rules in
 * active-active groups, a broken target not hiding (or faking) a membership problem, and the
 * JSON Schema carrying the block.
 */
import { describe, expect, it } from 'vitest';
import { policyJsonSchema } from '#shared/policy/json-schema.ts';
import { validatePolicy } from '#shared/policy/load.ts';

type Json = Record<string, unknown>;
const target = (id: string, region: string, extra: Json = {}): Json => ({
  id,
  kind: 'sagemaker-variant',
  region,
  endpointName: 'chat',
  scaling: { minCapacity: 1, maxCapacity: 8 },
  signals: [{ metric: 'invocationsPerInstance', target: 84 }],
  ...extra,
});
const routing = {
  kind: 'route53-weighted',
  hostedZoneId: 'Z0123456789ABC',
  recordName: 'chat.example.com',
  setIdentifiers: { 'us-east-1': 'east', 'us-west-2': 'west' },
};
const policy = (
  group: Json,
  targets: Json[] = [target('east', 'us-east-1'), target('west', 'us-west-2')],
) => ({
  version: 1,
  targets,
  failover: {
    groups: [
      {
        id: 'chat',
        members: [{ targetId: 'east', role: 'primary' }, { targetId: 'west' }],
        routing,
        ...group,
      },
    ],
  },
});
const lines = (data: unknown) => {
  const r = validatePolicy(data);
  return r.ok ? [] : r.problems.map((p) => `${p.path} ${p.message}`);
};

describe('failover rules at their boundaries', () => {
  it.each([
    {
      case: 'the defaults are valid (worst case 3 + 10 + 2 x 3 = 19 min, within 20)',
      group: {},
      expected: [],
    },
    {
      case: 'an RTO equal to the worst case is valid',
      group: { rtoMinutes: 19 },
      expected: [],
    },
    {
      case: 'a single step of 100 % is valid',
      group: { shift: { stepsPercent: [100] } },
      expected: [],
    },
    {
      case: 'N of M with N = M is valid, N > M is not',
      group: { health: { failPeriods: 6, failWindowPeriods: 5 } },
      expected: [
        'failover.groups[0].health.failPeriods (6) is greater than failWindowPeriods (5): N of M needs N <= M',
        'failover.groups[0].rtoMinutes (20) is shorter than the worst-case failover, 22 min (failPeriods x periodSeconds + prescaleTimeoutMinutes + checkMinutes per step after the first): shorten those, use fewer steps, or raise rtoMinutes',
      ],
    },
    {
      case: 'a stale limit shorter than the period would make every period unknown',
      group: { health: { staleAfterSeconds: 30 } },
      expected: [
        'failover.groups[0].health.staleAfterSeconds (30) is shorter than periodSeconds (60): every period would be unknown',
      ],
    },
    {
      case: 'a primary-standby group with no primary names the fix',
      group: { members: [{ targetId: 'east' }, { targetId: 'west' }] },
      expected: [
        'failover.groups[0].members needs exactly one member with role: primary (found 0): mark the region that serves traffic, or set mode: active-active',
      ],
    },
    {
      case: 'a warm floor on the primary is refused',
      group: { members: [{ targetId: 'east', role: 'primary', warmFloor: 1 }, { targetId: 'west' }] },
      expected: [
        'failover.groups[0].members[0].warmFloor is for standby members: remove it (a serving region scales on its own signals)',
      ],
    },
    {
      case: 'a warm floor below the standby minCapacity is refused',
      group: {
        members: [
          { targetId: 'east', role: 'primary' },
          { targetId: 'west', warmFloor: 0 },
        ],
      },
      expected: [
        "failover.groups[0].members[1].warmFloor (0) is outside target west's minCapacity-maxCapacity (1-8): set it within them, or change the target's bounds",
      ],
    },
    {
      case: 'active-active members take weights, not roles',
      group: {
        mode: 'active-active',
        members: [{ targetId: 'east', role: 'primary', weight: 50 }, { targetId: 'west' }],
      },
      expected: [
        'failover.groups[0].members[0].role is for primary-standby groups: remove it, or set mode: primary-standby',
        'failover.groups[0].members[1].weight is required in an active-active group: give each member its percent of traffic',
      ],
    },
    {
      case: 'a weight in a primary-standby group is refused',
      group: { members: [{ targetId: 'east', role: 'primary', weight: 100 }, { targetId: 'west' }] },
      expected: [
        'failover.groups[0].members[0].weight is for active-active groups: remove it (the primary takes 100 %)',
      ],
    },
    {
      case: 'a routing entry for a region no member is in is refused',
      group: { routing: { ...routing, setIdentifiers: { ...routing.setIdentifiers, 'eu-west-1': 'eu' } } },
      expected: [
        'failover.groups[0].routing.setIdentifiers.eu-west-1 is not the region of any member: remove it, or add that region to the group',
      ],
    },
  ])('$case', ({ group, expected }) => {
    expect(lines(policy(group))).toEqual(expected);
  });

  it('a target in two groups is refused', () => {
    const data = policy({});
    const groups = data.failover.groups as Json[];
    groups.push({ ...groups[0], id: 'chat-2' });
    expect(lines(data)).toContain(
      'failover.groups[1].members[0].targetId "east" is already in failover.groups[0]: a target belongs to one group at most',
    );
    expect(lines(data)).toContain(
      'failover.groups[1].members[1].targetId "west" is already in failover.groups[0]: a target belongs to one group at most',
    );
  });

  it('a member naming a target that failed its own schema is not reported twice', () => {
    const data = policy({}, [target('east', 'us-east-1'), target('west', 'nowhere')]);
    expect(lines(data)).toEqual(['targets[1].region must be an AWS region name such as us-east-1']);
  });

  it('an unknown routing kind lists the routing kinds', () => {
    expect(lines(policy({ routing: { kind: 'dns' } }))).toEqual([
      'failover.groups[0].routing.kind is missing or unknown: use one of arc-routing-controls, route53-weighted, global-accelerator',
    ]);
  });

  it('the JSON Schema describes the failover block', () => {
    const schema = JSON.stringify(policyJsonSchema());
    for (const field of [
      'failover',
      'stepsPercent',
      'warmFloor',
      'routingControls',
      'endpointGroups',
      'recoverPeriods',
    ])
      expect(schema).toContain(`"${field}"`);
  });
});
