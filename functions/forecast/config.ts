/**
 * The forecast function's configuration: its environment, parsed once at cold start. A missing
 * variable fails fast with one line naming it and the fix, before any AWS call.
 */
import * as z from 'zod';
import { envMode, envName as name, parseEnvironment } from '../../shared/invocation/config.ts';

export const ForecastConfigSchema = z.object({
  POLICY_PARAMETER_NAME: name('the SSM parameter holding the policy YAML'),
  STATE_TABLE_NAME: name('the DynamoDB table whose state items get the forecast floor'),
  KILL_SWITCH_PARAMETER_NAME: name('the SSM parameter whose value "on" stops all actions'),
  /**
   * shadow (the default) and the kill switch write the floor, which acts on nothing by itself,
   * but no scheduled action and no warm pool: those change capacity without the evaluator.
   */
  GOVERNOR_MODE: envMode(),
  /**
   * Ticks older than this are refused (StaleEvent): a late or replayed tick is not run, the next
   * hourly one is. Default 600 s: Lambda's one retry of a failed run (up to 300 s, then a
   * one-minute wait) still comes within it. Ticks more than 60 s ahead are refused too.
   */
  MAX_TICK_AGE_SECONDS: z.coerce
    .number({ message: 'must be a whole number of seconds' })
    .int({ message: 'must be a whole number of seconds' })
    .positive({ message: 'must be greater than 0' })
    .default(600),
  /** The function's region (Lambda sets it): scheduled actions are written only for SageMaker targets here. */
  AWS_REGION: z.string().min(1).default('us-east-1'),
});

export type ForecastConfig = z.infer<typeof ForecastConfigSchema>;

/** Parses the environment or throws one line per problem: `VARIABLE is required: ...`. */
export function parseForecastConfig(env: Record<string, string | undefined>): ForecastConfig {
  return parseEnvironment(ForecastConfigSchema, env);
}
