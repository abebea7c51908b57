/** `governor invoke evaluate`: bad input exits 2 with one line; without AWS_ENDPOINT_URL nothing reaches AWS. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { checkEndpoint } from '#shared/cli/invoke-run.ts';
import { type CliIo, EXIT, RunError } from '#shared/cli/io.ts';
import { main } from '#shared/cli/main.ts';
import { closedPort, hungEndpoint } from '../support/hung-endpoint.ts';

const run = async (args: string[]) => {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    stdout: (l) => out.push(l),
    stderr: (l) => err.push(l),
    stderrIsTTY: false,
    cwd: process.cwd(),
  };
  const code = await main(['invoke', ...args], io);
  return { code, out, err };
};

const BAD_POLICY = join(mkdtempSync(join(tmpdir(), 'governor-invoke-')), 'policy.yaml');
writeFileSync(BAD_POLICY, 'version: 1\ntargets: []\n');

beforeEach(() => vi.stubEnv('AWS_ENDPOINT_URL', undefined as unknown as string));
afterEach(() => vi.unstubAllEnvs());

describe('governor invoke evaluate', () => {
  it.each([
    {
      case: 'a foreign alarm is ignored without any AWS access',
      args: [
        'evaluate',
        '--event',
        'events/alarm-foreign.json',
        '--policy',
        'examples/policy.yaml',
        '--now',
        'event',
      ],
      code: EXIT.ok,
      out: [
        'ignored (ForeignAlarm): alarm "billing-estimated-charges" does not start with "governor-", so Governor does not manage it',
      ],
    },
    {
      case: "a recorded event replayed at today's clock is stale, with a hint",
      args: [
        'evaluate',
        '--event',
        'events/alarm-chat-llm-latency.json',
        '--policy',
        'examples/policy.yaml',
        '--now',
        '2025-06-02T13:00:00Z',
      ],
      code: EXIT.ok,
      out: [
        'ignored (StaleEvent): event a1f3c2d4-5b6e-4f70-8a9b-0c1d2e3f4a51 is 3580 s old, more than MAX_EVENT_AGE_SECONDS (300)',
      ],
    },
    {
      case: 'an alarm for an endpoint the policy does not manage is ignored',
      args: [
        'evaluate',
        '--event',
        'events/alarm-unmanaged-target.json',
        '--policy',
        'examples/policy.yaml',
        '--now',
        'event',
        '--shadow',
      ],
      code: EXIT.ok,
      out: [
        'ignored (UnmanagedTarget): alarm "governor-search-ranker-latency" names no target of the policy (by "governor-<targetId>-" or by its metric\'s dimensions)',
      ],
    },
  ])('$case', async ({ args, code, out }) => {
    const result = await run(args);
    expect(result).toMatchObject({ code, out, err: [] });
  });

  it.each([
    {
      case: 'a tick needs live metrics: it says to set AWS_ENDPOINT_URL',
      args: [
        'evaluate',
        '--event',
        'events/scheduler-tick.json',
        '--policy',
        'examples/policy.yaml',
        '--now',
        'event',
        '--shadow',
      ],
      err: 'governor invoke: evaluating chat-llm reads metrics and capacity: pass --metrics FILE with recorded ones (events/invoke/chat-llm.json), or set AWS_ENDPOINT_URL to an emulator (npm run local -- --keep prints the command)',
    },
    {
      case: 'a malformed event names the field',
      args: ['evaluate', '--event', 'events/malformed-alarm-no-name.json'],
      err: 'governor invoke: --event events/malformed-alarm-no-name.json: event field detail.alarmName is required: the name of the alarm that changed state',
    },
    {
      case: 'a missing event file names the path',
      args: ['evaluate', '--event', 'events/nope.json'],
      err: 'governor invoke: --event events/nope.json: cannot read the file (ENOENT): check the path',
    },
    {
      case: 'an invalid policy file names its problems',
      args: ['evaluate', '--event', 'events/scheduler-tick.json', '--policy', BAD_POLICY],
      err: `governor invoke: --policy ${BAD_POLICY}: targets needs at least one target`,
    },
    {
      case: 'no policy and no endpoint: it says which is needed',
      args: ['evaluate', '--event', 'events/scheduler-tick.json', '--now', 'event'],
      err: 'governor invoke: needs --policy FILE (with --metrics FILE for recorded readings), or AWS_ENDPOINT_URL to read the policy from SSM',
    },
    {
      case: 'a bad --now names the option',
      args: ['evaluate', '--event', 'events/scheduler-tick.json', '--now', 'noon'],
      err: 'governor invoke: --now must be an ISO time such as 2025-06-02T12:00:30Z, or "event", got "noon"',
    },
    {
      case: 'another function name is refused',
      args: ['forecast', '--event', 'events/scheduler-tick.json'],
      err: 'governor invoke: usage: governor invoke evaluate --event FILE [--policy FILE] [--metrics FILE] [--shadow] [--now ISO|event] (the only function is "evaluate")',
    },
    {
      case: 'an unknown option is refused',
      args: ['evaluate', '--event', 'events/scheduler-tick.json', '--dry'],
      err: expect.stringMatching(/^governor invoke: Unknown option '--dry'/),
    },
  ])('exit 2, one line: $case', async ({ args, err }) => {
    const result = await run(args);
    expect(result.code).toBe(EXIT.usage);
    expect(result.err).toEqual([err]);
    expect(result.out).toEqual([]);
  });
});

/** A recorded-readings file in a scratch folder. */
const recordedFile = (name: string, content: unknown) => {
  const file = join(mkdtempSync(join(tmpdir(), 'governor-recorded-')), name);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
};
const RECORDED = 'events/invoke/chat-llm.json';
const OFFLINE = ['evaluate', '--event', 'events/scheduler-tick.json', '--policy', 'examples/policy.yaml'];
const chatLlm = (readings: Record<string, number>, capacity = { desired: 2, ready: 2 }) => ({
  targets: { 'chat-llm': { capacity, readings } },
});

describe('governor invoke evaluate --metrics: the handler over recorded readings, offline', () => {
  it('decides on the recorded minute: 190 requests per instance is a panic scale-out from 2 to 6', async () => {
    const { code, out, err } = await run([...OFFLINE, '--metrics', RECORDED, '--now', 'event']);
    expect(code).toBe(EXIT.ok);
    expect(out).toHaveLength(1);
    const record = JSON.parse(out[0]!);
    expect(record).toMatchObject({
      targetId: 'chat-llm',
      mode: 'active',
      outcome: 'started',
      action: { type: 'start-state-machine', previousCapacity: 2, desiredCapacity: 6 },
      // The example policy has the default SLO control: the record carries the headroom it was
      // decided under (docs/slo.md, "In AWS"; tests/functions/slo-replay.test.ts has its numbers).
      decision: {
        action: 'scale-out',
        reasons: expect.arrayContaining(['PanicScaleOut']),
        currentCapacity: 2,
        desiredCapacity: 6,
        headroom: { reason: expect.any(String), factor: expect.any(Number) },
      },
      inputs: {
        capacity: { desired: 2, ready: 2, status: 'InService' },
        readings: {
          invocationsPerInstance: { value: 190, timestamp: Date.parse('2025-06-02T12:00:00Z') },
          p95LatencyMs: { value: 2600 },
        },
        killSwitch: false,
        conflict: null,
      },
    });
    expect(err).toEqual([
      `offline: readings and capacity from ${RECORDED}; the state table, SageMaker, Auto Scaling and Step Functions are in-memory fakes, so nothing leaves this machine`,
      `offline: the scale-target state machine would start as ${record.decisionId} for chat-llm: 2 -> 6 (nothing was started)`,
    ]);
  });

  it('--shadow decides the same and starts nothing', async () => {
    const { code, out, err } = await run([...OFFLINE, '--metrics', RECORDED, '--now', 'event', '--shadow']);
    expect(code).toBe(EXIT.ok);
    expect(JSON.parse(out[0]!)).toMatchObject({
      mode: 'shadow',
      outcome: 'shadow',
      action: null,
      decision: { desiredCapacity: 6 },
    });
    expect(err).toHaveLength(1);
  });

  it.each([
    {
      case: 'load within the band holds',
      recorded: chatLlm({ invocationsPerInstance: 74, p95LatencyMs: 900 }),
      decision: { action: 'hold', reasons: expect.arrayContaining(['WithinBand']), desiredCapacity: 2 },
      outcome: 'held',
    },
    {
      case: 'no reading at all is NoData, never a scale-in',
      recorded: chatLlm({}),
      decision: { action: 'hold', reasons: ['NoData'], desiredCapacity: 2 },
      outcome: 'held',
    },
    {
      case: 'the kill switch on: decided, nothing done',
      recorded: { killSwitch: 'on', ...chatLlm({ invocationsPerInstance: 190 }) },
      decision: { action: 'scale-out', desiredCapacity: 6 },
      outcome: 'killed',
    },
  ])('$case', async ({ recorded, decision, outcome }) => {
    const file = recordedFile('recorded.json', recorded);
    const { code, out } = await run([...OFFLINE, '--metrics', file, '--now', 'event']);
    expect(code).toBe(EXIT.ok);
    expect(JSON.parse(out[0]!)).toMatchObject({ decision, outcome });
  });

  it('without --now a recorded event is stale, and says how to replay it', async () => {
    const { code, out } = await run([...OFFLINE, '--metrics', RECORDED]);
    expect(code).toBe(EXIT.ok);
    expect(out).toEqual([
      expect.stringMatching(/^ignored \(StaleEvent\): .*\(pass --now event to replay it at its own time\)$/),
    ]);
  });

  it('--metrics wins over AWS_ENDPOINT_URL, and says so', async () => {
    vi.stubEnv('AWS_ENDPOINT_URL', 'http://127.0.0.1:9');
    const { code, err } = await run([...OFFLINE, '--metrics', RECORDED, '--now', 'event']);
    expect(code).toBe(EXIT.ok);
    expect(err[0]).toBe('offline: --metrics is given, so AWS_ENDPOINT_URL is not used');
  });

  it.each([
    {
      case: 'no --policy',
      args: ['evaluate', '--event', 'events/scheduler-tick.json', '--metrics', RECORDED],
      err: 'governor invoke: --metrics FILE needs --policy FILE: the policy the readings are for',
    },
    {
      case: 'a file that does not exist',
      args: [...OFFLINE, '--metrics', 'events/invoke/nope.json'],
      err: 'governor invoke: --metrics events/invoke/nope.json: cannot read the file (ENOENT): check the path',
    },
    {
      case: 'a file that is not JSON',
      file: ['bad.json', '{ "targets": '],
      err: /^governor invoke: --metrics \S+bad\.json is not JSON: /,
    },
    {
      case: 'a capacity without ready',
      file: ['no-ready.json', { targets: { 'chat-llm': { capacity: { desired: 2 } } } }],
      err: /^governor invoke: --metrics \S+no-ready\.json: targets\.chat-llm\.capacity\.ready: /,
    },
    {
      case: 'a misspelt target',
      file: ['typo.json', { targets: { 'chat-lm': { capacity: { desired: 2, ready: 2 } } } }],
      err: /^governor invoke: --metrics \S+typo\.json: targets\.chat-lm is not a target of the policy: did you mean chat-llm\? \(its targets are chat-llm\)$/,
    },
    {
      case: 'a misspelt signal',
      file: ['signal.json', chatLlm({ invocationPerInstance: 190 })],
      err: /: targets\.chat-llm\.readings\.invocationPerInstance: invocationPerInstance is not a signal name: did you mean invocationsPerInstance\? \(its signals are invocationsPerInstance, p95LatencyMs\)$/,
    },
    {
      case: 'a signal the target does not have',
      file: ['gpu.json', chatLlm({ gpuUtilization: 90 })],
      err: /: targets\.chat-llm\.readings\.gpuUtilization: chat-llm has no gpuUtilization signal in the policy \(its signals are invocationsPerInstance, p95LatencyMs\)$/,
    },
    {
      case: 'a target the event evaluates without a recording',
      file: ['empty.json', { targets: {} }],
      now: true,
      err: /^governor invoke: --metrics \S+empty\.json has no entry for chat-llm: add targets\.chat-llm with its capacity and readings \(see events\/invoke\/chat-llm\.json\)$/,
    },
  ])('exit 2, one line: $case', async ({ args, file, now, err }) => {
    const argv = args ?? [...OFFLINE, '--metrics', recordedFile(...(file as [string, unknown]))];
    const result = await run(now ? [...argv, '--now', 'event'] : argv);
    expect(result.code).toBe(EXIT.usage);
    expect(result.out).toEqual([]);
    expect(result.err).toEqual([typeof err === 'string' ? err : expect.stringMatching(err)]);
  });
});

describe('governor invoke evaluate against an endpoint that does not answer', () => {
  const hung = hungEndpoint(); // accepts, reads, never answers
  it('says to start the emulator or pass --metrics: one line, exit 1', async () => {
    const endpoint = `http://127.0.0.1:${await closedPort()}`;
    vi.stubEnv('AWS_ENDPOINT_URL', endpoint);
    const { code, out, err } = await run([
      'evaluate',
      '--event',
      'events/scheduler-tick.json',
      '--now',
      'event',
      '--shadow',
    ]);
    expect({ code, out }).toEqual({ code: EXIT.failure, out: [] });
    expect(err.at(-1)).toBe(
      `governor invoke: AWS_ENDPOINT_URL ${endpoint} does not answer (ECONNREFUSED): start the emulator (npm run local -- --keep prints a working command), or unset AWS_ENDPOINT_URL and pass --metrics FILE`,
    );
    expect(err).toHaveLength(1);
  });

  it('an endpoint that takes the connection and no answer in time answered too slowly: it is hung or overloaded', async () => {
    await expect(checkEndpoint(hung.url(), 200)).rejects.toThrow(
      new RunError(
        `AWS_ENDPOINT_URL ${hung.url()} answered too slowly: no HTTP answer within 0.2 s: it is hung or overloaded: restart it (npm run local -- --keep prints a working command), or unset AWS_ENDPOINT_URL and pass --metrics FILE`,
      ),
    );
  });
});
