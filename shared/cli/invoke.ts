/**
 * `governor invoke evaluate --event FILE [--policy FILE] [--metrics FILE] [--shadow]
 * [--now ISO|event]`: runs the evaluate handler in-process on a recorded event and prints one
 * JSON decision record per evaluated target (or one line saying why the event was ignored).
 *
 * - With --metrics FILE (recorded readings and capacity, shared/cli/invoke-offline.ts) the
 *   handler runs over in-memory fakes: no emulator, no network, no credentials.
 * - Without --metrics and without AWS_ENDPOINT_URL nothing reaches AWS: events that would be
 *   ignored say so; events that need live metrics stop with exit 2 and say what to pass.
 * - With AWS_ENDPOINT_URL (moto, `npm run local`) it reads and, without --shadow, acts on that
 *   endpoint: mode active unless GOVERNOR_MODE says otherwise. SageMaker changes start the
 *   state machine at SCALE_STATE_MACHINE_ARN, or are applied directly when none exists there.
 * - --shadow: shadow mode, and no write at all (state, audit); the records are only printed.
 */
import { checkPolicyText } from '../../functions/evaluate/policy-source.ts';
import { EventError, parseEvent } from '../events/parse.ts';
import { routeEvent, screenEvent } from '../events/routing.ts';
import { type Config, ConfigError, LOCAL_DEFAULTS, parseConfig } from '../invocation/config.ts';
import type { PolicyFile } from '../policy/schema.ts';
import { readInput } from './files.ts';
import { parseRecorded } from './invoke-offline.ts';
import { type Invocation, offline, onEndpoint } from './invoke-run.ts';
import { type CliIo, EXIT, UsageError } from './io.ts';
import { parseOptions } from './options.ts';

const USAGE =
  'usage: governor invoke evaluate --event FILE [--policy FILE] [--metrics FILE] [--shadow] [--now ISO|event]';

async function loadEvent(io: CliIo, file: string) {
  const text = await readInput(file, 'event', io.cwd);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--event ${file} is not JSON: ${(error as Error).message}`);
  }
  try {
    return { raw, event: parseEvent(raw) };
  } catch (error) {
    if (error instanceof EventError) throw new UsageError(`--event ${file}: ${error.message}`);
    throw error;
  }
}

async function loadPolicyFile(io: CliIo, file: string): Promise<PolicyFile> {
  const checked = checkPolicyText(await readInput(file, 'policy', io.cwd));
  if (!checked.ok) throw new UsageError(`--policy ${file}: ${checked.problems.join('; ')}`);
  return checked.policy;
}

function nowOption(raw: string | undefined, eventTime: number): number {
  if (raw === undefined) return Date.now();
  if (raw === 'event') return eventTime;
  const t = Date.parse(raw);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(raw) || !Number.isFinite(t)) {
    throw new UsageError(`--now must be an ISO time such as 2025-06-02T12:00:30Z, or "event", got "${raw}"`);
  }
  return t;
}

/** The Lambda's configuration for local runs: LOCAL_DEFAULTS under the environment, active unless GOVERNOR_MODE says otherwise. */
export function localConfig(env: NodeJS.ProcessEnv): Config {
  return parseConfig({
    ...LOCAL_DEFAULTS,
    GOVERNOR_MODE: 'active',
    ...env,
    AWS_REGION: env.AWS_REGION ?? 'us-east-1',
  });
}

/** Without an endpoint or readings: answers what it can (ignored events), else says what to pass. */
function withoutReadings(io: CliIo, inv: Invocation): number {
  if (!inv.policy) {
    throw new UsageError(
      'needs --policy FILE (with --metrics FILE for recorded readings), or AWS_ENDPOINT_URL to read the policy from SSM',
    );
  }
  const route = routeEvent(inv.event, inv.policy);
  if (!('reason' in route)) {
    throw new UsageError(
      `evaluating ${route.targets.map((t) => t.id).join(', ')} reads metrics and capacity: pass --metrics FILE with recorded ones (events/invoke/chat-llm.json), or set AWS_ENDPOINT_URL to an emulator (npm run local -- --keep prints the command)`,
    );
  }
  io.stdout(`ignored (${route.reason}): ${route.message}`);
  return EXIT.ok;
}

const INVOKE_OPTIONS = {
  event: { type: 'string' },
  shadow: { type: 'boolean', default: false },
  policy: { type: 'string' },
  metrics: { type: 'string' },
  now: { type: 'string' },
} as const;

/** The environment as the Lambda would parse it; a bad variable is the operator's input. */
function configFrom(env: NodeJS.ProcessEnv): Config {
  try {
    return localConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(`${error.message} (check the environment)`);
    throw error;
  }
}

/** Arguments, event, policy and recorded readings, all checked before anything runs. */
async function parseInvocation(args: string[], io: CliIo) {
  const { values, positionals } = parseOptions({ args, allowPositionals: true, options: INVOKE_OPTIONS });
  if (positionals.length !== 1 || positionals[0] !== 'evaluate') {
    throw new UsageError(`${USAGE} (the only function is "evaluate")`);
  }
  if (!values.event) throw new UsageError(`--event FILE is required; ${USAGE}`);
  const { raw, event } = await loadEvent(io, values.event);
  if (values.metrics !== undefined && values.policy === undefined) {
    throw new UsageError('--metrics FILE needs --policy FILE: the policy the readings are for');
  }
  const policy = values.policy ? await loadPolicyFile(io, values.policy) : undefined;
  const inv: Invocation = {
    raw,
    event,
    now: nowOption(values.now, event.time),
    shadow: values.shadow,
    policy,
    config: configFrom(process.env),
  };
  const metrics =
    values.metrics === undefined || !policy
      ? undefined
      : {
          file: values.metrics,
          recorded: parseRecorded(await readInput(values.metrics, 'metrics', io.cwd), values.metrics, policy),
        };
  return { inv, metrics, nowGiven: values.now !== undefined };
}

export async function invokeCommand(args: string[], io: CliIo): Promise<number> {
  const { inv, metrics, nowGiven } = await parseInvocation(args, io);
  const screened = screenEvent(inv.event, inv.now, inv.config.MAX_EVENT_AGE_SECONDS);
  if (screened) {
    const hint =
      !nowGiven && screened.reason === 'StaleEvent' ? ' (pass --now event to replay it at its own time)' : '';
    io.stdout(`ignored (${screened.reason}): ${screened.message}${hint}`);
    return EXIT.ok;
  }
  if (metrics) {
    if (process.env.AWS_ENDPOINT_URL)
      io.stderr('offline: --metrics is given, so AWS_ENDPOINT_URL is not used');
    return offline(io, inv, metrics.recorded, metrics.file);
  }
  const endpoint = process.env.AWS_ENDPOINT_URL;
  return endpoint ? onEndpoint(io, inv, endpoint) : withoutReadings(io, inv);
}
