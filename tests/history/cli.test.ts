/**
 * `governor history` through main() over aws-sdk-client-mock: one GetMetricData per span at the
 * span's period, NextToken followed, the target's own demand sources in its own region; bad
 * input refused in one line with exit 2 before any call; SDK credential, permission and region
 * problems in one line with exit 2; other failures, no data and a mostly-missing window in one
 * line with exit 1, and nothing written.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  CloudWatchClient,
  GetMetricDataCommand,
  type GetMetricDataCommandInput,
  type MetricDataResult,
} from '@aws-sdk/client-cloudwatch';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { parseTrace } from '#shared/backtest/trace.ts';
import { OPTIONS } from '#shared/cli/history.ts';
import type { CliIo } from '#shared/cli/io.ts';
import { main } from '#shared/cli/main.ts';
import { awsError } from '../aws/fakes.ts';

const MIN = 60_000;
const DAY = 86_400_000;
const NOW = Date.parse('2025-06-09T12:00:10Z');
const POLICY = resolve('events/history/policy.yaml');
const INVALID_POLICY = resolve('events/policies/invalid-out-of-range.yaml');
const cw = mockClient(CloudWatchClient);

/** Requests in the minute starting at t: a saw-tooth from 100 to 106. */
const perMinute = (t: number) => 100 + ((t / MIN) % 7);

/**
 * CloudWatch over the demand `minute(t)` (null: no datapoint): one result per query, a datapoint
 * per period with data, stamped at the period's start. With `pages`, the answer comes in that many
 * pages linked by NextToken. NoCapacityInvocationFailures has 1 in every tenth period.
 */
function cloudWatch(minute: (t: number) => number | null = perMinute, pages = 1) {
  return (input: GetMetricDataCommandInput) => {
    const start = (input.StartTime as Date).getTime();
    const end = (input.EndTime as Date).getTime();
    const page = input.NextToken === undefined ? 0 : Number(input.NextToken);
    const results: MetricDataResult[] = input.MetricDataQueries!.map((q) => {
      const period = q.MetricStat!.Period! * 1000;
      const name = q.MetricStat!.Metric!.MetricName;
      const timestamps: Date[] = [];
      const values: number[] = [];
      for (let t = start, i = 0; t < end; t += period, i++) {
        if (i % pages !== page) continue;
        let sum: number | null = null;
        for (let m = t; m < t + period; m += MIN) {
          const v = name === 'Invocations' ? minute(m) : i % 10 === 0 && m === t ? 1 : null;
          if (v !== null) sum = (sum ?? 0) + v;
        }
        if (sum === null) continue;
        timestamps.push(new Date(t));
        values.push(sum);
      }
      return { Id: q.Id, Timestamps: timestamps, Values: values, StatusCode: 'Complete' };
    });
    return { MetricDataResults: results, ...(page + 1 < pages ? { NextToken: String(page + 1) } : {}) };
  };
}

let folder: string;
async function run(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    cwd: folder,
    stdout: (l) => out.push(l),
    stderr: (l) => err.push(l),
    stderrIsTTY: false,
  };
  const code = await main(['history', ...argv], io);
  return { code, out, err };
}
const calls = () => cw.commandCalls(GetMetricDataCommand).map((c) => c.args[0].input);
const callShape = () =>
  calls().map((i) => ({
    start: (i.StartTime as Date).toISOString(),
    end: (i.EndTime as Date).toISOString(),
    periods: i.MetricDataQueries!.map((q) => q.MetricStat!.Period),
    metrics: i.MetricDataQueries!.map((q) => q.MetricStat!.Metric!.MetricName),
    token: i.NextToken,
  }));
const base = ['--policy', POLICY, '--out', 'history.csv'];

beforeEach(() => {
  cw.reset();
  folder = mkdtempSync(join(tmpdir(), 'governor-history-cli-'));
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(NOW);
  vi.stubEnv('AWS_ENDPOINT_URL', '');
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllEnvs();
  rmSync(folder, { recursive: true, force: true });
});

describe('governor history over CloudWatch', () => {
  it('reads 20 days in two calls, one per span at its period, and writes a trace the backtest parses', async () => {
    cw.on(GetMetricDataCommand).callsFake(cloudWatch());
    const { code, out, err } = await run('--target', 'chat-llm', '--days', '20', ...base);
    expect(code, err.join('\n')).toBe(0);
    expect(callShape()).toEqual([
      {
        start: '2025-05-20T12:00:00.000Z',
        end: '2025-05-25T12:15:00.000Z',
        periods: [300],
        metrics: ['Invocations'],
        token: undefined,
      },
      {
        start: '2025-05-25T12:15:00.000Z',
        end: '2025-06-09T12:00:00.000Z',
        periods: [60],
        metrics: ['Invocations'],
        token: undefined,
      },
    ]);
    expect(calls()[0]!.MetricDataQueries![0]!.MetricStat).toMatchObject({
      Metric: {
        Namespace: 'AWS/SageMaker',
        Dimensions: [
          { Name: 'EndpointName', Value: 'chat-llm-prod' },
          { Name: 'VariantName', Value: 'AllTraffic' },
        ],
      },
      Stat: 'Sum',
    });
    const trace = parseTrace(readFileSync(join(folder, 'history.csv'), 'utf8'), 'history.csv');
    expect(trace.requests).toHaveLength(20 * 1440);
    // The 1-minute span as read; the 5-minute one spread (the saw-tooth's 5-minute sums are kept).
    const last = NOW - 10_000 - MIN;
    expect(trace.requests.at(-1)).toBe(perMinute(last));
    const firstFive = [0, 1, 2, 3, 4].map((k) => perMinute(NOW - 10_000 - 20 * DAY + k * MIN));
    expect(trace.requests.slice(0, 5).reduce((a, b) => a + b)).toBe(firstFive.reduce((a, b) => a + b));
    expect(existsSync(join(folder, 'history.md'))).toBe(true);
    expect(out).toEqual([
      expect.stringMatching(/^wrote history\.csv \(28,800 minutes, .*; 0 gaps filled\) and history\.md$/),
    ]);
  });

  it('follows NextToken until the last page of each span', async () => {
    cw.on(GetMetricDataCommand).callsFake(cloudWatch(perMinute, 3));
    const { code } = await run('--target', 'chat-llm', '--days', '20', ...base);
    expect(code).toBe(0);
    expect(callShape().map((c) => [c.periods[0], c.token])).toEqual([
      [300, undefined],
      [300, '1'],
      [300, '2'],
      [60, undefined],
      [60, '1'],
      [60, '2'],
    ]);
    const trace = parseTrace(readFileSync(join(folder, 'history.csv'), 'utf8'), 'history.csv');
    expect(trace.requests).toHaveLength(20 * 1440);
  });

  it('reads an inference component’s Invocations and NoCapacityInvocationFailures together, in its region', async () => {
    cw.on(GetMetricDataCommand).callsFake(cloudWatch());
    const { code } = await run('--target', 'code-llm', '--days', '2', ...base);
    expect(code).toBe(0);
    expect(callShape()).toEqual([
      expect.objectContaining({
        periods: [60, 60],
        metrics: ['Invocations', 'NoCapacityInvocationFailures'],
      }),
    ]);
    const client = cw.commandCalls(GetMetricDataCommand)[0]!.thisValue as CloudWatchClient;
    expect(await client.config.region()).toBe('eu-west-1');
    const trace = parseTrace(readFileSync(join(folder, 'history.csv'), 'utf8'), 'history.csv');
    // Requests turned away at zero copies are demand too: 1 more in every tenth minute.
    expect(trace.requests[0]).toBe(perMinute(NOW - 10_000 - 2 * DAY) + 1);
    expect(trace.requests[1]).toBe(perMinute(NOW - 10_000 - 2 * DAY + MIN));
  });

  it('reads an Auto Scaling group’s published Governor/Demand Requests, and --region moves the read', async () => {
    cw.on(GetMetricDataCommand).resolves({ MetricDataResults: [] });
    await run('--target', 'batch-gpu', '--days', '1', '--region', 'ap-southeast-2', ...base);
    expect(calls()[0]!.MetricDataQueries![0]!.MetricStat!.Metric).toEqual({
      Namespace: 'Governor/Demand',
      MetricName: 'Requests',
      Dimensions: [{ Name: 'AutoScalingGroupName', Value: 'batch-gpu-asg' }],
    });
    const client = cw.commandCalls(GetMetricDataCommand)[0]!.thisValue as CloudWatchClient;
    expect(await client.config.region()).toBe('ap-southeast-2');
  });

  it('measures ages from now, not from --end: a window that ended 20 days ago is read at 5 minutes', async () => {
    cw.on(GetMetricDataCommand).callsFake(cloudWatch());
    const { code } = await run('--target', 'chat-llm', '--days', '2', '--end', '2025-05-20T12:03Z', ...base);
    expect(code).toBe(0);
    expect(callShape()).toEqual([
      expect.objectContaining({
        start: '2025-05-18T12:05:00.000Z',
        end: '2025-05-20T12:00:00.000Z',
        periods: [300],
      }),
    ]);
  });

  it('fills gaps with 0 under --gaps zero and lists each on stderr', async () => {
    const idle = (t: number) =>
      t >= NOW - 10_000 - 60 * MIN && t < NOW - 10_000 - 50 * MIN ? null : perMinute(t);
    cw.on(GetMetricDataCommand).callsFake(cloudWatch(idle));
    const { code, err } = await run('--target', 'chat-llm', '--days', '1', '--gaps', 'zero', ...base);
    expect(code).toBe(0);
    expect(err.filter((l) => l.startsWith('gap '))).toEqual([
      'gap at minute 1,380 (2025-06-09T11:00Z): 10 minutes (10 x 1-minute periods) without a datapoint, filled with 0 (idle)',
    ]);
    const trace = parseTrace(readFileSync(join(folder, 'history.csv'), 'utf8'), 'history.csv');
    expect(trace.requests.slice(1380, 1390)).toEqual(new Array(10).fill(0));
  });
});

describe('bad input: one line, exit 2, no AWS call, nothing written', () => {
  it.each([
    { case: 'no --target', argv: ['--days', '1', ...base], says: /^--target ID is required/ },
    {
      case: 'a target not in the policy',
      argv: ['--target', 'nope', '--days', '1', ...base],
      says: /^--target nope is not in .*policy\.yaml; its targets are chat-llm, code-llm, batch-gpu$/,
    },
    {
      case: 'a policy file that is not there',
      argv: ['--target', 'chat-llm', '--days', '1', '--policy', 'missing.yaml', '--out', 'h.csv'],
      says: /^--policy missing\.yaml: cannot read the file \(ENOENT\): check the path$/,
    },
    {
      case: 'a policy that does not validate',
      argv: ['--target', 'chat-llm', '--days', '1', '--policy', INVALID_POLICY, '--out', 'h.csv'],
      says: /^--policy .*invalid-out-of-range\.yaml: targets\[0\]\.region must be an AWS region .*\(and \d+ more: run governor validate\)$/,
    },
    { case: 'no --days', argv: ['--target', 'chat-llm', ...base], says: /^--days N is required/ },
    {
      case: 'days that are not a number',
      argv: ['--target', 'chat-llm', '--days', 'ten', ...base],
      says: /^--days must be a whole number of days from 1 to 455, got "ten"$/,
    },
    {
      case: 'half a day',
      argv: ['--target', 'chat-llm', '--days', '1.5', ...base],
      says: /^--days must be a whole number/,
    },
    {
      case: 'zero days',
      argv: ['--target', 'chat-llm', '--days', '0', ...base],
      says: /^--days must be 1 or more/,
    },
    {
      case: 'more days than CloudWatch keeps',
      argv: ['--target', 'chat-llm', '--days', '456', ...base],
      says: /^--days 456 is more than CloudWatch keeps: at most 455 days \(at one-hour periods\)$/,
    },
    {
      case: 'days that reach past 455 days from an earlier --end',
      argv: ['--target', 'chat-llm', '--days', '450', '--end', '2025-05-30T12:00Z', ...base],
      says: /^--days 450 with --end 2025-05-30T12:00Z: the window reaches 460 days back; CloudWatch keeps 455 days \(at one-hour periods\): use --days 445 or fewer$/,
    },
    {
      case: 'an --end older than CloudWatch keeps anything',
      argv: ['--target', 'chat-llm', '--days', '1', '--end', '2024-01-01T00:00Z', ...base],
      says: /: the window reaches 527 days back; .*: --end is more than 455 days ago: CloudWatch keeps nothing older$/,
    },
    {
      case: 'an --end without a zone',
      argv: ['--target', 'chat-llm', '--days', '1', '--end', '2025-06-01T00:00', ...base],
      says: /^--end must be an ISO time with its zone, such as 2025-06-09T12:00Z, got "2025-06-01T00:00"$/,
    },
    {
      case: 'an --end in the future',
      argv: ['--target', 'chat-llm', '--days', '1', '--end', '2025-06-10T00:00Z', ...base],
      says: /^--end 2025-06-10T00:00Z is after now \(2025-06-09T12:00Z\): history cannot be read ahead$/,
    },
    {
      case: 'a --region that is not one',
      argv: ['--target', 'chat-llm', '--days', '1', '--region', 'mars', ...base],
      says: /^--region must be an AWS region name/,
    },
    {
      case: 'an unknown --gaps',
      argv: ['--target', 'chat-llm', '--days', '1', '--gaps', 'guess', ...base],
      says: /^--gaps must be interpolate or zero, got "guess"$/,
    },
    {
      case: 'a --request-timeout that is not a number of seconds',
      argv: ['--target', 'chat-llm', '--days', '1', '--request-timeout', '2m', ...base],
      says: /^--request-timeout must be a number of seconds, such as 120, got "2m"$/,
    },
    {
      case: 'a --request-timeout given in milliseconds by mistake',
      argv: ['--target', 'chat-llm', '--days', '1', '--request-timeout', '60000', ...base],
      says: /^--request-timeout must be more than 0 and at most 600 seconds, got "60000"$/,
    },
    {
      case: 'an --out that is not a .csv',
      argv: ['--target', 'chat-llm', '--days', '1', '--policy', POLICY, '--out', 'history.txt'],
      says: /^--out must name a \.csv file \(the note is written beside it as NAME\.md\), got "history\.txt"$/,
    },
    {
      case: 'an --out under a file',
      argv: ['--target', 'chat-llm', '--days', '1', '--policy', POLICY, '--out', 'notes.txt/history.csv'],
      says: /^--out notes\.txt\/history\.csv: .*notes\.txt is a file, not a folder: choose another path$/,
    },
    {
      case: 'an --out that is a folder',
      argv: ['--target', 'chat-llm', '--days', '1', '--policy', POLICY, '--out', 'taken.csv'],
      says: /^--out taken\.csv is a folder: name a \.csv file$/,
    },
    {
      case: 'an unknown option',
      argv: ['--target', 'chat-llm', '--days', '1', '--weeks', '2', ...base],
      says: /^Unknown option '--weeks'/,
    },
    {
      case: 'a stray argument',
      argv: ['chat-llm', '--days', '1', ...base],
      says: /^unexpected argument "chat-llm"/,
    },
  ])('$case', async ({ argv, says }) => {
    writeFileSync(join(folder, 'notes.txt'), 'not a folder');
    mkdirSync(join(folder, 'taken.csv'));
    cw.on(GetMetricDataCommand).callsFake(cloudWatch());
    const { code, out, err } = await run(...argv);
    expect(code).toBe(2);
    expect(out).toEqual([]);
    expect(err).toHaveLength(1);
    expect(err[0]).toMatch(/^governor history: /);
    expect(err[0]!.replace('governor history: ', '')).toMatch(says);
    expect(calls()).toEqual([]);
    expect(existsSync(join(folder, 'history.csv'))).toBe(false);
  });
});

describe('when CloudWatch cannot answer', () => {
  const credentialsMissing = Object.assign(new Error('Could not load credentials from any providers'), {
    name: 'CredentialsProviderError',
  });
  const unreachable = Object.assign(new Error('getaddrinfo ENOTFOUND monitoring.us-east-9.amazonaws.com'), {
    code: 'ENOTFOUND',
  });
  it.each([
    {
      case: 'no credentials',
      error: credentialsMissing,
      code: 2,
      says: /^no AWS credentials found: set AWS_PROFILE/,
    },
    {
      case: 'expired credentials',
      error: awsError('ExpiredTokenException', 'The security token included in the request is expired'),
      code: 2,
      says: /^AWS rejected the credentials \(ExpiredTokenException\): refresh them/,
    },
    {
      case: 'credentials without cloudwatch:GetMetricData',
      error: awsError('AccessDeniedException', 'User is not authorized'),
      code: 2,
      says: /^these credentials may not call cloudwatch:GetMetricData in us-east-1 \(AccessDeniedException\)/,
    },
    {
      case: 'a region that does not answer',
      error: unreachable,
      code: 2,
      says: /^cannot reach CloudWatch in region us-east-1 \(ENOTFOUND\): check --region/,
    },
    {
      case: 'an endpoint that answered too slowly on every attempt',
      error: Object.assign(
        new Error(
          '@smithy/node-http-handler - [ERROR] a request has exceeded the configured 60000 ms requestTimeout.',
        ),
        { name: 'TimeoutError', code: 'ETIMEDOUT', $metadata: { attempts: 4 } },
      ),
      code: 1,
      says: /^CloudWatch in region us-east-1 answered too slowly: no GetMetricData answer within 60 s on any of 4 attempts: raise --request-timeout \(now 60 s\)/,
    },
    {
      case: 'throttling after the client’s retries',
      error: awsError('ThrottlingException', 'Rate exceeded'),
      code: 1,
      says: /^GetMetricData failed: ThrottlingException: Rate exceeded$/,
    },
  ])('$case: one line, exit $code, nothing written', async ({ error, code, says }) => {
    cw.on(GetMetricDataCommand).rejects(error);
    const r = await run('--target', 'chat-llm', '--days', '1', ...base);
    expect(r.code).toBe(code);
    expect(r.err).toHaveLength(1);
    expect(r.err[0]!.replace('governor history: ', '')).toMatch(says);
    expect(existsSync(join(folder, 'history.csv'))).toBe(false);
  });

  it('no datapoint at all: exit 1, naming what was looked for and where', async () => {
    cw.on(GetMetricDataCommand).resolves({ MetricDataResults: [{ Id: 'd0', Timestamps: [], Values: [] }] });
    const r = await run('--target', 'chat-llm', '--days', '1', ...base);
    expect(r.code).toBe(1);
    expect(r.err).toEqual([
      'governor history: no datapoint for AWS/SageMaker Invocations (EndpointName=chat-llm-prod, VariantName=AllTraffic) in us-east-1 from 2025-06-08T12:00Z to 2025-06-09T12:00Z: check the names in the policy, --region, and that the target served requests then',
    ]);
    expect(existsSync(join(folder, 'history.csv'))).toBe(false);
  });

  it('a window mostly without data, to be interpolated: exit 1, saying so', async () => {
    const lastHours = (t: number) => (t >= NOW - 10_000 - 6 * 60 * MIN ? perMinute(t) : null);
    cw.on(GetMetricDataCommand).callsFake(cloudWatch(lastHours));
    const r = await run('--target', 'chat-llm', '--days', '1', ...base);
    expect(r.code).toBe(1);
    expect(r.err).toEqual([
      expect.stringMatching(
        /^governor history: AWS\/SageMaker Invocations .* in us-east-1 from .*: 1,080 of the window's 1,440 minutes \(75 %\) have no datapoint: .*--gaps zero if it publishes nothing when idle$/,
      ),
    ]);
    expect(existsSync(join(folder, 'history.csv'))).toBe(false);
  });

  it('a malformed result is rejected, not read as no requests', async () => {
    cw.on(GetMetricDataCommand).resolves({
      MetricDataResults: [{ Id: 'd0', Timestamps: [new Date(NOW - DAY)], Values: [] }],
    });
    const r = await run('--target', 'chat-llm', '--days', '1', ...base);
    expect(r.code).toBe(1);
    expect(r.err).toEqual([
      'governor history: GetMetricData result rejected: Invocations: 1 timestamps but 0 values',
    ]);
  });
});

describe('governor history --help', () => {
  it('names every option the command accepts', async () => {
    const { code, out } = await run('--help');
    expect(code).toBe(0);
    for (const option of Object.keys(OPTIONS)) expect(out.join('\n')).toContain(`--${option}`);
  });
});
