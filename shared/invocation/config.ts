/**
 * The evaluate function's configuration: its environment, parsed once at cold start. A missing
 * or malformed variable fails fast with one line naming it and the fix, before any AWS call.
 */
import * as z from 'zod';

const seconds = (fallback: number) =>
  z.coerce
    .number({ message: 'must be a whole number of seconds' })
    .int({ message: 'must be a whole number of seconds' })
    .positive({ message: 'must be greater than 0' })
    .default(fallback);

/** A required, non-empty variable; `what` says what it names, in the error. */
export const envName = (what: string) =>
  z.string({ message: `is required: ${what}` }).min(1, `is empty: ${what}`);
const name = envName;

/** GOVERNOR_MODE, shadow by default, as every function reads it. */
export const envMode = () =>
  z.enum(['shadow', 'active'], { message: 'must be "shadow" or "active"' }).default('shadow');

export const ConfigSchema = z.object({
  POLICY_PARAMETER_NAME: name('the SSM parameter holding the policy YAML'),
  STATE_TABLE_NAME: name('the DynamoDB table for target state and decision records'),
  SCALE_STATE_MACHINE_ARN: name('the ARN of the scale-target state machine'),
  KILL_SWITCH_PARAMETER_NAME: name('the SSM parameter whose value "on" stops all actions'),
  GOVERNOR_MODE: envMode(),
  /** Older events are hints about a past that the minute tick has already seen. Default 300 s. */
  MAX_EVENT_AGE_SECONDS: seconds(300),
  /** Decision records expire after this many days (DynamoDB TTL). Default 30. */
  AUDIT_TTL_DAYS: seconds(30),
  /** The policy is re-read from SSM after this many seconds. Default 60: one tick. */
  POLICY_CACHE_SECONDS: seconds(60),
  /** The region the function runs in (Lambda sets it); SageMaker targets elsewhere are refused. */
  AWS_REGION: z.string().min(1).default('us-east-1'),
});

export type Config = z.infer<typeof ConfigSchema>;
export type Mode = Config['GOVERNOR_MODE'];

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** A function's environment through its schema, or one line per problem: `VARIABLE is required: ...`. */
export function parseEnvironment<S extends z.ZodType>(
  schema: S,
  env: Record<string, string | undefined>,
): z.infer<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const lines = result.error.issues.map((i) => `${String(i.path[0] ?? 'environment')} ${i.message}`);
  throw new ConfigError(`invalid environment: ${lines.join('; ')}`);
}

/** Parses the environment or throws one line per problem: `VARIABLE is required: ...`. */
export const parseConfig = (env: Record<string, string | undefined>): Config =>
  parseEnvironment(ConfigSchema, env);

/**
 * Names `npm run local` and `governor invoke` use when the environment does not set them: one
 * place, so the local table, parameters and state machine match what the tools look for.
 */
export const LOCAL_DEFAULTS = {
  POLICY_PARAMETER_NAME: '/governor/policy',
  STATE_TABLE_NAME: 'governor-state',
  SCALE_STATE_MACHINE_ARN: 'arn:aws:states:us-east-1:123456789012:stateMachine:governor-scale-target',
  KILL_SWITCH_PARAMETER_NAME: '/governor/kill-switch',
} as const;
