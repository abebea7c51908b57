/**
 * Every cross-field rule of shared/policy/rules.ts, on targets that are valid field by field:
 * the rule's path and message when it is broken, and silence at its boundary (equal values).
 */
import { describe, expect, it } from 'vitest';
import { validatePolicy } from '#shared/policy/load.ts';
import { crossFieldProblems, formatPath } from '#shared/policy/rules.ts';
import { type TargetPolicy, TargetSchema } from '#shared/policy/schema.ts';
import { isLatencySignal, LATENCY_METRICS, METRIC_NAMES } from '#shared/policy/signal-schema.ts';

type Json = Record<string, unknown>;

/** A valid ml.g5 endpoint variant; `extra` replaces top-level fields. */
const variant = (extra: Json = {}): Json => ({
  id: 'chat',
  kind: 'sagemaker-variant',
  region: 'us-east-1',
  endpointName: 'chat-prod',
  scaling: { minCapacity: 1, maxCapacity: 8 },
  signals: [{ metric: 'invocationsPerInstance', target: 84 }],
  ...extra,
});

const component = (extra: Json = {}): Json =>
  variant({ kind: 'sagemaker-inference-component', inferenceComponentName: 'chat-ic', ...extra });

const group = (extra: Json = {}): Json =>
  variant({ kind: 'ec2-asg', endpointName: undefined, autoScalingGroupName: 'gpu-asg', ...extra });

const parsed = (t: Json): TargetPolicy => TargetSchema.parse(JSON.parse(JSON.stringify(t)));
const problems = (...targets: Json[]) => crossFieldProblems(targets.map(parsed));
const lines = (...targets: Json[]) => problems(...targets).map((p) => `${p.path} ${p.message}`);

const zero = {
  minCapacity: 0,
  maxCapacity: 4,
  scaleToZero: true,
  activation: { metric: 'invocations', threshold: 0 },
};

describe('scaling bounds', () => {
  it.each([
    {
      case: 'minCapacity above maxCapacity names both and both fixes',
      target: variant({ scaling: { minCapacity: 9, maxCapacity: 8 } }),
      expected: [
        'targets[0].scaling.minCapacity (9) is greater than maxCapacity (8): lower minCapacity or raise maxCapacity',
      ],
    },
    {
      case: 'minCapacity equal to maxCapacity is a fixed fleet, and valid',
      target: variant({ scaling: { minCapacity: 8, maxCapacity: 8 } }),
      expected: [],
    },
    {
      case: 'minCapacity 0 without scaleToZero asks for one or the other',
      target: component({ scaling: { minCapacity: 0, maxCapacity: 4 } }),
      expected: [
        'targets[0].scaling.minCapacity is 0 but scaleToZero is false: set minCapacity to 1 or more, or scaleToZero: true',
      ],
    },
    {
      case: 'scaleToZero on an endpoint variant is refused (a variant keeps one instance)',
      target: variant({ scaling: zero }),
      expected: [
        'targets[0].scaling.scaleToZero is not supported for kind sagemaker-variant (an endpoint variant keeps at least 1 instance): set it to false, or use an inference component',
      ],
    },
    {
      case: 'scaleToZero without an activation metric asks for one',
      target: group({ scaling: { minCapacity: 0, maxCapacity: 4, scaleToZero: true } }),
      expected: [
        'targets[0].scaling.activation is required when scaleToZero is true: name the total metric and threshold that wake the target from zero',
      ],
    },
    {
      case: 'scaleToZero on an inference component with activation is valid',
      target: component({ scaling: zero }),
      expected: [],
    },
    {
      case: 'scaleToZero on an Auto Scaling group with activation is valid',
      target: group({ scaling: zero }),
      expected: [],
    },
    {
      case: 'scaleToZero with minCapacity 1 is refused: the min clamp would never let it reach zero',
      target: component({ scaling: { ...zero, minCapacity: 1 } }),
      expected: [
        'targets[0].scaling.minCapacity is 1 but scaleToZero is true: the target can never reach zero; set minCapacity to 0, or scaleToZero: false',
      ],
    },
  ])('$case', ({ target, expected }) => {
    expect(lines(target)).toEqual(expected);
  });
});

describe('damping', () => {
  it.each([
    {
      case: 'scaleInBreaches below scaleOutBreaches says scale-in must wait at least as long',
      damping: { scaleOutBreaches: 3, scaleInBreaches: 2 },
      expected: [
        'targets[0].damping.scaleInBreaches (2) is less than scaleOutBreaches (3): scale-in must wait at least as long as scale-out',
      ],
    },
    {
      case: 'scaleInBreaches equal to scaleOutBreaches is valid',
      damping: { scaleOutBreaches: 3, scaleInBreaches: 3 },
      expected: [],
    },
    {
      case: 'a stabilization window shorter than a period asks for at least one period',
      damping: { periodSeconds: 60, scaleInStabilizationSeconds: 59 },
      expected: [
        'targets[0].damping.scaleInStabilizationSeconds (59) is shorter than periodSeconds (60): make the window at least one period',
      ],
    },
    {
      case: 'a stabilization window of exactly one period is valid',
      damping: { periodSeconds: 60, scaleInStabilizationSeconds: 60 },
      expected: [],
    },
    {
      case: 'the defaults (N 2, M 10, window 300 s, period 60 s) are valid',
      damping: {},
      expected: [],
    },
  ])('$case', ({ damping, expected }) => {
    expect(lines(variant({ damping }))).toEqual(expected);
  });
});

describe('signals', () => {
  it.each([
    {
      case: 'a metric listed twice names the repeat and the first',
      signals: [
        { metric: 'gpuUtilization', target: 70 },
        { metric: 'p95LatencyMs', sloMs: 2000 },
        { metric: 'gpuUtilization', target: 60 },
      ],
      expected: [
        'targets[0].signals[2].metric repeats gpuUtilization (already signals[0]): keep one entry per metric',
      ],
    },
    {
      case: 'p95 and p99 are different metrics',
      signals: [
        { metric: 'p95LatencyMs', sloMs: 2000 },
        { metric: 'p99LatencyMs', sloMs: 4000 },
      ],
      expected: [],
    },
    {
      case: 'a staleness limit shorter than the period would make every reading stale',
      signals: [
        { metric: 'gpuUtilization', target: 70, staleAfterSeconds: 30 },
        { metric: 'p95LatencyMs', sloMs: 2000, staleAfterSeconds: 45 },
      ],
      expected: [
        'targets[0].signals[0].staleAfterSeconds (30) is shorter than damping.periodSeconds (60): every reading would be stale',
        'targets[0].signals[1].staleAfterSeconds (45) is shorter than damping.periodSeconds (60): every reading would be stale',
      ],
    },
    {
      case: 'a staleness limit of exactly one period is valid',
      signals: [{ metric: 'gpuUtilization', target: 70, staleAfterSeconds: 60 }],
      expected: [],
    },
  ])('$case', ({ signals, expected }) => {
    expect(lines(variant({ signals }))).toEqual(expected);
  });
});

describe('forecast and warm pool', () => {
  const gpuOnly = [{ metric: 'gpuUtilization', target: 70 }];
  it.each([
    {
      case: 'an enabled forecast without any requests-per-instance figure names the three ways to give one',
      target: variant({ signals: gpuOnly, forecast: {} }),
      expected: [
        'targets[0].forecast.requestsPerInstance is needed to turn forecast demand into instances: set it, add an invocationsPerInstance signal, or set instanceCapacity',
      ],
    },
    {
      case: 'a disabled forecast needs no requests per instance',
      target: variant({ signals: gpuOnly, forecast: { enabled: false } }),
      expected: [],
    },
    {
      case: 'forecast.requestsPerInstance satisfies the rule',
      target: variant({ signals: gpuOnly, forecast: { requestsPerInstance: 100 } }),
      expected: [],
    },
    {
      case: 'an invocationsPerInstance signal satisfies the rule',
      target: variant({ forecast: {} }),
      expected: [],
    },
    {
      case: 'instanceCapacity satisfies the rule',
      target: variant({ signals: gpuOnly, forecast: {}, instanceCapacity: { requestsPerMinuteAtSlo: 120 } }),
      expected: [],
    },
    {
      case: 'a warm pool whose minSize exceeds maxSize names both and both fixes',
      target: variant({ forecast: {}, warmPool: { minSize: 3, maxSize: 2 } }),
      expected: [
        'targets[0].warmPool.minSize (3) is greater than maxSize (2): lower minSize or raise maxSize',
      ],
    },
    {
      case: 'a warm pool with minSize equal to maxSize is valid',
      target: variant({ forecast: {}, warmPool: { minSize: 2, maxSize: 2 } }),
      expected: [],
    },
    {
      case: 'a warm pool on SageMaker needs a forecast: its standby headroom sits on the forecast floor',
      target: variant({ warmPool: {} }),
      expected: [
        'targets[0].warmPool needs forecast on kind sagemaker-variant: SageMaker keeps no warm pool, so Governor keeps standby headroom above the forecast floor; add a forecast section, or remove warmPool',
      ],
    },
    {
      case: 'a noise floor needs instanceCapacity to turn demand into instances at the SLO',
      target: variant({ noise: {} }),
      expected: [
        'targets[0].noise.floorSigmas needs instanceCapacity.requestsPerMinuteAtSlo to turn demand plus noise into instances: add it (from a load test), or set floorSigmas to 0',
      ],
    },
    {
      case: 'a noise section with floorSigmas 0 needs no instanceCapacity',
      target: variant({ noise: { floorSigmas: 0 } }),
      expected: [],
    },
    {
      case: 'a noise band needs an invocationsPerInstance signal to widen',
      target: variant({
        instanceCapacity: { requestsPerMinuteAtSlo: 120 },
        signals: [{ metric: 'gpuUtilization', target: 70 }],
        noise: {},
      }),
      expected: [
        'targets[0].noise.bandSigmas widens the invocationsPerInstance band, and this target has no such signal: add one, or set bandSigmas to 0',
      ],
    },
    {
      case: 'a disabled noise section needs neither',
      target: variant({ signals: [{ metric: 'gpuUtilization', target: 70 }], noise: { enabled: false } }),
      expected: [],
    },
    {
      case: 'an Auto Scaling group keeps a native warm pool with no forecast',
      target: group({ warmPool: {} }),
      expected: [],
    },
    {
      case: 'a disabled warm pool on SageMaker needs no forecast',
      target: variant({ warmPool: { enabled: false } }),
      expected: [],
    },
    {
      case: 'a warm pool minSize above the default maxSize (10) breaks the rule too',
      target: variant({ forecast: {}, warmPool: { minSize: 11 } }),
      expected: [
        'targets[0].warmPool.minSize (11) is greater than maxSize (10): lower minSize or raise maxSize',
      ],
    },
  ])('$case', ({ target, expected }) => {
    expect(lines(target)).toEqual(expected);
  });
});

describe('targets across the file', () => {
  it.each([
    {
      case: 'a repeated id names the first target that used it',
      targets: [variant(), variant({ endpointName: 'other' })],
      expected: ['targets[1].id "chat" is already used by targets[0]: ids must be unique'],
    },
    {
      case: 'two targets on one endpoint variant (the default AllTraffic) would fight',
      targets: [variant(), variant({ id: 'chat-2', variantName: 'AllTraffic' })],
      expected: [
        'targets[1] manages the same resource as targets[0] (us-east-1/endpoint/chat-prod/variant/AllTraffic): two policies would fight over it',
      ],
    },
    {
      case: 'two variants of one endpoint are different resources',
      targets: [variant({ variantName: 'blue' }), variant({ id: 'chat-2', variantName: 'green' })],
      expected: [],
    },
    {
      case: 'the same endpoint name in two regions is two resources',
      targets: [variant(), variant({ id: 'chat-eu', region: 'eu-west-1' })],
      expected: [],
    },
    {
      case: 'two targets on one inference component would fight',
      targets: [component(), component({ id: 'chat-2', endpointName: 'other-endpoint' })],
      expected: [
        'targets[1] manages the same resource as targets[0] (us-east-1/inference-component/chat-ic): two policies would fight over it',
      ],
    },
    {
      case: 'two targets on one Auto Scaling group would fight',
      targets: [group(), group({ id: 'batch' })],
      expected: [
        'targets[1] manages the same resource as targets[0] (us-east-1/asg/gpu-asg): two policies would fight over it',
      ],
    },
    {
      case: 'one target breaking two rules reports both, in the order of the file',
      targets: [variant(), variant({ damping: { scaleOutBreaches: 4, scaleInBreaches: 3 } })],
      expected: [
        'targets[1].id "chat" is already used by targets[0]: ids must be unique',
        'targets[1] manages the same resource as targets[0] (us-east-1/endpoint/chat-prod/variant/AllTraffic): two policies would fight over it',
        'targets[1].damping.scaleInBreaches (3) is less than scaleOutBreaches (4): scale-in must wait at least as long as scale-out',
      ],
    },
  ])('$case', ({ targets, expected }) => {
    expect(lines(...targets)).toEqual(expected);
  });

  it('skips holes left by targets that failed their own schema, keeping the others indexed', () => {
    const valid = parsed(variant({ scaling: { minCapacity: 3, maxCapacity: 2 } }));
    expect(crossFieldProblems([undefined, valid]).map((p) => p.path)).toEqual([
      'targets[1].scaling.minCapacity',
    ]);
  });

  it("reports a field error in one target beside another target's rule breach", () => {
    const result = validatePolicy({
      version: 1,
      targets: [
        variant({ region: 'nowhere' }),
        variant({ id: 'b', endpointName: 'b', scaling: { minCapacity: 3, maxCapacity: 2 } }),
      ],
    });
    expect(result.ok ? [] : result.problems.map((p) => p.path)).toEqual([
      'targets[0].region',
      'targets[1].scaling.minCapacity',
    ]);
  });
});

describe('paths', () => {
  it.each([
    {
      case: 'a field of a list element',
      path: ['targets', 0, 'scaling', 'minCapacity'],
      text: 'targets[0].scaling.minCapacity',
    },
    {
      case: 'nested lists',
      path: ['targets', 2, 'signals', 1, 'metric'],
      text: 'targets[2].signals[1].metric',
    },
    { case: 'a top-level field', path: ['version'], text: 'version' },
    { case: 'nothing at all', path: [], text: '' },
  ])('$case reads as $text', ({ path, text }) => {
    expect(formatPath(path)).toBe(text);
  });
});

describe('isLatencySignal', () => {
  it('is true for exactly the latency metrics, every metric checked', () => {
    for (const metric of METRIC_NAMES) {
      const latency = (LATENCY_METRICS as readonly string[]).includes(metric);
      expect([metric, isLatencySignal({ metric } as never)]).toEqual([metric, latency]);
    }
  });
});
