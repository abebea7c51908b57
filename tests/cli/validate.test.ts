/**
 * `governor validate` through main() with a captured CliIo, on the fixture policies under
 * events/policies/: exit 0 and one summary line per valid file; exit 2 and one line per problem,
 * each naming the file, the path and the fix. Every invalid fixture is named for the rule it
 * breaks, and every fixture in the folder has a case here.
 */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { CliIo } from '#shared/cli/io.ts';
import { main } from '#shared/cli/main.ts';

const DIR = 'events/policies';

async function validate(...files: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    stdout: (l) => out.push(l),
    stderr: (l) => err.push(l),
    stderrIsTTY: false,
    cwd: process.cwd(),
  };
  const code = await main(['validate', ...files], io);
  return { code, out, err };
}

const VALID = [
  {
    file: 'valid-minimal.yaml',
    summary:
      'valid: 1 target: chat-llm (sagemaker-variant, us-east-1, 1-8 instances, invocationsPerInstance)',
  },
  {
    file: 'valid-every-field.yaml',
    summary:
      'valid: 1 target: chat-llm (sagemaker-variant, us-east-1, 2-80 instances, invocationsPerInstance+gpuUtilization+queueDepthPerInstance+p95LatencyMs)',
  },
  {
    file: 'valid-three-kinds.json',
    summary:
      'valid: 3 targets: embed (sagemaker-inference-component, eu-west-1, 0-6 instances, concurrencyPerInstance); ' +
      'batch (ec2-asg, us-west-2, 0-40 instances, queueDepthPerInstance); ' +
      'chat (sagemaker-variant, us-east-1, 1-4 instances, p99LatencyMs+gpuMemoryUtilization)',
  },
];

/** Each invalid fixture and the exact lines `governor validate` prints for it (after "FILE: "). */
const INVALID: { file: string; lines: string[] }[] = [
  {
    file: 'invalid-min-capacity-above-max.yaml',
    lines: [
      'targets[0].scaling.minCapacity (12) is greater than maxCapacity (8): lower minCapacity or raise maxCapacity',
    ],
  },
  {
    file: 'invalid-scale-to-zero-on-variant.yaml',
    lines: [
      'targets[0].scaling.scaleToZero is not supported for kind sagemaker-variant (an endpoint variant keeps at least 1 instance): set it to false, or use an inference component',
      // Said at once now (it used to come only after the line above was fixed).
      'targets[0].scaling.activation.cloudwatch is required for activation metric "invocations" on kind sagemaker-variant: no built-in metric carries the total, so name the namespace, metricName and dimensions (only an inference component\'s "invocations" has one)',
    ],
  },
  {
    file: 'invalid-min-capacity-zero-without-scale-to-zero.yaml',
    lines: [
      'targets[0].scaling.minCapacity is 0 but scaleToZero is false: set minCapacity to 1 or more, or scaleToZero: true',
    ],
  },
  {
    file: 'invalid-scale-to-zero-without-activation.yaml',
    lines: [
      'targets[0].scaling.activation is required when scaleToZero is true: name the total metric and threshold that wake the target from zero',
    ],
  },
  {
    file: 'invalid-scale-in-breaches-below-scale-out.yaml',
    lines: [
      'targets[0].damping.scaleInBreaches (2) is less than scaleOutBreaches (3): scale-in must wait at least as long as scale-out',
    ],
  },
  {
    file: 'invalid-stabilization-shorter-than-period.yaml',
    lines: [
      'targets[0].damping.scaleInStabilizationSeconds (60) is shorter than periodSeconds (120): make the window at least one period',
    ],
  },
  {
    file: 'invalid-stale-after-shorter-than-period.yaml',
    lines: [
      'targets[0].signals[0].staleAfterSeconds (30) is shorter than damping.periodSeconds (60): every reading would be stale',
    ],
  },
  {
    file: 'invalid-duplicate-signal-metric.yaml',
    lines: [
      'targets[0].signals[2].metric repeats gpuUtilization (already signals[0]): keep one entry per metric',
    ],
  },
  {
    file: 'invalid-duplicate-target-id.yaml',
    lines: ['targets[1].id "chat-llm" is already used by targets[0]: ids must be unique'],
  },
  {
    file: 'invalid-same-resource-twice.yaml',
    lines: [
      'targets[1] manages the same resource as targets[0] (us-east-1/endpoint/chat-llm-prod/variant/AllTraffic): two policies would fight over it',
    ],
  },
  {
    file: 'invalid-forecast-without-requests-per-instance.yaml',
    lines: [
      'targets[0].forecast.requestsPerInstance is needed to turn forecast demand into instances: set it, add an invocationsPerInstance signal, or set instanceCapacity',
    ],
  },
  {
    file: 'invalid-warm-pool-min-above-max.yaml',
    lines: ['targets[0].warmPool.minSize (4) is greater than maxSize (2): lower minSize or raise maxSize'],
  },
  {
    // Four independent problems (schema, bound rule, duplicate id, CloudWatch source), all at once:
    // the source rules judge the targets that pass their schema even when another does not.
    file: 'invalid-several-problems.yaml',
    lines: [
      'targets[0].signals[0].target must be greater than 0',
      'targets[1].scaling.minCapacity (9) is greater than maxCapacity (4): lower minCapacity or raise maxCapacity',
      'targets[3].id "embed" is already used by targets[1]: ids must be unique',
      'targets[2].signals[0].cloudwatch is required for queueDepthPerInstance on kind ec2-asg: no built-in metric carries it, so name the namespace, metricName and dimensions',
    ],
  },
  {
    file: 'invalid-group-signal-without-source.yaml',
    lines: [
      'targets[0].signals[0].cloudwatch is required for queueDepthPerInstance on kind ec2-asg: no built-in metric carries it, so name the namespace, metricName and dimensions',
    ],
  },
  {
    file: 'invalid-scale-to-zero-with-min-capacity.yaml',
    lines: [
      'targets[0].scaling.minCapacity is 1 but scaleToZero is true: the target can never reach zero; set minCapacity to 0, or scaleToZero: false',
    ],
  },
  {
    file: 'invalid-warm-pool-on-sagemaker-without-forecast.yaml',
    lines: [
      'targets[0].warmPool needs forecast on kind sagemaker-variant: SageMaker keeps no warm pool, so Governor keeps standby headroom above the forecast floor; add a forecast section, or remove warmPool',
    ],
  },
  {
    file: 'invalid-noise-floor-without-instance-capacity.yaml',
    lines: [
      'targets[0].noise.floorSigmas needs instanceCapacity.requestsPerMinuteAtSlo to turn demand plus noise into instances: add it (from a load test), or set floorSigmas to 0',
    ],
  },
  {
    file: 'invalid-noise-band-without-invocations.yaml',
    lines: [
      'targets[0].noise.bandSigmas widens the invocationsPerInstance band, and this target has no such signal: add one, or set bandSigmas to 0',
    ],
  },
  {
    file: 'invalid-unknown-field.yaml',
    lines: [
      'targets[0].damping has unknown field "scaleOutBreach": remove or check the spelling',
      '(file) has unknown field "owner": remove or check the spelling',
    ],
  },
  {
    file: 'invalid-wrong-types.yaml',
    lines: [
      'targets[0].scaling.minCapacity must be a number, got a string ("1")',
      'targets[0].scaling.maxCapacity must be a whole number, got 8.5',
      'targets[0].panic must be a mapping of fields, got a list',
    ],
  },
  {
    file: 'invalid-out-of-range.yaml',
    lines: [
      'targets[0].region must be an AWS region name such as us-east-1',
      'targets[0].signals[0].target must be greater than 0',
      'targets[0].signals[0].tolerance must be at most 0.9',
      'targets[0].damping.periodSeconds must be a whole number of seconds greater than 0',
    ],
  },
  {
    file: 'invalid-unknown-kind-and-metric.yaml',
    lines: [
      'targets[0].kind is missing or unknown: use one of sagemaker-variant, sagemaker-inference-component, ec2-asg',
      'targets[1].signals[0].metric is missing or unknown: use one of invocationsPerInstance, gpuUtilization, gpuMemoryUtilization, queueDepthPerInstance, concurrencyPerInstance, p95LatencyMs, p99LatencyMs',
    ],
  },
  {
    file: 'invalid-version-and-empty-targets.json',
    lines: ['version must be one of 1', 'targets needs at least one target'],
  },
  {
    file: 'invalid-yaml-syntax.yaml',
    lines: [
      '(line 6) is not valid YAML or JSON: Flow map in block collection must be sufficiently indented and end with a }',
    ],
  },
  {
    file: 'invalid-yaml-duplicate-key.yaml',
    lines: ['(line 9) is not valid YAML or JSON: Map keys must be unique'],
  },
];

describe('governor validate on valid policy files', () => {
  it.each(VALID)('$file exits 0 with a one-line summary of its targets', async ({ file, summary }) => {
    const { code, out, err } = await validate(`${DIR}/${file}`);
    expect({ code, out, err }).toEqual({ code: 0, out: [`${DIR}/${file}: ${summary}`], err: [] });
  });

  it('the example policy in examples/ is valid', async () => {
    const { code, out, err } = await validate('examples/policy.yaml');
    expect(err).toEqual([]);
    expect(code).toBe(0);
    expect(out).toHaveLength(1);
    expect(out[0]).toMatch(/^examples\/policy\.yaml: valid: 1 target: chat-llm \(sagemaker-variant/);
  });
});

describe('governor validate on invalid policy files', () => {
  it.each(INVALID)(
    '$file exits 2 with one line per problem, naming the path and the fix',
    async ({ file, lines }) => {
      const { code, out, err } = await validate(`${DIR}/${file}`);
      expect({ code, out, err }).toEqual({ code: 2, out: [], err: lines.map((l) => `${DIR}/${file}: ${l}`) });
    },
  );

  it('every fixture under events/policies has a case here, and every invalid one names its rule', () => {
    const covered = [...VALID, ...INVALID].map((c) => c.file).sort();
    const files = readdirSync(DIR).sort();
    expect(files).toEqual(covered);
    for (const f of files) expect(f).toMatch(/^(valid|invalid)-[a-z0-9-]+\.(yaml|json)$/);
  });
});

describe('governor validate with several files or none', () => {
  it('checks every file, prints a line for each, and exits 2 when any one is invalid', async () => {
    const { code, out, err } = await validate(
      `${DIR}/valid-minimal.yaml`,
      `${DIR}/invalid-duplicate-target-id.yaml`,
      `${DIR}/valid-three-kinds.json`,
    );
    expect(code).toBe(2);
    expect(out.map((l) => l.split(':')[0])).toEqual([
      `${DIR}/valid-minimal.yaml`,
      `${DIR}/valid-three-kinds.json`,
    ]);
    expect(err).toEqual([
      `${DIR}/invalid-duplicate-target-id.yaml: targets[1].id "chat-llm" is already used by targets[0]: ids must be unique`,
    ]);
  });

  it.each([
    {
      case: 'a missing file exits 2 with one line naming it',
      args: [`${DIR}/no-such-policy.yaml`],
      err: [`${DIR}/no-such-policy.yaml: cannot read the file (ENOENT): check the path`],
    },
    {
      case: 'a folder instead of a file exits 2 with one line naming it',
      args: [DIR],
      err: [`${DIR}: cannot read the file (EISDIR): it is a folder: name a file in it`],
    },
    {
      case: 'no file at all exits 2 with the usage',
      args: [],
      err: [
        'governor validate: usage: governor validate FILE... [--cost] | governor validate MAIN --part FILE [--part FILE ...] [--cost] (YAML or JSON policy files)',
      ],
    },
    {
      case: 'an unknown option exits 2 naming it (validate takes only --part)',
      args: ['--strict', `${DIR}/valid-minimal.yaml`],
      err: ["governor validate: Unknown option '--strict' (--help lists the options)"],
    },
  ])('$case', async ({ args, err: expected }) => {
    const { code, out, err } = await validate(...args);
    expect({ code, out, err }).toEqual({ code: 2, out: [], err: expected });
  });
});

describe('the summary names what the functions will act on beyond the targets', () => {
  it("says a target's capacity mix and the failover groups", async () => {
    const mix = await validate('examples/capacity-mix.yaml');
    expect(mix.out.join('\n')).toContain(
      'chat-llm-asg (ec2-asg, us-east-1, 2-40 instances, invocationsPerInstance, capacity mix: 3 pools, 4 committed, spot up to 60 %, budget 30 USD/h)',
    );
    const failover = await validate('examples/failover.yaml');
    expect(failover.out.join('\n')).toMatch(
      /; 1 failover group: chat-llm \(primary-standby, route53-weighted: chat-llm-use1, chat-llm-usw2\)$/m,
    );
  });
});
