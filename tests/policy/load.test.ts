/**
 * The policy loader: text (YAML or JSON) to a policy with every default filled in, or one
 * problem per line that names the path and says what to write instead.
 */
import { describe, expect, it } from 'vitest';
import { formatProblem, parsePolicyText, policyOrThrow, validatePolicy } from '#shared/policy/load.ts';
import { plannedRequestsPerInstance, type TargetPolicy } from '#shared/policy/schema.ts';

const MINIMAL = `
version: 1
targets:
  - id: chat
    kind: sagemaker-variant
    region: us-east-1
    endpointName: chat-prod
    scaling: { minCapacity: 1, maxCapacity: 8 }
    signals:
      - { metric: invocationsPerInstance, target: 84 }
      - { metric: p95LatencyMs, sloMs: 2000 }
`;

function only(text: string): TargetPolicy {
  const result = parsePolicyText(text);
  if (!result.ok) throw new Error(result.problems.map(formatProblem).join('\n'));
  return result.policy.targets[0]!;
}

/** The problem lines for a policy given as data. */
const problemLines = (data: unknown): string[] => {
  const result = validatePolicy(data);
  return result.ok ? [] : result.problems.map(formatProblem);
};

const target = (extra: Record<string, unknown> = {}) => ({
  id: 'chat',
  kind: 'sagemaker-variant',
  region: 'us-east-1',
  endpointName: 'chat-prod',
  scaling: { minCapacity: 1, maxCapacity: 8 },
  signals: [{ metric: 'invocationsPerInstance', target: 84 }],
  ...extra,
});

describe('defaults', () => {
  const t = only(MINIMAL);

  it('fills damping with the documented defaults (period 60 s, N 2, M 10, 300 s window, cooldowns 120 s and 300 s)', () => {
    expect(t.damping).toEqual({
      periodSeconds: 60,
      scaleOutBreaches: 2,
      scaleInBreaches: 10,
      scaleInStabilizationSeconds: 300,
      scaleOutCooldownSeconds: 120,
      scaleInCooldownSeconds: 300,
      stepUp: { instances: 4, percent: 100 },
      stepDown: { instances: 1, percent: 20 },
    });
  });

  it('fills panic with the documented defaults (2x target for one period, 600 s calm)', () => {
    expect(t.panic).toEqual({ enabled: true, threshold: 2, periods: 1, stableWindowSeconds: 600 });
  });

  it('gives load signals a 10 % band and latency signals a 5 % band, an 80 % scale-in block and a 2x cap', () => {
    expect(t.signals).toEqual([
      { metric: 'invocationsPerInstance', target: 84, tolerance: 0.1, staleAfterSeconds: 180 },
      {
        metric: 'p95LatencyMs',
        sloMs: 2000,
        scaleInBlockFraction: 0.8,
        tolerance: 0.05,
        maxScaleOutFactor: 2,
        staleAfterSeconds: 180,
      },
    ]);
  });

  it('defaults the variant name to AllTraffic, scale to zero off, and refuses conflicting scalers', () => {
    expect(t).toMatchObject({ variantName: 'AllTraffic', onConflictingScaler: 'refuse' });
    expect(t.scaling).toEqual({ minCapacity: 1, maxCapacity: 8, scaleToZero: false });
    expect(t.forecast).toBeUndefined();
    expect(t.warmPool).toBeUndefined();
  });

  it('fills a forecast and a warm pool given as empty mappings with their defaults', () => {
    const withBoth = only(`${MINIMAL}    forecast: {}\n    warmPool: {}\n`);
    expect(withBoth.forecast).toEqual({
      enabled: true,
      quantile: 'p90',
      leadTimeMinutes: 10,
      historyDays: 14,
      refreshMinutes: 60,
      dayStartMinute: 0,
      scheduledActions: true,
    });
    expect(withBoth.warmPool).toEqual({
      enabled: true,
      minSize: 0,
      maxSize: 10,
      warmStartMinutes: 1,
      idleCostFraction: 0.05,
    });
  });

  it('keeps a partial step limit from merging with the default (both fields are required)', () => {
    expect(
      problemLines({ version: 1, targets: [target({ damping: { stepUp: { instances: 2 } } })] }),
    ).toEqual(['targets[0].damping.stepUp.percent is required (number)']);
  });
});

describe('planned requests per instance for the forecast floor', () => {
  it.each([
    {
      case: 'forecast.requestsPerInstance wins over everything',
      extra: {
        forecast: { requestsPerInstance: 90 },
        instanceCapacity: { requestsPerMinuteAtSlo: 120 },
      },
      planned: 90,
    },
    {
      case: 'else the invocationsPerInstance target',
      extra: { instanceCapacity: { requestsPerMinuteAtSlo: 120 } },
      planned: 84,
    },
    {
      case: 'else instanceCapacity.requestsPerMinuteAtSlo',
      extra: {
        signals: [{ metric: 'gpuUtilization', target: 70 }],
        instanceCapacity: { requestsPerMinuteAtSlo: 120 },
      },
      planned: 120,
    },
    {
      case: 'else unknown',
      extra: { signals: [{ metric: 'gpuUtilization', target: 70 }] },
      planned: null,
    },
  ])('$case', ({ extra, planned }) => {
    const t = policyOrThrow({ version: 1, targets: [target(extra)] }).targets[0]!;
    expect(plannedRequestsPerInstance(t)).toBe(planned);
  });
});

describe('field problems, one line each', () => {
  it.each([
    {
      case: 'a missing field is required, with its type',
      data: { version: 1, targets: [target({ endpointName: undefined })] },
      lines: ['targets[0].endpointName is required (string)'],
    },
    {
      case: 'a string where a number goes shows the string',
      data: { version: 1, targets: [target({ scaling: { minCapacity: '1', maxCapacity: 8 } })] },
      lines: ['targets[0].scaling.minCapacity must be a number, got a string ("1")'],
    },
    {
      case: 'a fraction where a whole number goes shows the number',
      data: { version: 1, targets: [target({ damping: { scaleOutBreaches: 1.5 } })] },
      lines: ['targets[0].damping.scaleOutBreaches must be a whole number, got 1.5'],
    },
    {
      case: 'a flag given as a word asks for true or false',
      data: { version: 1, targets: [target({ panic: { enabled: 'yes' } })] },
      lines: ['targets[0].panic.enabled must be true or false, got a string ("yes")'],
    },
    {
      case: 'a list where a mapping goes',
      data: { version: 1, targets: [target({ scaling: [1, 8] })] },
      lines: ['targets[0].scaling must be a mapping of fields, got a list'],
    },
    {
      case: 'an unknown enum value lists the allowed ones',
      data: { version: 1, targets: [target({ onConflictingScaler: 'fight' })] },
      lines: ['targets[0].onConflictingScaler must be one of "refuse", "suspend"'],
    },
    {
      case: 'several unknown fields are named together',
      data: { version: 1, targets: [target({ minCapacity: 1, maxCapacity: 8 })] },
      lines: ['targets[0] has unknown fields "minCapacity", "maxCapacity": remove or check the spelling'],
    },
    {
      case: 'a field of the wrong kind of signal is unknown there',
      data: { version: 1, targets: [target({ signals: [{ metric: 'gpuUtilization', sloMs: 70 }] })] },
      lines: [
        'targets[0].signals[0].target is required (number)',
        'targets[0].signals[0] has unknown field "sloMs": remove or check the spelling',
      ],
    },
    {
      case: 'a signal without a metric lists the metrics',
      data: { version: 1, targets: [target({ signals: [{ target: 70 }] })] },
      lines: [
        'targets[0].signals[0].metric is missing or unknown: use one of invocationsPerInstance, gpuUtilization, gpuMemoryUtilization, queueDepthPerInstance, concurrencyPerInstance, p95LatencyMs, p99LatencyMs',
      ],
    },
    {
      case: 'bounds say inclusive or strict as the schema does',
      data: {
        version: 1,
        targets: [
          target({
            signals: [{ metric: 'p95LatencyMs', sloMs: 2000, scaleInBlockFraction: 0, maxScaleOutFactor: 1 }],
          }),
        ],
      },
      lines: [
        'targets[0].signals[0].scaleInBlockFraction must be greater than 0',
        'targets[0].signals[0].maxScaleOutFactor must be greater than 1',
      ],
    },
    {
      case: 'an id with a space names the allowed characters',
      data: { version: 1, targets: [target({ id: 'chat llm' })] },
      lines: ['targets[0].id must be 1-63 letters, digits, ".", "_" or "-", starting with a letter or digit'],
    },
    {
      case: 'a document that is not a mapping is a problem of the file',
      data: 'version: 1',
      lines: ['(file) must be a mapping of fields, got a string ("version: 1")'],
    },
  ])('$case', ({ data, lines }) => {
    expect(problemLines(data)).toEqual(lines);
  });
});

describe('text', () => {
  it('reads JSON as well as YAML, to the same policy', () => {
    const json = JSON.stringify({ version: 1, targets: [target()] });
    const yaml = only(`
version: 1
targets:
  - id: chat
    kind: sagemaker-variant
    region: us-east-1
    endpointName: chat-prod
    scaling: { minCapacity: 1, maxCapacity: 8 }
    signals: [{ metric: invocationsPerInstance, target: 84 }]
`);
    expect(only(json)).toEqual(yaml);
  });

  it.each([
    {
      case: 'an empty file says what to write',
      text: '',
      lines: ['(file) is empty: write "version: 1" and a list of targets'],
    },
    {
      case: 'a file of comments only is empty too',
      text: '# nothing yet\n',
      lines: ['(file) is empty: write "version: 1" and a list of targets'],
    },
    {
      case: 'broken syntax names its line',
      text: 'version: 1\ntargets:\n  - id: [chat\n',
      lines: [expect.stringMatching(/^\(line [34]\) is not valid YAML or JSON: /)],
    },
    {
      case: 'a key written twice names its line',
      text: 'version: 1\nversion: 1\ntargets: []\n',
      lines: ['(line 2) is not valid YAML or JSON: Map keys must be unique'],
    },
  ])('$case', ({ text, lines }) => {
    const result = parsePolicyText(text);
    expect(result.ok ? [] : result.problems.map(formatProblem)).toEqual(lines);
  });

  it('policyOrThrow throws one error listing every problem, one per line', () => {
    expect(() =>
      policyOrThrow({ version: 2, targets: [target({ scaling: { minCapacity: 9, maxCapacity: 8 } })] }),
    ).toThrow(
      'invalid policy:\nversion must be one of 1\ntargets[0].scaling.minCapacity (9) is greater than maxCapacity (8): lower minCapacity or raise maxCapacity',
    );
  });
});
