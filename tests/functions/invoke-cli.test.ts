/** `governor invoke evaluate`: bad input exits 2 with one line; without AWS_ENDPOINT_URL nothing reaches AWS. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type CliIo, EXIT } from '#shared/cli/io.ts';
import { main } from '#shared/cli/main.ts';

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
      err: 'governor invoke: evaluating chat-llm reads live metrics and capacity: set AWS_ENDPOINT_URL (for example moto_server, see npm run local)',
    },
    {
      case: 'a malformed event names the field',
      args: ['evaluate', '--event', 'events/malformed-alarm-no-name.json'],
      err: 'governor invoke: events/malformed-alarm-no-name.json: event field detail.alarmName is required: the name of the alarm that changed state',
    },
    {
      case: 'a missing event file names the path',
      args: ['evaluate', '--event', 'events/nope.json'],
      err: 'governor invoke: cannot read the event file events/nope.json (ENOENT): check the path',
    },
    {
      case: 'an invalid policy file names its problems',
      args: ['evaluate', '--event', 'events/scheduler-tick.json', '--policy', BAD_POLICY],
      err: `governor invoke: ${BAD_POLICY}: targets needs at least one target`,
    },
    {
      case: 'no policy and no endpoint: it says which is needed',
      args: ['evaluate', '--event', 'events/scheduler-tick.json', '--now', 'event'],
      err: 'governor invoke: needs --policy FILE, or AWS_ENDPOINT_URL to read the policy from SSM',
    },
    {
      case: 'a bad --now names the option',
      args: ['evaluate', '--event', 'events/scheduler-tick.json', '--now', 'noon'],
      err: 'governor invoke: --now must be an ISO time such as 2025-06-02T12:00:30Z, or "event", got "noon"',
    },
    {
      case: 'another function name is refused',
      args: ['forecast', '--event', 'events/scheduler-tick.json'],
      err: 'governor invoke: usage: governor invoke evaluate --event FILE [--shadow] [--policy FILE] [--now ISO|event] (the only function is "evaluate")',
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
