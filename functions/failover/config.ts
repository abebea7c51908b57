/**
 * The failover health evaluation's environment, parsed once at cold start; a missing variable
 * fails fast naming it.
 */
import * as z from 'zod';
import { envMode, envName as name, parseEnvironment } from '../../shared/invocation/config.ts';

/**
 * One of the stack's routing grants, comma-separated (a CommaDelimitedList parameter joined); ''
 * is an empty list. Absent (a stack or test that does not pass it): undefined, not checked.
 */
const grantList = () =>
  z
    .string()
    .optional()
    .transform((v) =>
      v === undefined
        ? undefined
        : v
            .split(',')
            .map((x) => x.trim())
            .filter((x) => x !== ''),
    );

export const FailoverConfigSchema = z.object({
  POLICY_PARAMETER_NAME: name('the SSM parameter holding the policy YAML'),
  STATE_TABLE_NAME: name('the DynamoDB table for the FAILOVER# items and records'),
  /**
   * The other member regions' state table (the primary stack's StateTableName output), where
   * their evaluate functions write the target state items read as heartbeats. This region's own
   * heartbeat is read from STATE_TABLE_NAME.
   */
  PEER_STATE_TABLE_NAME: name("the primary stack's state table name (its StateTableName output)"),
  KILL_SWITCH_PARAMETER_NAME: name('the SSM parameter whose value "on" stops all actions'),
  FAILOVER_STATE_MACHINE_ARN: name('the failover state machine'),
  /** shadow (the default): decisions are recorded, no execution starts. */
  GOVERNOR_MODE: envMode(),
  /** standby: this stack evaluates and acts; primary: it only beats (the evaluate function) and records nothing here. */
  FAILOVER_REGION_ROLE: z
    .enum(['standby', 'primary'], { message: 'must be "standby" or "primary"' })
    .default('standby'),
  METRIC_NAMESPACE: z.string().min(1).default('Governor'),
  /**
   * The act function's routing grants, as the stack's parameters give them (FailoverHostedZoneId,
   * FailoverRecordNames, FailoverRecordTypes, FailoverRoutingControlArns, FailoverEndpointGroupArns):
   * every run holds the policy's failover groups against them (./grants.ts).
   */
  FAILOVER_HOSTED_ZONE_ID: z.string().optional(),
  FAILOVER_RECORD_NAMES: grantList(),
  FAILOVER_RECORD_TYPES: grantList(),
  FAILOVER_ROUTING_CONTROL_ARNS: grantList(),
  FAILOVER_ENDPOINT_GROUP_ARNS: grantList(),
  /** Ticks older than this are refused: the next one-minute tick runs instead. */
  MAX_TICK_AGE_SECONDS: z.coerce.number().int().positive().default(120),
  AUDIT_TTL_DAYS: z.coerce.number().int().positive().default(30),
  AWS_REGION: z.string().min(1).default('us-east-1'),
});
export type FailoverConfig = z.infer<typeof FailoverConfigSchema>;

export function parseFailoverConfig(env: Record<string, string | undefined>): FailoverConfig {
  return parseEnvironment(FailoverConfigSchema, env);
}
