/**
 * Commitments that exist, against the one the policy plans on (issue 22, item 2). Pure: what the
 * commitments function read from EC2 and Savings Plans (shared/aws/commitments.ts) goes in with
 * the target and the time; out come what may be planned on, the shortfall, reason codes and one
 * sentence (docs/capacity-mix.md, "Commitments that exist").
 *
 * What counts, for a target committing N instances of type T in region R and zones Z:
 *  - Reserved Instances of T, active at `now`: regional ones in R, zonal ones in Z (a zonal one
 *    elsewhere reserves capacity the group cannot launch into);
 *  - capacity reservations of T in Z, active, with open matching (a targeted one serves only a
 *    launch template that names it, which Governor cannot see): billed whether used or not;
 *  - Savings Plans, active, that apply to T in R (Compute everywhere, EC2Instance in its region and
 *    family, SageMaker for ml.* types): commitment USD/h / the plan's lowest rate for T, rounded
 *    down; a plan whose rate could not be read is named and not counted.
 * The sum is an upper bound of the instances paid for whether they run or not: a regional
 * reservation or a plan that discounts a capacity reservation is the same instance counted twice,
 * and plans and regional reservations float to any matching usage in the account. So the check
 * warns only when the policy asks for more than even that bound (CommitmentShortfall), and the
 * planner plans on the smaller of the two.
 */

/** A Reserved Instance (DescribeReservedInstances), its times epoch ms. */
export interface ReservedRead {
  id: string;
  instanceType: string;
  /** The zone of a zonal reservation; null: regional (Scope Region). */
  zone: string | null;
  count: number;
  state: string;
  start: number;
  end: number;
}

/** A capacity reservation (DescribeCapacityReservations). */
export interface CapacityReservationRead {
  id: string;
  instanceType: string;
  zone: string;
  total: number;
  state: string;
  /** null: no end date (EndDateType unlimited). */
  end: number | null;
  matching: 'open' | 'targeted';
}

/** A Savings Plan (DescribeSavingsPlans) and its lowest rate for the target's type (DescribeSavingsPlanRates). */
export interface SavingsPlanRead {
  id: string;
  type: string;
  state: string;
  /** Its region (EC2Instance plans); null: any. */
  region: string | null;
  /** EC2Instance plans: the family they cover (g5); null: any. */
  family: string | null;
  commitmentUsdPerHour: number;
  start: number;
  end: number;
  /** USD per hour of one instance under this plan, the lowest rate read per instance type; a type absent: not read. */
  rates: Record<string, number>;
}

export interface ExistingCommitments {
  /** When the commitments function read them. */
  readAt: number;
  region: string;
  reservations: ReservedRead[];
  capacityReservations: CapacityReservationRead[];
  savingsPlans: SavingsPlanRead[];
}

export const COMMIT_REASON_CODES = [
  'CommitmentCovered',
  'CommitmentShortfall',
  'CommitmentUnread',
  'CommitmentExpiring',
  'CommitmentUnplanned',
] as const;
export type CommitReasonCode = (typeof COMMIT_REASON_CODES)[number];

export interface CommitTarget {
  targetId: string;
  region: string;
  /** The group's zones (capacityMix.zones); null: not listed, so zonal reservations are not counted. */
  zones: readonly string[] | null;
  instances: number;
  instanceType: string | null;
}

export interface CommitCheck {
  targetId: string;
  instanceType: string | null;
  policyInstances: number;
  /** Upper bound of the instances paid for that this target may use; null: cannot say (unread). */
  existing: number | null;
  reserved: number;
  capacityReserved: number;
  savingsPlanInstances: number;
  /** Policy instances beyond what exists: the warning metric. */
  shortfall: number;
  /** What the planner plans on: min(policy, existing); the policy's own while unread. */
  planned: number;
  /** Ids of counted commitments that end within EXPIRING_MS. */
  expiring: string[];
  reasons: CommitReasonCode[];
  message: string;
}

/** A read older than this cannot decide (the function reads hourly: two misses in a row and a margin). */
export const MAX_READ_AGE_MS = 3 * 60 * 60_000;
/** A counted commitment ending within this is named (CommitmentExpiring): 30 days. */
export const EXPIRING_MS = 30 * 24 * 60 * 60_000;

const activeAt = (state: string, start: number, end: number | null, now: number) =>
  state === 'active' && start <= now && (end === null || now < end);

/** The family of an instance type: g5 of g5.2xlarge, g5 of ml.g5.2xlarge. */
export const familyOf = (type: string): string => type.replace(/^ml\./, '').split('.')[0] ?? type;

function planApplies(p: SavingsPlanRead, t: CommitTarget, type: string): boolean {
  if (p.type === 'Compute') return !type.startsWith('ml.');
  if (p.type === 'SageMaker') return type.startsWith('ml.');
  if (p.type === 'EC2Instance')
    return !type.startsWith('ml.') && p.region === t.region && p.family === familyOf(type);
  return false;
}

const rateOf = (p: SavingsPlanRead, type: string | null): number | null => {
  const rate = type === null ? undefined : p.rates[type];
  return rate !== undefined && rate > 0 ? rate : null;
};

/** The instances of `type` a plan's hourly commitment pays for at its rate, rounded down (1.5 / 0.7: 2). */
const instancesOf = (p: SavingsPlanRead, type: string | null): number => {
  const rate = rateOf(p, type);
  return rate === null ? 0 : Math.floor(p.commitmentUsdPerHour / rate + 1e-9);
};

/** What exists for `t` at `now`, compared with what its policy commits. */
export function checkCommitment(t: CommitTarget, read: ExistingCommitments | null, now: number): CommitCheck {
  const base = { targetId: t.targetId, instanceType: t.instanceType, policyInstances: t.instances };
  if (read === null || now - read.readAt > MAX_READ_AGE_MS || read.region !== t.region)
    return unread(t, base, read, now);
  const type = t.instanceType;
  const inZones = (zone: string) => t.zones?.includes(zone) ?? false;
  const reservations = read.reservations.filter(
    (r) =>
      r.instanceType === type &&
      activeAt(r.state, r.start, r.end, now) &&
      (r.zone === null || inZones(r.zone)),
  );
  const capacity = read.capacityReservations.filter(
    (c) =>
      c.instanceType === type && c.matching === 'open' && inZones(c.zone) && activeAt(c.state, 0, c.end, now),
  );
  const plans = read.savingsPlans.filter(
    (p) => type !== null && activeAt(p.state, p.start, p.end, now) && planApplies(p, t, type),
  );
  const reserved = reservations.reduce((n, r) => n + r.count, 0);
  const capacityReserved = capacity.reduce((n, c) => n + c.total, 0);
  const savingsPlanInstances = plans.reduce((n, p) => n + instancesOf(p, type), 0);
  const existing = reserved + capacityReserved + savingsPlanInstances;
  const ends = [
    ...reservations.map((r) => ({ id: r.id, end: r.end as number | null })),
    ...capacity.map((c) => ({ id: c.id, end: c.end })),
    ...plans.map((p) => ({ id: p.id, end: p.end as number | null })),
  ];
  const expiring = ends.filter((e) => e.end !== null && e.end - now < EXPIRING_MS).map((e) => e.id);
  const shortfall = Math.max(0, t.instances - existing);
  const reasons: CommitReasonCode[] = [shortfall > 0 ? 'CommitmentShortfall' : 'CommitmentCovered'];
  if (expiring.length > 0) reasons.push('CommitmentExpiring');
  if (existing > t.instances) reasons.push('CommitmentUnplanned');
  const unrated = plans.filter((p) => !rateOf(p, type)).map((p) => p.id);
  const parts = { reserved, capacityReserved, savingsPlanInstances, existing, shortfall, expiring, unrated };
  return {
    ...base,
    existing,
    reserved,
    capacityReserved,
    savingsPlanInstances,
    shortfall,
    planned: Math.min(t.instances, existing),
    expiring,
    reasons,
    message: sentence(t, parts),
  };
}

function unread(
  t: CommitTarget,
  base: Pick<CommitCheck, 'targetId' | 'instanceType' | 'policyInstances'>,
  read: ExistingCommitments | null,
  now: number,
): CommitCheck {
  const why =
    read === null
      ? 'nothing read yet'
      : read.region !== t.region
        ? `the read is of ${read.region}, not ${t.region}`
        : `the last read is ${Math.round((now - read.readAt) / 60_000)} min old (more than ${MAX_READ_AGE_MS / 3_600_000} h)`;
  return {
    ...base,
    existing: null,
    reserved: 0,
    capacityReserved: 0,
    savingsPlanInstances: 0,
    shortfall: 0,
    planned: t.instances,
    expiring: [],
    reasons: ['CommitmentUnread'],
    message: `Cannot compare ${t.targetId}'s commitment of ${t.instances} with what exists: ${why}; planned on the policy's ${t.instances}.`,
  };
}

interface Parts {
  reserved: number;
  capacityReserved: number;
  savingsPlanInstances: number;
  existing: number;
  shortfall: number;
  expiring: string[];
  unrated: string[];
}

function sentence(t: CommitTarget, p: Parts): string {
  const type = t.instanceType ?? 'its type';
  const where = `${t.region}${t.zones ? ` (${t.zones.join(', ')})` : ''}`;
  const found = `${p.existing} ${type} at most exist in ${where}: ${p.reserved} reserved, ${p.capacityReserved} in open capacity reservations, ${p.savingsPlanInstances} by Savings Plans`;
  const head =
    p.shortfall > 0
      ? `${t.targetId} commits ${t.instances} ${type} but ${found}: ${p.shortfall} short, planned on ${p.existing}; buy the commitment or lower capacityMix.committed.instances`
      : p.existing > t.instances
        ? `${t.targetId} commits ${t.instances} ${type}; ${found}: ${p.existing - t.instances} paid for may go unplanned (raise capacityMix.committed.instances if they are this target's)`
        : `${t.targetId} commits ${t.instances} ${type}; ${found}: covered`;
  const tail = [
    ...(p.expiring.length > 0 ? [`ending within 30 days: ${p.expiring.join(', ')}`] : []),
    ...(p.unrated.length > 0 ? [`not counted, their rate for ${type} unread: ${p.unrated.join(', ')}`] : []),
    ...(t.zones === null ? ['zonal reservations not counted: list capacityMix.zones'] : []),
  ];
  return `${[head, ...tail].join('; ')}.`;
}
