/**
 * `governor invoke evaluate --event FILE [--shadow] [--policy FILE] [--now ISO|event]`: runs
 * the evaluate handler in-process on a recorded event and prints one JSON decision record per
 * evaluated target (or one line saying why the event was ignored).
 *
 * - Without AWS_ENDPOINT_URL nothing reaches AWS: events that would be ignored say so; events
 *   that need live metrics stop with exit 2 and say AWS_ENDPOINT_URL is needed.
 * - With AWS_ENDPOINT_URL (moto, `npm run local`) it reads and, without --shadow, acts on that
 *   endpoint: mode active unless GOVERNOR_MODE says otherwise. SageMaker changes start the
 *   state machine at SCALE_STATE_MACHINE_ARN, or are applied directly when none exists there.
 * - --shadow: shadow mode, and no write at all (state, audit); the records are only printed.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DescribeStateMachineCommand } from '@aws-sdk/client-sfn';
import { createEvaluator } from '../../functions/evaluate/evaluate.ts';
import {
  checkPolicyText,
  fixedPolicySource,
  type PolicySource,
  ssmPolicySource,
} from '../../functions/evaluate/policy-source.ts';
import { awsPorts, type Ports } from '../../functions/evaluate/ports.ts';
import type { Telemetry } from '../../functions/evaluate/telemetry.ts';
import { type Clients, createClients } from '../aws/clients.ts';
import { directScaling } from '../aws/direct-scaling.ts';
import type { StatePort } from '../aws/dynamodb.ts';
import { type Config, LOCAL_DEFAULTS, parseConfig } from '../control/config.ts';
import { EventError, type GovernorEvent, parseEvent } from '../control/events.ts';
import { routeEvent, screenEvent } from '../control/routing.ts';
import type { PolicyFile } from '../policy/schema.ts';
import { type CliIo, EXIT, UsageError } from './io.ts';
import { parseOptions } from './options.ts';

const USAGE = 'usage: governor invoke evaluate --event FILE [--shadow] [--policy FILE] [--now ISO|event]';

async function readInput(io: CliIo, file: string, what: string): Promise<string> {
  try {
    return await readFile(resolve(io.cwd, file), 'utf8');
  } catch (error) {
    throw new UsageError(
      `cannot read ${what} ${file} (${(error as NodeJS.ErrnoException).code ?? error}): check the path`,
    );
  }
}

async function loadEvent(io: CliIo, file: string) {
  const text = await readInput(io, file, 'the event file');
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${file} is not JSON: ${(error as Error).message}`);
  }
  try {
    return { raw, event: parseEvent(raw) };
  } catch (error) {
    if (error instanceof EventError) throw new UsageError(`${file}: ${error.message}`);
    throw error;
  }
}

async function loadPolicyFile(io: CliIo, file: string): Promise<PolicyFile> {
  const checked = checkPolicyText(await readInput(io, file, 'the policy file'));
  if (!checked.ok) throw new UsageError(`${file}: ${checked.problems.join('; ')}`);
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

/** Prints what the Lambda would log, on stderr, one line each. */
const cliTelemetry = (io: CliIo): Telemetry => ({
  info: (m) => io.stderr(`info: ${m}`),
  warn: (m) => io.stderr(`warn: ${m}`),
  error: (m) => io.stderr(`error: ${m}`),
  decision: () => {},
  policyLoadFailure: (problems) => {
    for (const p of problems) io.stderr(`policy problem: ${p}`);
  },
  invocationSucceeded: () => {},
});

/** Reads go to the table; writes are dropped (--shadow writes nothing). */
const readOnly = (state: StatePort): StatePort => ({
  read: (id) => state.read(id),
  claim: async () => true,
  putAudit: async () => {},
});

/** The scale-target state machine at the endpoint, or direct SageMaker calls when it is absent. */
export async function executionsFor(
  clients: Clients,
  config: Config,
  ports: Ports,
  say: (line: string) => void,
) {
  try {
    await clients.home.sfn.send(
      new DescribeStateMachineCommand({ stateMachineArn: config.SCALE_STATE_MACHINE_ARN }),
    );
    return ports.executions;
  } catch {
    say(
      `no state machine at ${config.SCALE_STATE_MACHINE_ARN}: SageMaker changes are applied directly with UpdateEndpointWeightsAndCapacities / UpdateInferenceComponentRuntimeConfig (the calls its apply step makes)`,
    );
    return directScaling(ports.sageMaker, config.AWS_REGION);
  }
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

interface Invocation {
  raw: unknown;
  event: GovernorEvent;
  now: number;
  shadow: boolean;
  policy: PolicyFile | undefined;
  config: Config;
}

/** Without an endpoint: answers what it can offline (ignored events), else says what is needed. */
function offline(io: CliIo, inv: Invocation): number {
  if (!inv.policy)
    throw new UsageError('needs --policy FILE, or AWS_ENDPOINT_URL to read the policy from SSM');
  const route = routeEvent(inv.event, inv.policy);
  if (!('reason' in route)) {
    throw new UsageError(
      `evaluating ${route.targets.map((t) => t.id).join(', ')} reads live metrics and capacity: set AWS_ENDPOINT_URL (for example moto_server, see npm run local)`,
    );
  }
  io.stdout(`ignored (${route.reason}): ${route.message}`);
  return EXIT.ok;
}

/** With AWS_ENDPOINT_URL: the evaluate function on that endpoint (read-only under --shadow). */
async function onEndpoint(io: CliIo, inv: Invocation, endpoint: string): Promise<number> {
  const { config, shadow } = inv;
  const clients = createClients({
    region: config.AWS_REGION,
    endpoint,
    ...(process.env.AWS_ACCESS_KEY_ID
      ? {}
      : { credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } }),
  });
  const telemetry = cliTelemetry(io);
  const ports = awsPorts(clients, config.STATE_TABLE_NAME);
  if (shadow) ports.state = readOnly(ports.state);
  else ports.executions = await executionsFor(clients, config, ports, (line) => io.stderr(line));
  const policy: PolicySource = inv.policy
    ? fixedPolicySource(inv.policy)
    : ssmPolicySource(ports.parameters, config.POLICY_PARAMETER_NAME, config.POLICY_CACHE_SECONDS, telemetry);
  const evaluate = createEvaluator({
    config,
    ports,
    telemetry,
    policy,
    writeAudit: !shadow,
    ...(shadow ? { mode: 'shadow' as const } : {}),
  });
  const report = await evaluate(inv.raw, inv.now);
  if (report.ignored) io.stdout(`ignored (${report.ignored.reason}): ${report.ignored.message}`);
  for (const record of report.records) io.stdout(JSON.stringify(record));
  return report.records.some((r) => r.outcome === 'failed') ? EXIT.failure : EXIT.ok;
}

export async function invokeCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseOptions(() =>
    parseArgs({
      args,
      allowPositionals: true,
      options: {
        event: { type: 'string' },
        shadow: { type: 'boolean', default: false },
        policy: { type: 'string' },
        now: { type: 'string' },
      },
    }),
  );
  if (positionals.length !== 1 || positionals[0] !== 'evaluate') {
    throw new UsageError(`${USAGE} (the only function is "evaluate")`);
  }
  if (!values.event) throw new UsageError(`--event FILE is required; ${USAGE}`);
  const { raw, event } = await loadEvent(io, values.event);
  const inv: Invocation = {
    raw,
    event,
    now: nowOption(values.now, event.time),
    shadow: values.shadow,
    policy: values.policy ? await loadPolicyFile(io, values.policy) : undefined,
    config: localConfig(process.env),
  };
  const screened = screenEvent(event, inv.now, inv.config.MAX_EVENT_AGE_SECONDS);
  if (screened) {
    const hint =
      values.now === undefined && screened.reason === 'StaleEvent'
        ? ' (pass --now event to replay it at its own time)'
        : '';
    io.stdout(`ignored (${screened.reason}): ${screened.message}${hint}`);
    return EXIT.ok;
  }
  const endpoint = process.env.AWS_ENDPOINT_URL;
  return endpoint ? onEndpoint(io, inv, endpoint) : offline(io, inv);
}
