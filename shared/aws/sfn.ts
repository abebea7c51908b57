/**
 * Step Functions adapter: starts the scale-target state machine with the execution name set to
 * the decision id. A retried start with the same name and input is harmless: Step Functions
 * returns the running execution (standard workflows are idempotent on name and input), and
 * ExecutionAlreadyExists (same name, other input) is reported as a duplicate, never run twice.
 */
import { ExecutionAlreadyExists, type SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import type { ScaleTargetInput } from '../apply/records.ts';

export interface ExecutionsPort {
  startScaleTarget(
    stateMachineArn: string,
    input: ScaleTargetInput,
  ): Promise<{ executionArn: string | null; duplicate: boolean }>;
}

export function stepFunctionsAdapter(client: SFNClient): ExecutionsPort {
  return {
    async startScaleTarget(stateMachineArn, input) {
      try {
        const out = await client.send(
          new StartExecutionCommand({
            stateMachineArn,
            name: input.decisionId,
            input: JSON.stringify(input),
          }),
        );
        return { executionArn: out.executionArn ?? null, duplicate: false };
      } catch (error) {
        if (error instanceof ExecutionAlreadyExists) return { executionArn: null, duplicate: true };
        throw error;
      }
    },
  };
}
