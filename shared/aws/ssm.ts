/** SSM Parameter Store adapter: the policy text and the kill switch, as plain String parameters. */
import { GetParameterCommand, type SSMClient } from '@aws-sdk/client-ssm';
import { errorName } from './clients.ts';

export interface ParametersPort {
  /** The parameter's value, or null when it does not exist. */
  get(name: string): Promise<string | null>;
}

export function ssmParameters(client: SSMClient): ParametersPort {
  return {
    async get(Name) {
      try {
        const out = await client.send(new GetParameterCommand({ Name }));
        return out.Parameter?.Value ?? null;
      } catch (error) {
        if (errorName(error) === 'ParameterNotFound') return null;
        throw error;
      }
    },
  };
}
