/**
 * Reads the policy as the functions see it: the policy parameter and every parameter directly
 * under `<name>/parts/`, merged and validated as one (./parts.ts). Two calls, side by
 * side: GetParameter, and GetParametersByPath (10 parts a page; with no parts, one call that
 * returns none). Callers cache the result for POLICY_CACHE_SECONDS.
 */
import type { ParametersPort } from './parameters.ts';
import { type MergedPolicy, mergePolicyParts, partsPath } from './parts.ts';

/** Failed I/O reading the policy, naming the parameter or path that could not be read. */
export class PolicyReadError extends Error {
  override name = 'PolicyReadError';
}

const reason = (error: unknown) =>
  error instanceof Error ? `${error.name}: ${error.message}` : String(error);

const labelled = <T>(where: string, read: Promise<T>): Promise<T> =>
  read.catch((error: unknown) => {
    throw new PolicyReadError(`${where}: cannot be read: ${reason(error)}`);
  });

/** The merged policy of parameter `name` and its parts, or one problem line per problem. */
export async function readPolicy(parameters: ParametersPort, name: string): Promise<MergedPolicy> {
  const path = partsPath(name);
  const [text, parts] = await Promise.all([
    labelled(name, parameters.get(name)),
    labelled(`${path}/`, parameters.under(path)),
  ]);
  if (text === null)
    return { ok: false, problems: [`${name}: does not exist: create it with the policy YAML`] };
  return mergePolicyParts(
    { name, text },
    parts.map((p) => ({ name: p.name, text: p.value })),
  );
}
