/**
 * What `npm run local` (./local.ts) sets up on moto: a CloudFormation stack named `governor`
 * (sam deploy's default name) that creates the state table and the policy and kill-switch
 * parameters and names them in its outputs, as template.yaml's do, so the live commands
 * (`governor status`, `decisions`, `shadow-report`, `pause`, `resume`, `release`) find them as they
 * would in AWS; the demo endpoint; the scale-target state machine from statemachines/ with local
 * values; and the executions port that falls back to direct SageMaker calls when moto cannot run
 * the machine.
 */
import { existsSync, readFileSync } from 'node:fs';
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { SageMakerClient } from '@aws-sdk/client-sagemaker';
import { CreateStateMachineCommand, DescribeExecutionCommand, SFNClient } from '@aws-sdk/client-sfn';
import type { ExecutionsPort } from '#shared/aws/sfn.ts';
import type { localConfig } from '#shared/cli/invoke.ts';
import { placeholders, substitute } from '#shared/deploy/asl.ts';
import { deployGovernorStack } from '../tests/live/moto-stack.ts';
import {
  awsTestConfig,
  createDemoEndpoint,
  type MotoServer,
  TEST_ACCOUNT,
  TEST_REGION,
} from '../tests/support/moto.ts';

export const ENDPOINT = 'governor-demo';
/** Requests a minute one instance serves at the latency SLO (the policy's instanceCapacity). */
export const MU = 60;
/** Utilization at which p95 reaches the SLO (BACKTEST.md): saturation is MU / 0.8 = 75 a minute. */
export const SLO_UTILIZATION = 0.8;
export const ASL = 'statemachines/scale-target.asl.json';
/** The stack's name: sam deploy's default, which the live commands look for without --stack. */
export const STACK = 'governor';

// No percentile signals: moto computes none, and one p95 query fails its whole GetMetricData call.
export const POLICY = `version: 1
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

/** Lines about how a change was applied, printed after the decision they belong to. */
export const notes: string[] = [];

/**
 * The state machine first; once moto cannot run it (one execution per region, getmoto/moto#10077),
 * the same SageMaker calls directly.
 */
export function stateMachineOrDirect(
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

export async function seed(moto: MotoServer, config: ReturnType<typeof localConfig>): Promise<boolean> {
  const aws = awsTestConfig(moto.endpoint);
  const names = {
    table: config.STATE_TABLE_NAME,
    policy: config.POLICY_PARAMETER_NAME,
    killSwitch: config.KILL_SWITCH_PARAMETER_NAME,
    stateMachineArn: config.SCALE_STATE_MACHINE_ARN,
  };
  await deployGovernorStack(new CloudFormationClient(aws), STACK, names, POLICY);
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
