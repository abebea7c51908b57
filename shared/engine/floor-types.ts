/**
 * The floors and the ceiling a snapshot may carry into decide() and a decision records (./types.ts
 * SignalSnapshot and Decision): who asked for them is told by their fields.
 */

/** A failover group's floor for one of its members: the group, its phase, the instances. */
export interface FailoverFloor {
  capacity: number;
  groupId: string;
  /** The planner's phase (steady, prescaling, halted, shifting, failed-over). */
  phase: string;
}

/** The capacity mix's loss cover: the instances that still serve the forecast after losing the largest spot pool. */
export interface MixFloor {
  capacity: number;
}

/**
 * The committed base: instances a capacity mix plan counts as paid for (Reserved Instances,
 * capacity reservations or a Savings Plan, capacityMix.committed, planned on what exists). They
 * are billed every hour whether they run or not, so running them costs nothing more.
 */
export interface CommittedFloor {
  capacity: number;
}

/**
 * The error budget's burst floor (shared/slo/burst-floor.ts): standing capacity for bursts shorter
 * than a scale-out, the demand the objective must cover over the SLO capacity of one instance.
 */
export interface BurstFloorRecord {
  capacity: number;
  /** Requests a minute at the quantile (the policy's units). */
  demand: number;
  /** The quantile of the window's demand (0.996). */
  quantile: number;
  /** Epoch ms until which it stands. */
  until: number;
  /** The load targets stood as written: the floor held at least what the lowered targets would at the level. */
  asWritten: boolean;
}

/** The budget's ceiling: the most instances maxUsdPerHour pays for. */
export interface BudgetCeiling {
  capacity: number;
  maxUsdPerHour: number;
}
