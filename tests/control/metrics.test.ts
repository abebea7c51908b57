import { describe, expect, it } from 'vitest';
import type { Signal, TargetPolicy } from '#shared/policy/schema.ts';
import { batches, buildQueries, type MetricQuery, queryWindow } from '#shared/signals/queries.ts';
import { convertResults, type RawMetricResult } from '#shared/signals/readings.ts';
import { signalSource, sourceProblems } from '#shared/signals/sources.ts';
import { componentTarget, groupTarget, policyOf, variantTarget } from './policies.ts';

const [variant, component, group] = policyOf(variantTarget(), componentTarget(), groupTarget()).targets as [
  TargetPolicy,
  TargetPolicy,
  TargetPolicy,
];
const signal = (metric: string, extra: Record<string, unknown> = {}) =>
  ({ metric, target: 1, sloMs: 1, staleAfterSeconds: 180, tolerance: 0.1, ...extra }) as unknown as Signal;

describe('signalSource: the CloudWatch metric behind each signal', () => {
  const endpointDims = { EndpointName: 'chat-llm-prod', VariantName: 'AllTraffic' };
  const icDims = { InferenceComponentName: 'embedder-ic' };
  it.each([
    {
      case: 'variant invocations: AWS/SageMaker InvocationsPerInstance, Sum per minute',
      t: variant,
      m: 'invocationsPerInstance',
      ns: 'AWS/SageMaker',
      name: 'InvocationsPerInstance',
      stat: 'Sum',
      dims: endpointDims,
      scale: 1,
    },
    {
      case: 'variant p95 latency: ModelLatency p95, microseconds to ms',
      t: variant,
      m: 'p95LatencyMs',
      ns: 'AWS/SageMaker',
      name: 'ModelLatency',
      stat: 'p95',
      dims: endpointDims,
      scale: 0.001,
    },
    {
      case: 'variant p99 latency: ModelLatency p99',
      t: variant,
      m: 'p99LatencyMs',
      ns: 'AWS/SageMaker',
      name: 'ModelLatency',
      stat: 'p99',
      dims: endpointDims,
      scale: 0.001,
    },
    {
      case: 'variant concurrency: ConcurrentRequestsPerModel, Average',
      t: variant,
      m: 'concurrencyPerInstance',
      ns: 'AWS/SageMaker',
      name: 'ConcurrentRequestsPerModel',
      stat: 'Average',
      dims: endpointDims,
      scale: 1,
    },
    {
      case: 'variant GPU: /aws/sagemaker/Endpoints GPUUtilization, Average',
      t: variant,
      m: 'gpuUtilization',
      ns: '/aws/sagemaker/Endpoints',
      name: 'GPUUtilization',
      stat: 'Average',
      dims: endpointDims,
      scale: 1,
    },
    {
      case: 'variant GPU memory: GPUMemoryUtilization',
      t: variant,
      m: 'gpuMemoryUtilization',
      ns: '/aws/sagemaker/Endpoints',
      name: 'GPUMemoryUtilization',
      stat: 'Average',
      dims: endpointDims,
      scale: 1,
    },
    {
      case: 'variant queue: async backlog per instance, by EndpointName only',
      t: variant,
      m: 'queueDepthPerInstance',
      ns: 'AWS/SageMaker',
      name: 'ApproximateBacklogSizePerInstance',
      stat: 'Average',
      dims: { EndpointName: 'chat-llm-prod' },
      scale: 1,
    },
    {
      case: 'component invocations: InvocationsPerCopy by InferenceComponentName',
      t: component,
      m: 'invocationsPerInstance',
      ns: 'AWS/SageMaker',
      name: 'InvocationsPerCopy',
      stat: 'Sum',
      dims: icDims,
      scale: 1,
    },
    {
      case: 'component concurrency: ConcurrentRequestsPerCopy',
      t: component,
      m: 'concurrencyPerInstance',
      ns: 'AWS/SageMaker',
      name: 'ConcurrentRequestsPerCopy',
      stat: 'Average',
      dims: icDims,
      scale: 1,
    },
    {
      case: 'component GPU: GPUUtilizationNormalized',
      t: component,
      m: 'gpuUtilization',
      ns: '/aws/sagemaker/InferenceComponents',
      name: 'GPUUtilizationNormalized',
      stat: 'Average',
      dims: icDims,
      scale: 1,
    },
    {
      case: 'group GPU: the CloudWatch agent nvidia_smi_utilization_gpu by group',
      t: group,
      m: 'gpuUtilization',
      ns: 'CWAgent',
      name: 'nvidia_smi_utilization_gpu',
      stat: 'Average',
      dims: { AutoScalingGroupName: 'batch-gpu-asg' },
      scale: 1,
    },
  ])('$case', ({ t, m, ns, name, stat, dims, scale }) => {
    expect(signalSource(t, signal(m))).toEqual({
      namespace: ns,
      metricName: name,
      statistic: stat,
      dimensions: dims,
      scale,
    });
  });

  it('a cloudwatch override is used as it is, unscaled', () => {
    const cloudwatch = {
      namespace: 'App',
      metricName: 'QueueDepth',
      dimensions: { Queue: 'q' },
      statistic: 'Maximum',
    };
    expect(signalSource(group, signal('queueDepthPerInstance', { cloudwatch }))).toEqual({
      ...cloudwatch,
      scale: 1,
    });
  });

  it.each([
    { case: 'a group has no built-in queue metric', t: group, m: 'queueDepthPerInstance' },
    { case: 'a group has no built-in invocations metric', t: group, m: 'invocationsPerInstance' },
    { case: 'a component has no built-in queue metric', t: component, m: 'queueDepthPerInstance' },
  ])('$case', ({ t, m }) => {
    expect(signalSource(t, signal(m))).toBeNull();
  });
});

/** Scale to zero on an SQS queue's backlog: the total the operator names for activation. */
const queueActivation = (statistic = 'Maximum') => ({
  minCapacity: 0,
  maxCapacity: 4,
  scaleToZero: true,
  activation: {
    metric: 'queueDepth',
    threshold: 0,
    cloudwatch: {
      namespace: 'AWS/SQS',
      metricName: 'ApproximateNumberOfMessagesVisible',
      dimensions: { QueueName: 'batch-jobs' },
      statistic,
    },
  },
});

describe('sourceProblems: runtime rules checked when the policy loads', () => {
  it.each([
    {
      case: 'a group signal without a source must name one',
      targets: [groupTarget({ signals: [{ metric: 'queueDepthPerInstance', target: 5 }] })],
      problems: [
        'targets[0].signals[0].cloudwatch is required for queueDepthPerInstance on kind ec2-asg: no built-in metric carries it, so name the namespace, metricName and dimensions',
      ],
    },
    {
      case: 'an override with an unknown statistic is rejected before it breaks the batched call',
      targets: [
        groupTarget({
          signals: [
            {
              metric: 'gpuUtilization',
              target: 70,
              cloudwatch: { namespace: 'A', metricName: 'B', statistic: 'Mean' },
            },
          ],
        }),
      ],
      problems: [
        'targets[0].signals[0].cloudwatch.statistic "Mean" is not a CloudWatch statistic: use Average, Sum, Minimum, Maximum, SampleCount or pNN',
      ],
    },
    {
      case: 'a group cannot wake from zero: its activation metric has no source',
      targets: [
        groupTarget({
          scaling: {
            minCapacity: 0,
            maxCapacity: 4,
            scaleToZero: true,
            activation: { metric: 'queueDepth', threshold: 0 },
          },
        }),
      ],
      problems: [
        'targets[0].scaling.activation.cloudwatch is required for activation metric "queueDepth" on kind ec2-asg: no built-in metric carries the total, so name the namespace, metricName and dimensions (only an inference component\'s "invocations" has one)',
      ],
    },
    {
      case: 'a group wakes from zero on a total it names (an SQS backlog)',
      targets: [groupTarget({ scaling: queueActivation() })],
      problems: [],
    },
    {
      case: 'an activation override with an unknown statistic is rejected too',
      targets: [groupTarget({ scaling: queueActivation('Mean') })],
      problems: [
        'targets[0].scaling.activation.cloudwatch.statistic "Mean" is not a CloudWatch statistic: use Average, Sum, Minimum, Maximum, SampleCount or pNN',
      ],
    },
    {
      case: 'the three sample targets have no problem',
      targets: [variantTarget(), componentTarget(), groupTarget()],
      problems: [],
    },
  ])('$case', ({ targets, problems }) => {
    const lines = sourceProblems(policyOf(...targets).targets).map((p) => `${p.path} ${p.message}`);
    expect(lines).toEqual(problems);
  });
});

describe('queries', () => {
  it('one query per signal and per activation part, ids q0.. in policy order, then the bases', () => {
    const queries = buildQueries([variant, component, group]);
    expect(queries.map((q) => `${q.id} ${q.targetId} ${q.source.metricName} ${q.source.statistic}`)).toEqual([
      'q0 chat-llm InvocationsPerInstance Sum',
      'q1 chat-llm ModelLatency p95',
      'q2 embedder ConcurrentRequestsPerCopy Average',
      'q3 embedder Invocations Sum',
      'q4 embedder NoCapacityInvocationFailures Sum',
      'q5 batch-gpu nvidia_smi_utilization_gpu Average',
      // The basis of chat-llm's per-instance readings; the embedder reads no invocations per copy,
      // and a group has no Invocations.
      'q6 chat-llm Invocations Sum',
    ]);
    expect(queries.at(-1)!.role).toEqual({ kind: 'basis' });
    expect(queries.at(-1)!.source.dimensions).toEqual(queries[0]!.source.dimensions);
  });

  it('queries the activation total a group names, once, as it is', () => {
    const [t] = policyOf(groupTarget({ scaling: queueActivation() })).targets;
    const activation = buildQueries([t!]).filter((q) => q.role.kind === 'activation');
    expect(activation.map((q) => q.source)).toEqual([
      {
        namespace: 'AWS/SQS',
        metricName: 'ApproximateNumberOfMessagesVisible',
        dimensions: { QueueName: 'batch-jobs' },
        statistic: 'Maximum',
        scale: 1,
      },
    ]);
  });

  it.each([
    {
      case: 'the window ends at the start of the current minute, never inside it',
      now: '2025-06-02T12:07:30Z',
      start: '2025-06-02T12:03:00Z',
      end: '2025-06-02T12:07:00Z',
    },
    {
      case: 'exactly on a minute, the minute just begun is left out',
      now: '2025-06-02T12:07:00Z',
      start: '2025-06-02T12:03:00Z',
      end: '2025-06-02T12:07:00Z',
    },
  ])('$case', ({ now, start, end }) => {
    const w = queryWindow([variant], Date.parse(now));
    expect([new Date(w.start).toISOString(), new Date(w.end).toISOString()]).toEqual([
      new Date(start).toISOString(),
      new Date(end).toISOString(),
    ]);
  });

  it('1,203 queries in two regions become chunks of at most 500 per region', () => {
    const q = (i: number, region: string): MetricQuery => ({
      ...buildQueries([variant])[0]!,
      id: `q${i}`,
      region,
    });
    const list = [
      ...Array.from({ length: 1001 }, (_, i) => q(i, 'us-east-1')),
      q(1001, 'eu-west-1'),
      q(1002, 'eu-west-1'),
    ];
    expect(batches(list).map((b) => `${b.region}:${b.queries.length}`)).toEqual([
      'us-east-1:500',
      'us-east-1:500',
      'us-east-1:1',
      'eu-west-1:2',
    ]);
  });
});

describe('convertResults: datapoints to readings', () => {
  const queries = buildQueries([variant, component]);
  const m = (iso: string) => new Date(iso);
  const activationOf = (id: string) => (id === 'embedder' ? ('invocations' as const) : undefined);
  const convert = (results: RawMetricResult[]) => convertResults(queries, results, activationOf);

  it('keeps the newest datapoint, stamped at the end of its minute, in the policy unit', () => {
    const out = convert([
      {
        Id: 'q0',
        Timestamps: [m('2025-06-02T12:05:00Z'), m('2025-06-02T12:06:00Z')],
        Values: [80, 120],
        StatusCode: 'Complete',
      },
      { Id: 'q1', Timestamps: [m('2025-06-02T12:06:00Z')], Values: [2_500_000], StatusCode: 'Complete' },
    ]);
    expect(out.byTarget.get('chat-llm')).toEqual({
      readings: {
        invocationsPerInstance: { value: 120, timestamp: Date.parse('2025-06-02T12:07:00Z') },
        p95LatencyMs: { value: 2500, timestamp: Date.parse('2025-06-02T12:07:00Z') },
      },
    });
    expect(out.problems).toEqual([]);
  });

  describe('the basis of the per-instance readings: Invocations / InvocationsPerInstance of the same minute', () => {
    const basisId = queries.find((q) => q.role.kind === 'basis')!.id;
    const at = (iso: string) => Date.parse(iso) + 60_000;
    const ipi = (values: number[], minutes: string[]): RawMetricResult => ({
      Id: 'q0',
      Timestamps: minutes.map(m),
      Values: values,
    });
    const invocations = (values: number[], minutes: string[]): RawMetricResult => ({
      Id: basisId,
      Timestamps: minutes.map(m),
      Values: values,
    });
    const latency = (minute: string): RawMetricResult => ({
      Id: 'q1',
      Timestamps: [m(minute)],
      Values: [900_000],
    });

    it('600 requests at 150 per instance: 4 instances, on every reading of that minute', () => {
      const out = convert([
        ipi([150, 90], ['2025-06-02T12:05:00Z', '2025-06-02T12:04:00Z']),
        invocations([600, 270], ['2025-06-02T12:05:00Z', '2025-06-02T12:04:00Z']),
        latency('2025-06-02T12:05:00Z'),
      ]);
      expect(out.byTarget.get('chat-llm')!.readings).toEqual({
        invocationsPerInstance: { value: 150, timestamp: at('2025-06-02T12:05:00Z'), basis: 4 },
        p95LatencyMs: { value: 900, timestamp: at('2025-06-02T12:05:00Z'), basis: 4 },
      });
      expect(out.problems).toEqual([]);
    });

    it('a fleet that changed inside the minute gives a basis between its sizes', () => {
      const out = convert([
        ipi([100], ['2025-06-02T12:05:00Z']),
        invocations([250], ['2025-06-02T12:05:00Z']),
      ]);
      expect(out.byTarget.get('chat-llm')!.readings.invocationsPerInstance!.basis).toBe(2.5);
    });

    it.each([
      {
        case: 'no Invocations for the minute of the reading',
        results: [ipi([150], ['2025-06-02T12:05:00Z']), invocations([270], ['2025-06-02T12:04:00Z'])],
      },
      {
        case: 'no requests per instance (0)',
        results: [ipi([0], ['2025-06-02T12:05:00Z']), invocations([0], ['2025-06-02T12:05:00Z'])],
      },
      { case: 'no Invocations result at all', results: [ipi([150], ['2025-06-02T12:05:00Z'])] },
      {
        case: 'an Invocations result CloudWatch refused (Forbidden)',
        results: [
          ipi([150], ['2025-06-02T12:05:00Z']),
          { Id: basisId, Timestamps: [], Values: [], StatusCode: 'Forbidden' },
        ],
      },
      {
        case: 'a rejected Invocations result',
        results: [
          ipi([150], ['2025-06-02T12:05:00Z']),
          { Id: basisId, Timestamps: [m('2025-06-02T12:05:00Z')], Values: [], StatusCode: 'Complete' },
        ],
      },
    ])('none when there is $case: the engine reads the ready count instead', ({ results }) => {
      const r = convert(results).byTarget.get('chat-llm')!.readings.invocationsPerInstance!;
      expect(r.value).toBeGreaterThanOrEqual(0);
      expect(r.basis).toBeUndefined();
    });

    it('a reading of another minute gets none', () => {
      const out = convert([
        ipi([150], ['2025-06-02T12:05:00Z']),
        invocations([600], ['2025-06-02T12:05:00Z']),
        latency('2025-06-02T12:04:00Z'),
      ]);
      expect(out.byTarget.get('chat-llm')!.readings.p95LatencyMs).toEqual({
        value: 900,
        timestamp: at('2025-06-02T12:04:00Z'),
      });
    });
  });

  it.each([
    {
      case: 'a datapoint whose minute ends 1 minute ahead of now',
      start: '2025-06-02T12:08:00Z',
      kept: false,
    },
    {
      case: 'one ending 5 s ahead (within the 10 s of clock skew)',
      start: '2025-06-02T12:06:05Z',
      kept: true,
    },
    { case: 'one ending just now', start: '2025-06-02T12:06:00Z', kept: true },
  ])('$case: future-stamped data is not fresh, the older datapoint stands', ({ start, kept }) => {
    const now = Date.parse('2025-06-02T12:07:00Z');
    const out = convertResults(
      queries,
      [
        {
          Id: 'q0',
          Timestamps: [m('2025-06-02T12:05:00Z'), m(start)],
          Values: [80, 999],
          StatusCode: 'Complete',
        },
      ],
      activationOf,
      now,
    );
    expect(out.byTarget.get('chat-llm')?.readings.invocationsPerInstance?.value).toBe(kept ? 999 : 80);
    expect(out.problems).toEqual(
      kept
        ? []
        : [
            'result q0 (chat-llm InvocationsPerInstance): 1 datapoint(s) stamped after now (beyond 10 s of clock skew), ignored',
          ],
    );
  });

  it('a signal whose only datapoint is future-stamped reads as missing, never as fresh', () => {
    const out = convertResults(
      queries,
      [{ Id: 'q0', Timestamps: [m('2025-06-02T13:00:00Z')], Values: [999], StatusCode: 'Complete' }],
      activationOf,
      Date.parse('2025-06-02T12:07:00Z'),
    );
    expect(out.byTarget.get('chat-llm')?.readings.invocationsPerInstance).toBeUndefined();
  });

  it('merges pages of one id and sums the activation parts of the newest minute', () => {
    const out = convert([
      { Id: 'q3', Timestamps: [m('2025-06-02T12:05:00Z')], Values: [7] },
      { Id: 'q3', Timestamps: [m('2025-06-02T12:06:00Z')], Values: [2] },
      { Id: 'q4', Timestamps: [m('2025-06-02T12:06:00Z')], Values: [5] },
    ]);
    expect(out.byTarget.get('embedder')?.activation).toEqual({
      invocations: { value: 7, timestamp: Date.parse('2025-06-02T12:07:00Z') },
    });
  });

  it.each([
    {
      case: 'timestamps and values of different lengths',
      r: { Id: 'q0', Timestamps: [m('2025-06-02T12:06:00Z')], Values: [] },
      problem: 'result q0 (chat-llm InvocationsPerInstance): 1 timestamps but 0 values, rejected',
    },
    {
      case: 'a value that is not a finite number',
      r: { Id: 'q0', Timestamps: [m('2025-06-02T12:06:00Z')], Values: [Number.NaN] },
      problem: 'result q0 (chat-llm InvocationsPerInstance): value 0 is not a finite number, rejected',
    },
    {
      case: 'a timestamp that is not a date',
      r: { Id: 'q0', Timestamps: ['12:06' as unknown as Date], Values: [5] },
      problem: 'result q0 (chat-llm InvocationsPerInstance): timestamp 0 is not a date, rejected',
    },
    {
      case: 'an InternalError status',
      r: { Id: 'q0', Timestamps: [], Values: [], StatusCode: 'InternalError' },
      problem: 'result q0 (chat-llm InvocationsPerInstance): status InternalError, read as missing',
    },
  ])('rejects $case: the signal is missing, not zero', ({ r, problem }) => {
    const out = convert([r as RawMetricResult]);
    expect(out.byTarget.get('chat-llm')?.readings.invocationsPerInstance).toBeUndefined();
    expect(out.problems).toEqual([problem]);
  });

  it('one rejected page rejects the whole signal even when another page was fine', () => {
    const out = convert([
      { Id: 'q0', Timestamps: [m('2025-06-02T12:06:00Z')], Values: [90] },
      { Id: 'q0', Timestamps: [m('2025-06-02T12:05:00Z')], Values: [] },
    ]);
    expect(out.byTarget.get('chat-llm')?.readings.invocationsPerInstance).toBeUndefined();
  });

  it.each([
    {
      case: 'a result without an Id is ignored with a problem',
      r: { Timestamps: [], Values: [] },
      problem: 'result with no Id, ignored',
    },
    {
      case: 'a result with an unknown Id is ignored with a problem',
      r: { Id: 'zz', Timestamps: [], Values: [] },
      problem: 'result with unknown Id "zz", ignored',
    },
  ])('$case', ({ r, problem }) => {
    expect(convert([r]).problems).toEqual([problem]);
  });

  it('a query with no datapoints leaves its signal missing and the target present', () => {
    expect(convert([{ Id: 'q0', Timestamps: [], Values: [] }]).byTarget.get('chat-llm')).toEqual({
      readings: {},
    });
  });
});
