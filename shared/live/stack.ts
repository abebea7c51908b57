/**
 * The deployed stack as the live commands need it, from its CloudFormation outputs
 * (template.yaml, Outputs): the state table, the kill-switch and policy parameters, the
 * scale-target state machine. Pure: a missing output is a one-line problem naming the fix.
 */

export interface LiveStack {
  name: string;
  tableName: string;
  killSwitchParameter: string;
  policyParameter: string;
  /** The scale-target state machine (in-flight executions); absent from a stack without it. */
  stateMachineArn: string | null;
  /** The failover state machine (standby stacks only). */
  failoverStateMachineArn: string | null;
}

/** The outputs each command cannot do without. */
const REQUIRED = {
  StateTableName: 'tableName',
  KillSwitchParameterName: 'killSwitchParameter',
  PolicyParameterName: 'policyParameter',
} as const;

export type StackRead = { ok: true; stack: LiveStack } | { ok: false; problem: string };

/** Outputs (OutputKey -> OutputValue) to LiveStack, or the output that is missing and the fix. */
export function liveStackFrom(name: string, outputs: Readonly<Record<string, string>>): StackRead {
  const missing = Object.keys(REQUIRED).filter((k) => !outputs[k]);
  if (missing.length > 0) {
    return {
      ok: false,
      problem: `stack ${name} has no output ${missing.join(', ')}: is it a Governor stack? Name yours with --stack NAME (sam deploy's stack_name in samconfig.toml)`,
    };
  }
  return {
    ok: true,
    stack: {
      name,
      tableName: outputs.StateTableName!,
      killSwitchParameter: outputs.KillSwitchParameterName!,
      policyParameter: outputs.PolicyParameterName!,
      stateMachineArn: outputs.ScaleTargetStateMachineArn ?? null,
      failoverStateMachineArn: outputs.FailoverStateMachineArn ?? null,
    },
  };
}
