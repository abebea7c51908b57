/**
 * The spot-events function's environment, parsed once at cold start; a missing or invalid
 * variable fails fast naming it (the list is in handler.ts's top comment).
 */
import * as z from 'zod';
import { envMode, envName as name, parseEnvironment } from '../../shared/invocation/config.ts';

export const SpotEventsConfigSchema = z.object({
  POLICY_PARAMETER_NAME: name('the SSM parameter holding the policy YAML'),
  STATE_TABLE_NAME: name('the DynamoDB table of the MIX#<target> PLAN items (mix state and SPOT state)'),
  KILL_SWITCH_PARAMETER_NAME: name('the SSM parameter whose value "on" stops all actions'),
  /** shadow (the default): decisions recorded and SPOT written, nothing detached or shifted. */
  GOVERNOR_MODE: envMode(),
  /** The policy is read again once this many seconds have passed (a storm reads it once). */
  POLICY_CACHE_SECONDS: z.coerce.number().int().min(0).default(60),
  AWS_REGION: z.string().min(1).default('us-east-1'),
});
export type SpotEventsConfig = z.infer<typeof SpotEventsConfigSchema>;

export function parseSpotEventsConfig(env: Record<string, string | undefined>): SpotEventsConfig {
  return parseEnvironment(SpotEventsConfigSchema, env);
}
