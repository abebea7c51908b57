/**
 * Running the evaluate handler for `governor invoke` once its input is checked: over recorded
 * readings (`--metrics`, in-memory fakes from ./invoke-offline.ts) or on an AWS endpoint
 * (`AWS_ENDPOINT_URL`, an emulator), printing one JSON decision record per evaluated target.
 */
import { DescribeStateMachineCommand } from '@aws-sdk/client-sfn';
import { createEvaluator } from '../../functions/evaluate/evaluate.ts';
import {
  fixedPolicySource,
  type PolicySource,
  ssmPolicySource,
} from '../../functions/evaluate/policy-source.ts';
import { awsPorts, type Ports } from '../../functions/evaluate/ports.ts';
import type { Telemetry } from '../../functions/evaluate/telemetry.ts';
import { type Clients, createClients } from '../aws/clients.ts';
import { directScaling } from '../aws/direct-scaling.ts';
import type { StatePort } from '../aws/dynamodb.ts';
import type { GovernorEvent } from '../events/parse.ts';
import { routeEvent } from '../events/routing.ts';
import type { Config } from '../invocation/config.ts';
import type { PolicyFile } from '../policy/schema.ts';
import { offlinePorts, type Recorded, requireRecorded } from './invoke-offline.ts';
import { type CliIo, EXIT, RunError } from './io.ts';

export interface Invocation {
  raw: unknown;
  event: GovernorEvent;
  now: number;
  shadow: boolean;
  policy: PolicyFile | undefined;
  config: Config;
}

/** Prints the invocation's report: one line if ignored, else one JSON record per target; exit 1 on a failed one. */
export function printReport(
  io: CliIo,
  report: Awaited<ReturnType<ReturnType<typeof createEvaluator>>>,
): number {
  if (report.ignored) io.stdout(`ignored (${report.ignored.reason}): ${report.ignored.message}`);
  for (const record of report.records) io.stdout(JSON.stringify(record));
  return report.records.some((r) => r.outcome === 'failed') ? EXIT.failure : EXIT.ok;
}

/** Prints what the Lambda would log, on stderr, one line each. */
export const cliTelemetry = (io: CliIo): Telemetry => ({
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

/** With --metrics: the evaluate function over in-memory fakes fed by the recorded file. */
export async function offline(io: CliIo, inv: Invocation, recorded: Recorded, file: string): Promise<number> {
  const policy = inv.policy!;
  const route = routeEvent(inv.event, policy);
  if (!('reason' in route)) requireRecorded(recorded, route.targets, file);
  const { ports, notes } = offlinePorts(recorded, policy, inv.config.KILL_SWITCH_PARAMETER_NAME);
  io.stderr(
    `offline: readings and capacity from ${file}; the state table, SageMaker, Auto Scaling and Step Functions are in-memory fakes, so nothing leaves this machine`,
  );
  const evaluate = createEvaluator({
    config: inv.config,
    ports,
    telemetry: cliTelemetry(io),
    policy: fixedPolicySource(policy),
    ...(inv.shadow ? { mode: 'shadow' as const } : {}),
  });
  const code = printReport(io, await evaluate(inv.raw, inv.now));
  for (const note of notes) io.stderr(`offline: ${note}`);
  return code;
}

/**
 * An endpoint that does not answer is the operator's to start: one line, exit 1 (as `governor
 * history` exits for the same endpoint), before the handler turns the refused connections into a
 * failed policy load and failed records. Any HTTP answer will do (moto answers 404 on /). One that
 * takes a connection and no answer within `timeoutMs` is hung or overloaded, and says so.
 */
export async function checkEndpoint(endpoint: string, timeoutMs = 5000): Promise<void> {
  try {
    await fetch(endpoint, { signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    if ((error as Error).name === 'TimeoutError')
      throw new RunError(
        `AWS_ENDPOINT_URL ${endpoint} answered too slowly: no HTTP answer within ${timeoutMs / 1000} s: it is hung or overloaded: restart it (npm run local -- --keep prints a working command), or unset AWS_ENDPOINT_URL and pass --metrics FILE`,
      );
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const why = cause?.code ?? cause?.message ?? (error as Error).name;
    throw new RunError(
      `AWS_ENDPOINT_URL ${endpoint} does not answer (${why}): start the emulator (npm run local -- --keep prints a working command), or unset AWS_ENDPOINT_URL and pass --metrics FILE`,
    );
  }
}

/** With AWS_ENDPOINT_URL: the evaluate function on that endpoint (read-only under --shadow). */
export async function onEndpoint(io: CliIo, inv: Invocation, endpoint: string): Promise<number> {
  const { config, shadow } = inv;
  await checkEndpoint(endpoint);
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
  return printReport(io, await evaluate(inv.raw, inv.now));
}
