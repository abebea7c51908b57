/**
 * The policy, read from its SSM parameter and the parts under `<name>/parts/`
 * (shared/policy-store/read.ts) at cold start and again once POLICY_CACHE_SECONDS have
 * passed. An invalid update (of the main parameter or of any part) keeps the last good policy:
 * every problem is logged as its own line naming the parameter, and PolicyLoadFailures is
 * emitted (the template alarms on it). With no good policy at all (an invalid policy at cold
 * start) the invocation fails: nothing is decided on a guess, and never on part of the fleet.
 */

import { formatProblem, parsePolicyText } from '../../shared/policy/load.ts';
import type { PolicyFile } from '../../shared/policy/schema.ts';
import type { ParametersPort } from '../../shared/policy-store/parameters.ts';
import { PolicyReadError, readPolicy } from '../../shared/policy-store/read.ts';
import { sourceProblems } from '../../shared/signals/sources.ts';
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
  /** `lines` each name their parameter already. */
  const fail = (lines: string[]): PolicyFile => {
    telemetry.policyLoadFailure(lines);
    if (good) {
      telemetry.warn('keeping the last good policy', { parameter: parameterName });
      return good;
    }
    throw new PolicyUnavailableError(`no valid policy: ${lines.join('; ')}`);
  };
  return {
    async current(now) {
      if (good && now - checkedAt < cacheSeconds * 1000) return good;
      checkedAt = now;
      let merged: Awaited<ReturnType<typeof readPolicy>>;
      try {
        merged = await readPolicy(parameters, parameterName);
      } catch (error) {
        if (!(error instanceof PolicyReadError)) throw error;
        return fail([error.message]);
      }
      if (!merged.ok) return fail(merged.problems);
      good = merged.policy;
      return good;
    },
  };
}

/** A policy given directly (`governor invoke --policy FILE`, tests). */
export const fixedPolicySource = (policy: PolicyFile): PolicySource => ({ current: async () => policy });
