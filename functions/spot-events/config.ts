/**
 * The spot-events function's environment, parsed once at cold start; a missing or invalid
 * variable fails fast naming it (the list is in handler.ts's top comment).
 */
import * as z from 'zod';
import { ConfigError } from '../../shared/control/config.ts';

const name = (what: string) => z.string({ message: `is required: ${what}` }).min(1, `is empty: ${what}`);

export const SpotEventsConfigSchema = z.object({
  POLICY_PARAMETER_NAME: name('the SSM parameter holding the policy YAML'),
  STATE_TABLE_NAME: name('the DynamoDB table of the MIX#<target> PLAN and SPOT items'),
  KILL_SWITCH_PARAMETER_NAME: name('the SSM parameter whose value "on" stops all actions'),
  /** shadow (the default): decisions recorded and SPOT written, nothing detached or shifted. */
  GOVERNOR_MODE: z.enum(['shadow', 'active'], { message: 'must be "shadow" or "active"' }).default('shadow'),
  /** The policy is read again once this many seconds have passed (a storm reads it once). */
  POLICY_CACHE_SECONDS: z.coerce.number().int().min(0).default(60),
  AWS_REGION: z.string().min(1).default('us-east-1'),
});
export type SpotEventsConfig = z.infer<typeof SpotEventsConfigSchema>;

export function parseSpotEventsConfig(env: Record<string, string | undefined>): SpotEventsConfig {
  const result = SpotEventsConfigSchema.safeParse(env);
  if (result.success) return result.data;
  const lines = result.error.issues.map((i) => `${String(i.path[0] ?? 'environment')} ${i.message}`);
  throw new ConfigError(`invalid environment: ${lines.join('; ')}`);
}
