/**
 * `npm run local`: the control plane end to end on your machine, through the real AWS SDK.
 *
 * Starts moto_server on a free loopback port, creates what a deployed stack has (state table,
 * policy and kill-switch parameters, the scale-target state machine) and a demo SageMaker
 * endpoint (ml.g4dn.xlarge, 2 instances), then replays a stretch of a bundled trace minute by
 * minute: each minute's requests go into moto's CloudWatch (InvocationsPerInstance and
 * GPUUtilization of the instances serving then, timestamps in the last hour), and the evaluate
 * handler runs in active mode at that minute ("now" moves one minute per tick). Prints every
 * decision and the endpoint's instance count after it, and stops moto at the end, on error and
 * on Ctrl-C.
 *
 * moto applies a capacity change at once (no 8-minute GPU start-up), and its Step Functions
 * engine runs one execution per region (getmoto/moto#10077): changes after the first are
 * applied directly with the calls the state machine makes, and the output says so.
 *
 * Options: --minutes N (default 40), --trace FILE (default the Azure LLM conversation trace),
 * --keep: leave the seeded moto_server running after the replay (until Ctrl-C), with a tick
 * event at the replay's last minute in .tmp/local-tick.json, and print the exact
 * `governor invoke` command that evaluates it against moto.
 *
 * Needs moto_server (Python: pipx install "moto[server]"); without it, one line says how to
 * get it (README, "Prerequisites").
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DescribeEndpointCommand, SageMakerClient } from '@aws-sdk/client-sagemaker';
import { CreateStateMachineCommand, DescribeExecutionCommand, SFNClient } from '@aws-sdk/client-sfn';
import { SSMClient } from '@aws-sdk/client-ssm';
import { createEvaluator } from '#functions/evaluate/evaluate.ts';
import { ssmPolicySource } from '#functions/evaluate/policy-source.ts';
import { awsPorts } from '#functions/evaluate/ports.ts';
import type { Telemetry } from '#functions/evaluate/telemetry.ts';
import { createClients } from '#shared/aws/clients.ts';
import { directScaling } from '#shared/aws/direct-scaling.ts';
import type { ExecutionsPort } from '#shared/aws/sfn.ts';
import { parseTrace } from '#shared/backtest/trace.ts';
import { localConfig } from '#shared/cli/invoke.ts';
import { placeholders, substitute } from '#shared/deploy/asl.ts';
import {
  awsTestConfig,
  createDemoEndpoint,
  createStateTable,
  type MotoServer,
  motoBinary,
  putStringParameter,
  putVariantMinute,
  startMoto,
  TEST_ACCOUNT,
  TEST_CREDENTIALS,
  TEST_REGION,
} from '../tests/support/moto.ts';

const ENDPOINT = 'governor-demo';
/** Requests a minute one instance serves at the latency SLO (the policy's instanceCapacity). */
const MU = 60;
/** Utilization at which p95 reaches the SLO (BACKTEST.md): saturation is MU / 0.8 = 75 a minute. */
const SLO_UTILIZATION = 0.8;
const ASL = 'statemachines/scale-target.asl.json';

// No percentile signals: moto computes none, and one p95 query fails its whole GetMetricData call.
const POLICY = `version: 1
targets:
  - id: demo-llm
    kind: sagemaker-variant
    region: ${TEST_REGION}
    endpointName: ${ENDPOINT}
    instanceCapacity: { requestsPerMinuteAtSlo: ${MU} }
    scaling: { minCapacity: 1, maxCapacity: 12 }
    signals:
      - { metric: invocationsPerInstance, target: ${0.7 * MU} }
      - { metric: gpuUtilization, target: 70 }
    damping: { scaleOutBreaches: 2, scaleInBreaches: 5, scaleInStabilizationSeconds: 300 }
`;

const quiet: Telemetry = {
  info: () => {},
  warn: (m) => console.log(`   warn: ${m}`),
  error: (m) => console.log(`   error: ${m}`),
  decision: () => {},
  policyLoadFailure: (problems) => console.log(`   policy problems: ${problems.join('; ')}`),
  invocationSucceeded: () => {},
};

/** Lines about how a change was applied, printed after the decision they belong to. */
const notes: string[] = [];

/**
 * The state machine first; once moto cannot run it (one execution per region, getmoto/moto#10077),
 * the same SageMaker calls directly.
 */
function stateMachineOrDirect(
  sfn: SFNClient,
  viaMachine: ExecutionsPort,
  direct: ExecutionsPort,
): ExecutionsPort {
  let machineWorks = true;
  const fallBack = (why: string, arn: string, input: Parameters<ExecutionsPort['startScaleTarget']>[1]) => {
    notes.push(`applied directly with UpdateEndpointWeightsAndCapacities: ${why}`);
    return direct.startScaleTarget(arn, input);
  };
  return {
    async startScaleTarget(arn, input) {
      if (!machineWorks) return fallBack('moto runs one state machine execution per region', arn, input);
      try {
        const started = await viaMachine.startScaleTarget(arn, input);
        for (let i = 0; i < 50 && started.executionArn; i++) {
          const out = await sfn.send(new DescribeExecutionCommand({ executionArn: started.executionArn }));
          if (out.status === 'SUCCEEDED') {
            notes.push(`scale-target state machine execution ${input.decisionId}: SUCCEEDED`);
            return started;
          }
          if (out.status !== 'RUNNING') throw new Error(`execution ${out.status}: ${out.error ?? ''}`);
          await new Promise((r) => setTimeout(r, 200));
        }
        throw new Error('the execution did not finish within 10 s');
      } catch (error) {
        machineWorks = false;
        const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
        const why = status
          ? `StartExecution answered HTTP ${status}`
          : (error as Error).message.split('\n')[0]!.slice(0, 80);
        return fallBack(
          `the state machine is unavailable on moto (${why}; moto 5.2 runs one execution per region)`,
          arn,
          input,
        );
      }
    },
  };
}

async function seed(moto: MotoServer, config: ReturnType<typeof localConfig>): Promise<boolean> {
  const aws = awsTestConfig(moto.endpoint);
  await createStateTable(new DynamoDBClient(aws), config.STATE_TABLE_NAME);
  const ssm = new SSMClient(aws);
  await putStringParameter(ssm, config.POLICY_PARAMETER_NAME, POLICY);
  await putStringParameter(ssm, config.KILL_SWITCH_PARAMETER_NAME, 'off');
  await createDemoEndpoint(new SageMakerClient(aws), ENDPOINT, 2);
  if (!existsSync(ASL)) return false;
  await moto.configure({ stepfunctions: { execute_state_machine: true } });
  const definition = substitute(readFileSync(ASL, 'utf8'), {
    StateTableName: config.STATE_TABLE_NAME,
    KillSwitchParameterName: config.KILL_SWITCH_PARAMETER_NAME,
    MetricNamespace: 'Governor',
  });
  const left = [...placeholders(definition)];
  if (left.length > 0)
    throw new Error(`${ASL}: no local value for ${left.map((p) => `\${${p}}`).join(', ')}`);
  await new SFNClient(aws).send(
    new CreateStateMachineCommand({
      name: config.SCALE_STATE_MACHINE_ARN.split(':').at(-1)!,
      definition,
      roleArn: `arn:aws:iam::${TEST_ACCOUNT}:role/governor-scale-target`,
    }),
  );
  return true;
}

const hhmm = (t: number) => new Date(t).toISOString().slice(11, 16);

/**
 * An EventBridge Scheduler tick as the deployed schedule sends it: from aws.scheduler, in the
 * emulated account and region, which the evaluator checks (anything else is ignored as foreign).
 */
function schedulerTick(id: string, at: number) {
  return {
    version: '0',
    id,
    'detail-type': 'Scheduled Event',
    source: 'aws.scheduler',
    account: TEST_ACCOUNT,
    time: new Date(at).toISOString(),
    region: TEST_REGION,
    resources: [`arn:aws:scheduler:${TEST_REGION}:${TEST_ACCOUNT}:schedule/default/governor-evaluate-tick`],
    detail: {},
  };
}

/** Replays the trace; returns the time of the last tick (epoch ms). */
async function run(moto: MotoServer, minutes: number, traceFile: string): Promise<number> {
  const config = localConfig({ AWS_REGION: TEST_REGION });
  const requests = parseTrace(readFileSync(traceFile, 'utf8'), traceFile).requests.slice(1); // minute 0 is partial
  const machine = await seed(moto, config);
  const clients = createClients({
    region: TEST_REGION,
    endpoint: moto.endpoint,
    credentials: TEST_CREDENTIALS,
  });
  const ports = awsPorts(clients, config.STATE_TABLE_NAME);
  const direct = directScaling(ports.sageMaker, TEST_REGION);
  ports.executions = machine ? stateMachineOrDirect(clients.home.sfn, ports.executions, direct) : direct;
  if (!machine)
    console.log(`no ${ASL}: SageMaker changes are applied directly (the calls its apply step makes)`);
  const evaluate = createEvaluator({
    config,
    ports,
    telemetry: quiet,
    policy: ssmPolicySource(
      ports.parameters,
      config.POLICY_PARAMETER_NAME,
      config.POLICY_CACHE_SECONDS,
      quiet,
    ),
  });
  const aws = awsTestConfig(moto.endpoint);
  const sm = new SageMakerClient(aws);
  const cw = new CloudWatchClient(aws);
  const instances = async () =>
    (await sm.send(new DescribeEndpointCommand({ EndpointName: ENDPOINT }))).ProductionVariants?.[0]
      ?.CurrentInstanceCount ?? 0;
  const start = Math.floor(Date.now() / 60_000) * 60_000 - minutes * 60_000;
  const n = Math.min(minutes, requests.length);
  console.log(
    `replaying ${n} minutes of ${traceFile} against ${ENDPOINT} (policy: ${0.7 * MU} requests a minute per instance, GPU 70 %)`,
  );
  for (let i = 0; i < n; i++) {
    const r = requests[i]!;
    const ready = await instances();
    const perInstance = r / ready;
    const gpu = 100 * Math.min(1, perInstance / (MU / SLO_UTILIZATION));
    await putVariantMinute(cw, ENDPOINT, start + i * 60_000, {
      invocationsPerInstance: perInstance,
      gpuUtilization: gpu,
    });
    const now = start + (i + 1) * 60_000 + 5_000;
    const report = await evaluate(schedulerTick(`local-tick-${i}`, now), now);
    for (const rec of report.records) {
      console.log(
        `${hhmm(now)}  ${String(r).padStart(4)} req/min on ${ready}: ${perInstance.toFixed(0).padStart(3)}/instance, GPU ${gpu.toFixed(0).padStart(3)} %  ` +
          `[${rec.outcome}] ${rec.decision?.message ?? rec.detail}`,
      );
    }
    for (const note of notes.splice(0)) console.log(`         ${note}`);
    const after = await instances();
    if (after !== ready) console.log(`         endpoint ${ENDPOINT}: ${ready} -> ${after} instances`);
  }
  console.log(`done: ${ENDPOINT} has ${await instances()} instances`);
  return start + n * 60_000 + 5_000;
}

const TICK_FILE = '.tmp/local-tick.json';

/** --keep: a tick at the replay's last minute, and the command that evaluates it on this moto. */
function keepRunning(moto: MotoServer, lastTick: number): void {
  mkdirSync('.tmp', { recursive: true });
  const tick = schedulerTick('local-keep-tick', lastTick);
  writeFileSync(TICK_FILE, `${JSON.stringify(tick, null, 2)}\n`);
  console.log(
    `moto_server keeps running on ${moto.endpoint}, seeded (policy in SSM, ${ENDPOINT}, its metrics); try, from another terminal in this folder:`,
  );
  console.log(
    `  AWS_ENDPOINT_URL=${moto.endpoint} npx governor invoke evaluate --event ${TICK_FILE} --shadow --now event`,
  );
  console.log('Ctrl-C stops moto_server.');
}

function options() {
  try {
    return parseArgs({
      options: {
        minutes: { type: 'string', default: '40' },
        trace: { type: 'string' },
        keep: { type: 'boolean', default: false },
      },
    }).values;
  } catch (error) {
    console.error(
      `local: ${(error as Error).message.split('\n')[0]} (options: --minutes N, --trace FILE, --keep)`,
    );
    process.exit(2);
  }
}

const values = options();
const minutes = Number(values.minutes);
if (!Number.isInteger(minutes) || minutes < 1 || minutes > 1440) {
  console.error(`local: --minutes must be a whole number from 1 to 1440, got "${values.minutes}"`);
  process.exit(2);
}
if (motoBinary() === null) {
  console.error(
    'local: moto_server (the AWS emulator, Python) is not on the PATH: install it with pipx install "moto[server]" (or pip install "moto[server]"; README, "Prerequisites"), or run the handler without it: npx governor invoke evaluate --event events/scheduler-tick.json --policy examples/policy.yaml --metrics events/invoke/chat-llm.json --now event',
  );
  process.exit(2);
}
const moto = await startMoto();
console.log(`moto_server on ${moto.endpoint}`);
const stop = async (code: number) => {
  await moto.stop();
  process.exit(code);
};
process.once('SIGINT', () => void stop(values.keep ? 0 : 130));
process.once('SIGTERM', () => void stop(143));
try {
  const lastTick = await run(moto, minutes, values.trace ?? 'traces/azure_llm_2023_conv_per_minute.csv');
  if (values.keep) keepRunning(moto, lastTick);
  else await stop(0);
} catch (error) {
  const debug = process.env.GOVERNOR_DEBUG && error instanceof Error ? error.stack : undefined;
  console.error(
    `local: ${debug ?? (error instanceof Error ? `${error.name}: ${error.message.split('\n')[0]}` : String(error))}`,
  );
  await stop(1);
}
