/** SSM Parameter Store adapter: the policy text, its parts and the kill switch, as plain String parameters. */

import { GetParameterCommand, GetParametersByPathCommand, type SSMClient } from '@aws-sdk/client-ssm';
import { appendAll } from '../arrays/extent.ts';
import type { ParametersPort, StoredParameter } from '../policy-store/parameters.ts';
import { errorName } from './clients.ts';

/** SSM's page size for GetParametersByPath: 10 is its maximum. */
const PAGE = 10;
/** 100 pages are 1,000 parts (several MB of policy): more is a loop, not a policy. */
const MAX_PAGES = 100;

/**
 * A page's parameters, rejecting one without a name or a value instead of reading it as empty:
 * an empty part would be a silently smaller fleet.
 */
export function storedParameters(page: {
  Parameters?: { Name?: string; Value?: string }[];
}): StoredParameter[] {
  return (page.Parameters ?? []).map((p) => {
    if (typeof p.Name !== 'string' || typeof p.Value !== 'string') {
      throw new Error(
        `GetParametersByPath returned a parameter without a name or value (${p.Name ?? 'no name'})`,
      );
    }
    return { name: p.Name, value: p.Value };
  });
}

/** Code-unit order, so every container and the CLI merge parts in the same order. */
export const byName = (a: StoredParameter, b: StoredParameter): number =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : 0;

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
    async under(Path) {
      const found: StoredParameter[] = [];
      let NextToken: string | undefined;
      for (let page = 0; page < MAX_PAGES; page++) {
        const out = await client.send(
          new GetParametersByPathCommand({ Path, Recursive: false, MaxResults: PAGE, NextToken }),
        );
        appendAll(found, storedParameters(out ?? {}));
        NextToken = out?.NextToken;
        if (!NextToken) return found.sort(byName);
      }
      throw new Error(`GetParametersByPath ${Path} still had more after ${MAX_PAGES} pages`);
    },
  };
}
