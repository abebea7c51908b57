/**
 * Who dominates whom on one run (BACKTEST.md, "Judging a policy"): A dominates B when A costs
 * no more and breaks the SLO in no more minutes, and at least one of the two is strictly lower.
 * Equal on both is a tie, and a tie is not a win; anything else (cheaper but more violation
 * minutes, or the other way round) is a loss for the policy under judgement.
 */

export type Outcome = 'win' | 'tie' | 'loss';

export interface Figures {
  /** Instance-minutes (cost up to the price, which both pay alike). */
  instanceMinutes: number;
  violationMinutes: number;
}

/**
 * Costs closer than a millionth are equal: instance-minutes carry 0.05 x idle warm instances,
 * and float sums of those differ in the last digits between two equal runs.
 */
const COST_EPSILON = 1e-6;

function compare(a: number, b: number, relative: number): -1 | 0 | 1 {
  const slack = relative * Math.max(1, Math.abs(a), Math.abs(b));
  if (a < b - slack) return -1;
  if (a > b + slack) return 1;
  return 0;
}

/** The outcome for `policy` against `baseline`. */
export function judge(policy: Figures, baseline: Figures): Outcome {
  const cost = compare(policy.instanceMinutes, baseline.instanceMinutes, COST_EPSILON);
  const violations = compare(policy.violationMinutes, baseline.violationMinutes, 0);
  if (cost <= 0 && violations <= 0) return cost < 0 || violations < 0 ? 'win' : 'tie';
  return 'loss';
}

/** Why a loss is a loss, in words: "costs 4.2 % more", "12 more violation minutes", or both. */
export function lossReason(policy: Figures, baseline: Figures): string {
  const parts: string[] = [];
  if (compare(policy.instanceMinutes, baseline.instanceMinutes, COST_EPSILON) > 0) {
    const more = (100 * (policy.instanceMinutes - baseline.instanceMinutes)) / baseline.instanceMinutes;
    parts.push(`costs ${more.toFixed(1)} % more`);
  }
  const extra = policy.violationMinutes - baseline.violationMinutes;
  if (extra > 0) parts.push(`${extra} more violation minute${extra === 1 ? '' : 's'}`);
  return parts.join(' and ');
}
