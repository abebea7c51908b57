/**
 * The commitment planner: how many instances to commit (Reserved Instances, or a Savings Plan
 * sized in instances) for a term, from the fleet a history says will run. Pure.
 *
 * The billing model is AWS's: a commitment applies hour by hour to that hour's usage, paid whether
 * used or not (a Savings Plan's hourly commitment is spent on the hour's eligible usage; what is
 * left over is lost, what is beyond it is billed on demand). So the usage that matters is each
 * clock hour's instance-hours (a fleet of 10 for half an hour and 0 for the other half uses 5),
 * and N committed instances cost
 *
 *   cost(N) = N x hours x committed rate + sum over hours of max(0, usage(h) - N) x on-demand rate.
 *
 * cost(N) is convex in N: one more instance costs `hours x committed rate` and saves the on-demand
 * price of the usage it covers, which shrinks as N grows. So the best N is the last instance whose
 * covered usage is worth more than it costs: the one used more than the break-even utilization
 * (committed rate / on-demand rate) of the hours. Worked example: on-demand 1.52, committed 0.76
 * (break-even 50 %); usage 4 instance-hours every hour and 10 in one hour of every four. The 4th
 * instance is used every hour (commit it); the 5th to 10th one hour in four, 25 % < 50 % (do not).
 * N = 4, saving 4 x 0.76 an hour against 4 x 1.52.
 *
 * What it assumes, and the docs say: the history's shape holds for the term (no growth is
 * projected: commit again as the fleet grows), and the fleet it is given is what will run (the
 * CLI gives it the fleet Governor runs on the trace).
 */

export interface CommitOffer {
  /** The offer's name, as printed: '1-year', '3-year'. */
  term: string;
  /** Effective price of one committed instance, USD per hour (the plan or reservation rate). */
  usdPerHour: number;
}

export interface CommitPlan {
  term: string;
  usdPerHour: number;
  /** committed rate / on-demand rate: a committed instance pays off when used more than this share of hours. */
  breakEven: number;
  /** Instances to commit (0: none pays off). */
  instances: number;
  /** Share of the committed instance-hours the history uses (1 when nothing is committed). */
  utilization: number;
  /** Share of the fleet's instance-hours the commitment covers. */
  coverage: number;
  /** Over the history: all on demand, and with the commitment. */
  onDemandUsd: number;
  costUsd: number;
  /** 1 - costUsd / onDemandUsd. */
  saving: number;
}

export class CommitInputError extends Error {
  override name = 'CommitInputError';
}

/**
 * Instance-hours used in each clock hour, from a fleet given per minute (instances running,
 * pending included: what is billed). A last, partial hour counts the minutes it has.
 */
export function hourlyUsage(fleetPerMinute: ArrayLike<number>): Float64Array {
  const hours = Math.ceil(fleetPerMinute.length / 60);
  const usage = new Float64Array(hours);
  for (let m = 0; m < fleetPerMinute.length; m++) {
    const f = fleetPerMinute[m]!;
    if (!Number.isFinite(f) || f < 0) {
      throw new CommitInputError(`the fleet at minute ${m} is ${f}: instances must be 0 or more`);
    }
    usage[Math.floor(m / 60)]! += f;
  }
  // Instance-minutes summed first and divided once, so whole counts stay exact.
  for (let h = 0; h < hours; h++) usage[h] = usage[h]! / 60;
  return usage;
}

/** Usage above N instances, summed over the hours (the part billed on demand). */
function above(usage: Float64Array, n: number): number {
  let sum = 0;
  for (const u of usage) if (u > n) sum += u - n;
  return sum;
}

function check(onDemandUsdPerHour: number, offer: CommitOffer): void {
  if (!(onDemandUsdPerHour > 0) || !Number.isFinite(onDemandUsdPerHour)) {
    throw new CommitInputError(
      `the on-demand price must be more than 0 USD an hour, got ${onDemandUsdPerHour}`,
    );
  }
  if (!(offer.usdPerHour > 0) || !Number.isFinite(offer.usdPerHour)) {
    throw new CommitInputError(
      `the ${offer.term} rate must be more than 0 USD an hour, got ${offer.usdPerHour}`,
    );
  }
}

/** The plan for one offer over hourly usage (hourlyUsage). */
export function planCommitment(
  usage: Float64Array,
  onDemandUsdPerHour: number,
  offer: CommitOffer,
): CommitPlan {
  check(onDemandUsdPerHour, offer);
  const hours = usage.length;
  let total = 0;
  let peak = 0;
  for (const u of usage) {
    total += u;
    if (u > peak) peak = u;
  }
  // Walk up while the next instance saves more on demand than it costs (strictly: at exactly the
  // break-even it saves nothing, and a commitment is a risk the history cannot price).
  let n = 0;
  let rest = total;
  const step = hours * offer.usdPerHour;
  while (n < Math.ceil(peak)) {
    const next = above(usage, n + 1);
    if ((rest - next) * onDemandUsdPerHour <= step) break;
    n++;
    rest = next;
  }
  return costOf(usage, onDemandUsdPerHour, offer, n);
}

/**
 * The way AWS Cost Explorer recommends a Savings Plan: the same hourly model, but from the last
 * `days` of usage only (its lookback: 7, 30 or 60 days, LookbackPeriodInDays in the Cost Explorer
 * API), then judged over the whole history. Null when the history is shorter than the lookback.
 */
export function lookbackPlan(
  usage: Float64Array,
  onDemandUsdPerHour: number,
  offer: CommitOffer,
  days: number,
): { instances: number; whole: CommitPlan } | null {
  const hours = days * 24;
  if (usage.length < hours) return null;
  const recent = planCommitment(usage.subarray(usage.length - hours), onDemandUsdPerHour, offer);
  return { instances: recent.instances, whole: costOf(usage, onDemandUsdPerHour, offer, recent.instances) };
}

/** The figures of committing exactly `instances` over the history. */
export function costOf(
  usage: Float64Array,
  onDemandUsdPerHour: number,
  offer: CommitOffer,
  instances: number,
): CommitPlan {
  check(onDemandUsdPerHour, offer);
  let total = 0;
  for (const u of usage) total += u;
  const rest = above(usage, instances);
  const onDemandUsd = total * onDemandUsdPerHour;
  const costUsd = instances * usage.length * offer.usdPerHour + rest * onDemandUsdPerHour;
  const covered = total - rest;
  return {
    term: offer.term,
    usdPerHour: offer.usdPerHour,
    breakEven: offer.usdPerHour / onDemandUsdPerHour,
    instances,
    utilization: instances === 0 ? 1 : covered / (instances * usage.length),
    coverage: total > 0 ? covered / total : 0,
    onDemandUsd,
    costUsd,
    saving: onDemandUsd > 0 ? 1 - costUsd / onDemandUsd : 0,
  };
}
