/**
 * What the live commands' moto tests share beside the stack (./moto-stack.ts): one tick of the
 * evaluate function against the stack's table and parameters, and the environment that aims
 * the CLI at the moto server with fake credentials (undo with vi.unstubAllEnvs()).
 */
import { vi } from 'vitest';
import { createEvaluator } from '#functions/evaluate/evaluate.ts';
import { ssmPolicySource } from '#functions/evaluate/policy-source.ts';
import { awsPorts } from '#functions/evaluate/ports.ts';
import { createClients } from '#shared/aws/clients.ts';
import { localConfig } from '#shared/cli/invoke.ts';
import { captureTelemetry } from '../functions/support.ts';
import { TEST_CREDENTIALS, TEST_REGION } from '../support/moto.ts';
import { schedulerTick } from '../support/moto-evaluate-handler.ts';
import type { StackNames } from './moto-stack.ts';

/** A scheduler tick as the deployed schedule sends it, at `at`. */
export const liveTick = schedulerTick;

/** Evaluates one tick at `now` (active mode unless `env` says GOVERNOR_MODE: shadow). */
export function evaluatorOnStack(endpoint: string, names: StackNames, env: Record<string, string> = {}) {
  return (now: number) => {
    const config = localConfig({
      AWS_REGION: TEST_REGION,
      STATE_TABLE_NAME: names.table,
      POLICY_PARAMETER_NAME: names.policy,
      KILL_SWITCH_PARAMETER_NAME: names.killSwitch,
      ...(names.stateMachineArn ? { SCALE_STATE_MACHINE_ARN: names.stateMachineArn } : {}),
      ...env,
    });
    const clients = createClients({
      region: TEST_REGION,
      endpoint,
      credentials: TEST_CREDENTIALS,
      maxAttempts: 2,
    });
    const ports = awsPorts(clients, names.table);
    const telemetry = captureTelemetry();
    const evaluate = createEvaluator({
      config,
      ports,
      telemetry,
      policy: ssmPolicySource(ports.parameters, names.policy, 60, telemetry),
    });
    return evaluate(liveTick(`live-${now}`, now), now);
  };
}

/** The CLI's environment for the moto server: its endpoint and fake credentials. */
export function stubLiveEnv(endpoint: string): void {
  vi.stubEnv('AWS_ENDPOINT_URL', endpoint);
  vi.stubEnv('AWS_ACCESS_KEY_ID', TEST_CREDENTIALS.accessKeyId);
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', TEST_CREDENTIALS.secretAccessKey);
}
