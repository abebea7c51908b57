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
 * Each decision's CurrentCapacity goes into moto's CloudWatch (namespace Governor, TargetId), as
 * the evaluate function's EMF line puts it there in AWS: `governor shadow-report` reads it.
 *
 * Options: --minutes N (default 40), --trace FILE (default the Azure LLM conversation trace),
 * --shadow: replay in shadow mode (decided and recorded, the endpoint left as it is: what
 * `governor shadow-report` judges), --keep: leave the seeded moto_server running after the
 * replay (until Ctrl-C), with a tick event at the replay's last minute in .tmp/local-tick.json,
 * and print what to export and the live commands (`governor status`, `decisions`,
 * `shadow-report`, `pause`, `resume`, `release`, `invoke`) that work against it.
 *
 * Needs moto_server (Python: pipx install "moto[server]"); without it, one line says how to
 * get it (README, "Prerequisites").
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { CloudWatchClient, PutMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { DescribeEndpointCommand, SageMakerClient } from '@aws-sdk/client-sagemaker';
import { createEvaluator } from '#functions/evaluate/evaluate.ts';
import { ssmPolicySource } from '#functions/evaluate/policy-source.ts';
import { awsPorts } from '#functions/evaluate/ports.ts';
import type { Telemetry } from '#functions/evaluate/telemetry.ts';
import { createClients } from '#shared/aws/clients.ts';
import { directScaling } from '#shared/aws/direct-scaling.ts';
import { parseTrace } from '#shared/backtest/trace.ts';
import { localConfig } from '#shared/cli/invoke.ts';
import {
  awsTestConfig,
  type MotoServer,
  motoBinary,
  putVariantMinute,
  startMoto,
  TEST_ACCOUNT,
  TEST_CREDENTIALS,
  TEST_REGION,
} from '../tests/support/moto.ts';
import { numberArg, type ScriptUsage, scriptArgs } from './args.ts';
import {
  ASL,
  ENDPOINT,
  MU,
  notes,
  SLO_UTILIZATION,
  STACK,
  seed,
  stateMachineOrDirect,
} from './local-setup.ts';

const quiet: Telemetry = {
  info: () => {},
  warn: (m) => console.log(`   warn: ${m}`),
  error: (m) => console.log(`   error: ${m}`),
  decision: () => {},
  policyLoadFailure: (problems) => console.log(`   policy problems: ${problems.join('; ')}`),
  invocationSucceeded: () => {},
};

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
async function run(moto: MotoServer, minutes: number, traceFile: string, shadow: boolean): Promise<number> {
  const config = localConfig({ AWS_REGION: TEST_REGION, ...(shadow ? { GOVERNOR_MODE: 'shadow' } : {}) });
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
    `replaying ${n} minutes of ${traceFile} against ${ENDPOINT} in ${config.GOVERNOR_MODE} mode (policy: ${0.7 * MU} requests a minute per instance, GPU 70 %)`,
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
      if (rec.decision) await putCurrentCapacity(cw, rec.targetId, now, rec.decision.currentCapacity);
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

/** What the evaluate function's EMF line puts in CloudWatch in AWS: the decision's CurrentCapacity. */
async function putCurrentCapacity(cw: CloudWatchClient, targetId: string, at: number, capacity: number) {
  await cw.send(
    new PutMetricDataCommand({
      Namespace: 'Governor',
      MetricData: [
        {
          MetricName: 'CurrentCapacity',
          Dimensions: [{ Name: 'TargetId', Value: targetId }],
          Timestamp: new Date(at),
          Value: capacity,
          Unit: 'Count',
        },
      ],
    }),
  );
}

const TICK_FILE = '.tmp/local-tick.json';

/** --keep: a tick at the replay's last minute, what to export, and the commands that work on this moto. */
function keepRunning(moto: MotoServer, lastTick: number, shadow: boolean): void {
  mkdirSync('.tmp', { recursive: true });
  const tick = schedulerTick('local-keep-tick', lastTick);
  writeFileSync(TICK_FILE, `${JSON.stringify(tick, null, 2)}\n`);
  const env = `AWS_ENDPOINT_URL=${moto.endpoint} AWS_REGION=${TEST_REGION} AWS_ACCESS_KEY_ID=${TEST_CREDENTIALS.accessKeyId} AWS_SECRET_ACCESS_KEY=${TEST_CREDENTIALS.secretAccessKey}`;
  console.log(
    `moto_server keeps running on ${moto.endpoint}, seeded: stack ${STACK} (its table, policy and kill switch), ${ENDPOINT}, its metrics and the decisions above.`,
  );
  console.log('From another terminal in this folder, aim the CLI at it (fake credentials, never AWS):');
  console.log(`  export ${env}`);
  console.log('then try:');
  for (const [command, what] of [
    ['npx governor status', 'each target now'],
    ['npx governor decisions --target demo-llm --since 2h', "the replay's decisions"],
    [
      'npx governor shadow-report --target demo-llm --days 1 --usd-per-hour 0.736 --html reports/shadow.html',
      shadow
        ? 'the shadow decisions against the endpoint, at an example price'
        : 'judges shadow decisions: replay with --shadow to have some',
    ],
    ['npx governor pause', 'kill switch on'],
    ['npx governor release', 'kill switch release: the next tick resumes what Governor suspended'],
    ['npx governor resume', 'kill switch off'],
  ] as const)
    console.log(`  ${command}  # ${what}`);
  console.log('and one more tick, evaluated against this moto (drop --shadow to let it act):');
  console.log(
    `  AWS_ENDPOINT_URL=${moto.endpoint} npx governor invoke evaluate --event ${TICK_FILE} --shadow --now event`,
  );
  console.log('Ctrl-C stops moto_server.');
}

const USAGE: ScriptUsage = {
  script: 'local',
  synopsis: 'npm run local -- [--minutes N] [--trace FILE] [--shadow] [--keep]',
  details: `The control plane end to end on this machine, through the real AWS SDK: starts moto_server on a
free loopback port, creates what a deployed stack has and a demo SageMaker endpoint, replays a
stretch of a trace minute by minute into moto's CloudWatch and runs the evaluate handler each
minute, printing every decision. Needs moto_server (pipx install "moto[server]").

  --minutes N    minutes to replay, 1 to 1440 (default 40)
  --trace FILE   the trace (default: traces/azure_llm_2023_conv_per_minute.csv)
  --shadow       decide and record in shadow mode, the endpoint left as it is
                 (what governor shadow-report judges)
  --keep         leave the seeded moto_server running after the replay (until Ctrl-C) and print
                 what to export and the governor commands that work against it
  --help         this text`,
};

function options() {
  return scriptArgs(USAGE, {
    options: {
      minutes: { type: 'string', default: '40' },
      trace: { type: 'string' },
      keep: { type: 'boolean', default: false },
      shadow: { type: 'boolean', default: false },
    },
  }).values;
}

const values = options();
const minutes = numberArg(USAGE, 'minutes', values.minutes, { min: 1, max: 1440, integer: true })!;
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
  const trace = values.trace ?? 'traces/azure_llm_2023_conv_per_minute.csv';
  const lastTick = await run(moto, minutes, trace, values.shadow);
  if (values.keep) keepRunning(moto, lastTick, values.shadow);
  else await stop(0);
} catch (error) {
  const debug = process.env.GOVERNOR_DEBUG && error instanceof Error ? error.stack : undefined;
  console.error(
    `local: ${debug ?? (error instanceof Error ? `${error.name}: ${error.message.split('\n')[0]}` : String(error))}`,
  );
  await stop(1);
}
