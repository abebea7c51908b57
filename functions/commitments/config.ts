/**
 * The commitments function's configuration: its environment, parsed once at cold start. A
 * missing variable fails fast with one line naming it, before any AWS call.
 */
import * as z from 'zod';
import { envName as name, parseEnvironment } from '../../shared/invocation/config.ts';

export const CommitmentsConfigSchema = z.object({
  POLICY_PARAMETER_NAME: name('the SSM parameter holding the policy YAML'),
  STATE_TABLE_NAME: name('the DynamoDB table the commitments read is written to (COMMIT#<region>)'),
  AWS_REGION: z.string().min(1).default('us-east-1'),
});

export type CommitmentsConfig = z.infer<typeof CommitmentsConfigSchema>;

export function parseCommitmentsConfig(env: Record<string, string | undefined>): CommitmentsConfig {
  return parseEnvironment(CommitmentsConfigSchema, env);
}
