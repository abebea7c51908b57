/**
 * The policy, read from an SSM parameter at cold start and again once POLICY_CACHE_SECONDS have
 * passed. An invalid update keeps the last good policy: every problem is logged as its own line
 * and PolicyLoadFailures is emitted (the template alarms on it). With no good policy at all
 * (an invalid policy at cold start) the invocation fails: nothing is decided on a guess.
 */

import type { ParametersPort } from '../../shared/aws/ssm.ts';
import { sourceProblems } from '../../shared/control/sources.ts';
import { formatProblem, parsePolicyText } from '../../shared/policy/load.ts';
import type { PolicyFile } from '../../shared/policy/schema.ts';
import type { Telemetry } from './telemetry.ts';

export interface PolicySource {
  current(now: number): Promise<PolicyFile>;
}

export class PolicyUnavailableError extends Error {
  override name = 'PolicyUnavailableError';
}

/** Policy text to a policy or the problem lines: the schema, cross-field and CloudWatch-source rules. */
export function checkPolicyText(
  text: string,
): { ok: true; policy: PolicyFile } | { ok: false; problems: string[] } {
  const parsed = parsePolicyText(text);
  if (!parsed.ok) return { ok: false, problems: parsed.problems.map(formatProblem) };
  const problems = sourceProblems(parsed.policy.targets).map(formatProblem);
  return problems.length === 0 ? { ok: true, policy: parsed.policy } : { ok: false, problems };
}

export function ssmPolicySource(
  parameters: ParametersPort,
  parameterName: string,
  cacheSeconds: number,
  telemetry: Telemetry,
): PolicySource {
  let good: PolicyFile | undefined;
  let checkedAt = Number.NEGATIVE_INFINITY;
  const fail = (problems: string[]): PolicyFile => {
    telemetry.policyLoadFailure(problems.map((p) => `${parameterName}: ${p}`));
    if (good) {
      telemetry.warn('keeping the last good policy', { parameter: parameterName });
      return good;
    }
    throw new PolicyUnavailableError(`no valid policy in ${parameterName}: ${problems.join('; ')}`);
  };
  return {
    async current(now) {
      if (good && now - checkedAt < cacheSeconds * 1000) return good;
      checkedAt = now;
      let text: string | null;
      try {
        text = await parameters.get(parameterName);
      } catch (error) {
        return fail([
          `cannot be read: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`,
        ]);
      }
      if (text === null) return fail(['does not exist: create it with the policy YAML']);
      const checked = checkPolicyText(text);
      if (!checked.ok) return fail(checked.problems);
      good = checked.policy;
      return good;
    },
  };
}

/** A policy given directly (`governor invoke --policy FILE`, tests). */
export const fixedPolicySource = (policy: PolicyFile): PolicySource => ({ current: async () => policy });
