/**
 * `governor validate` on the failover fixtures in tests/policy/fixtures/failover/: each invalid
 * file breaks one cross-field rule of shared/policy/failover-rules.ts and gets exactly its line(s);
 * the valid ones (and examples/failover.yaml) pass. Every fixture in the folder has a case here.
 */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';

const DIR = 'tests/policy/fixtures/failover';

const validate = (file: string) => runCli(['validate', file]);

const VALID = ['valid-primary-standby.yaml', 'valid-active-active-arc.yaml'];

const INVALID: { file: string; lines: string[] }[] = [
  {
    file: 'invalid-active-active-weights.yaml',
    lines: ['failover.groups[0].members weights sum to 90: make them sum to 100'],
  },
  {
    file: 'invalid-endpoint-group-of-other-listener.yaml',
    lines: [
      "failover.groups[0].routing.endpointGroups.us-west-2 is not an endpoint group of listenerArn: use one of that listener's endpoint groups",
    ],
  },
  {
    file: 'invalid-member-not-a-target.yaml',
    lines: [
      'failover.groups[0].members[1].targetId "wset" is not a target in this file: use one of east, west, east-2',
    ],
  },
  {
    file: 'invalid-members-same-region.yaml',
    lines: [
      'failover.groups[0].members[1].targetId "east-2" is in us-east-1, as members[0] is: a group\'s targets must be in different regions',
    ],
  },
  {
    file: 'invalid-recover-window-not-longer.yaml',
    lines: [
      'failover.groups[0].health.recoverPeriods (5) is not longer than failWindowPeriods (5): recovery must take longer than failure, or traffic flaps',
    ],
  },
  {
    file: 'invalid-routing-field-of-other-kind.yaml',
    lines: [
      'failover.groups[0].routing.endpointGroups is required (record)',
      'failover.groups[0].routing has unknown field "setIdentifiers": remove or check the spelling',
    ],
  },
  {
    file: 'invalid-routing-missing-region.yaml',
    lines: [
      'failover.groups[0].routing.setIdentifiers has no entry for us-west-2 (members[1]): add one, as routing kind route53-weighted needs',
    ],
  },
  {
    file: 'invalid-rto-too-short.yaml',
    lines: [
      'failover.groups[0].rtoMinutes (15) is shorter than the worst-case failover, 19 min (failPeriods x periodSeconds + prescaleTimeoutMinutes + checkMinutes per step after the first): shorten those, use fewer steps, or raise rtoMinutes',
    ],
  },
  {
    file: 'invalid-steps-not-ending-at-100.yaml',
    lines: ['failover.groups[0].shift.stepsPercent ends at 50: the last step must be 100'],
  },
  {
    file: 'invalid-steps-not-increasing.yaml',
    lines: [
      'failover.groups[0].shift.stepsPercent[1] (50) is not above the step before it (50): steps must strictly increase',
    ],
  },
  {
    file: 'invalid-two-primaries.yaml',
    lines: [
      'failover.groups[0].members needs exactly one member with role: primary (found 2): mark the region that serves traffic, or set mode: active-active',
    ],
  },
  {
    file: 'invalid-warm-floor-above-max.yaml',
    lines: [
      "failover.groups[0].members[1].warmFloor (9) is outside target west's minCapacity-maxCapacity (1-8): set it within them, or change the target's bounds",
    ],
  },
];

describe('failover fixtures through governor validate', () => {
  it.each(VALID)('%s exits 0', async (file) => {
    const { code, err } = await validate(`${DIR}/${file}`);
    expect({ code, err }).toEqual({ code: 0, err: [] });
  });

  it('examples/failover.yaml exits 0', async () => {
    const { code, err } = await validate('examples/failover.yaml');
    expect({ code, err }).toEqual({ code: 0, err: [] });
  });

  it.each(INVALID)(
    '$file exits 2 with one line per problem, naming the path and the fix',
    async ({ file, lines }) => {
      const { code, out, err } = await validate(`${DIR}/${file}`);
      expect({ code, out, err }).toEqual({ code: 2, out: [], err: lines.map((l) => `${DIR}/${file}: ${l}`) });
    },
  );

  it('every fixture in the folder has a case here', () => {
    expect(readdirSync(DIR).sort()).toEqual([...VALID, ...INVALID.map((c) => c.file)].sort());
  });
});
