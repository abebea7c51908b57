/**
 * The mix function's configuration: its environment, parsed once at cold start. A missing
 * variable fails fast with one line naming it and the fix, before any AWS call.
 */
import * as z from 'zod';
import { envMode, envName as name, parseEnvironment } from '../../shared/invocation/config.ts';

export const MixConfigSchema = z.object({
  POLICY_PARAMETER_NAME: name('the SSM parameter holding the policy YAML'),
  STATE_TABLE_NAME: name(
    'the DynamoDB table of the forecast floors, the PLAN and SPOT items and the records',
  ),
  KILL_SWITCH_PARAMETER_NAME: name('the SSM parameter whose value "on" stops all actions'),
  /**
   * shadow (the default): every target is planned, its PLAN item stored (a dry run the shadow
   * evaluator reads) and recorded; no group is written. active: groups get the plan in force.
   */
  GOVERNOR_MODE: envMode(),
  /**
   * Ticks older than this are refused (StaleEvent): the next one, 5 minutes later, plans again.
   * Default 300 s: Lambda's one retry of a failed run (up to 120 s, then its wait) comes within it.
   */
  MAX_TICK_AGE_SECONDS: z.coerce
    .number({ message: 'must be a whole number of seconds' })
    .int({ message: 'must be a whole number of seconds' })
    .positive({ message: 'must be greater than 0' })
    .default(300),
  /** Days a decision record (pk MIX#<target>, sk DECISION#...) is kept: its TTL. */
  AUDIT_TTL_DAYS: z.coerce.number().int().positive().default(30),
  AWS_REGION: z.string().min(1).default('us-east-1'),
});

export type MixConfig = z.infer<typeof MixConfigSchema>;

/** Parses the environment or throws one line per problem: `VARIABLE is required: ...`. */
export function parseMixConfig(env: Record<string, string | undefined>): MixConfig {
  return parseEnvironment(MixConfigSchema, env);
}
