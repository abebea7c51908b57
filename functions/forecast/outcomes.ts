/**
 * What one target's forecast run comes to: the outcome types the run, the log and the handler
 * share. No I/O; the run's context is ./context.ts.
 */

import type { EffectiveLead } from '../../shared/floors/lead-time.ts';

/** 48 h ahead: the floor can be used for up to 2 x refreshMinutes, and refreshMinutes is at most 1440. */
export const HORIZON_MINUTES = 2880;

/** The lead a target's floor is planned over, and the one its stored floor was (null: none stored). */
export type TargetLead = EffectiveLead & { previousMinutes: number | null };

/** Why this run writes nothing that changes capacity (shadow mode, or the kill switch). */
export type Withheld = 'shadow' | 'kill-switch';

/** What the run made of the target's noise, for its log line. */
export type NoiseOutcome =
  | {
      status: 'measured';
      a: number;
      b: number;
      samples: number;
      levelMinutes: number;
      historyMinutes: number;
      /** Set when noise.historyMinutes was beyond CloudWatch's one-minute retention. */
      clamped?: string;
    }
  | { status: 'unmeasured'; why: string };

/** What the run made of the target's burst demand (the burst floor's; ./burst.ts), for its log line. */
export type BurstOutcome =
  | {
      status: 'measured';
      /** Requests a minute at the quantile. */
      demand: number;
      quantile: number;
      /** Minutes with a count it was read from. */
      minutes: number;
    }
  | { status: 'unmeasured'; why: string };

/** Why a target's floor got no scheduled actions (the floor itself was written). */
export type ActionsSkipped = 'Disabled' | 'NotSageMaker' | 'OtherRegion' | 'NotRegistered' | 'LevelFloor';

export type ActionsOutcome =
  | { status: 'written'; planned: number; put: number; removed: number; threshold: number }
  | { status: 'skipped'; reason: ActionsSkipped }
  /** scheduledActions is off: Governor's earlier actions for the target were removed. */
  | { status: 'removed'; removed: number }
  /** Shadow: planned but not put, Governor's earlier actions removed; kill switch: neither (removed 0). */
  | { status: 'withheld'; why: Withheld; planned: number; removed: number }
  | { status: 'failed'; detail: string };

/** The warm capacity kept for a target with warmPool on, and what was done about it. */
export type WarmOutcome =
  /** SageMaker: instances added to every step of the floor. */
  | { kind: 'standby'; size: number; message: string }
  /** Auto Scaling group: PutWarmPool sent ('resized'), not needed, withheld, or failed. */
  | {
      kind: 'warm-pool';
      size: number;
      message: string;
      status: 'resized' | 'unchanged' | 'withheld' | 'failed';
      detail?: string;
    };

export type TargetOutcome = { targetId: string } & (
  | {
      outcome: 'written';
      /** forecast: planned from the demand forecast; level: the last level plus its noise (no forecast yet). */
      kind: 'forecast' | 'level';
      /** The forecast's model (null for a level floor). */
      model: 'daily' | 'weekly' | null;
      historyDays: number;
      /** The floor for now and the highest of the schedule, instances. */
      floorNow: number | null;
      floorPeak: number;
      notes: string[];
      /** The lead the floor covers, where it came from, and the stored floor's before it. */
      lead: TargetLead;
      actions: ActionsOutcome;
      warm?: WarmOutcome;
      /** noise.floorSigmas of the noise term in the floor (absent: the floor has none). */
      floorSigmas?: number;
      /** The forecast fell back to a simpler forecaster: why, with both losses. */
      fallback?: string;
      /** A level floor: its level (requests a minute), when it ends (epoch ms), why no forecast. */
      level?: { level: number; until: number; unavailable: string };
      /** The noise measured this run (noise.enabled). */
      noise?: NoiseOutcome;
      /** The burst demand measured this run (a burst floor that can stand). */
      burst?: BurstOutcome;
    }
  /** Nothing due: the floor (or, without a forecast, the one-minute measurements) still fresh. */
  | { outcome: 'fresh'; computedAt: number; of?: 'noise' | 'burst demand' }
  | {
      outcome: 'no-floor';
      reason: 'NoData' | 'InsufficientHistory' | 'Rejected';
      message: string;
      noise?: NoiseOutcome;
      burst?: BurstOutcome;
    }
  /**
   * The one-minute measurements alone (and stored): a target with noise.enabled or a burst floor
   * and no forecast, or a forecast target whose floor, made at `floorFrom`, is still fresh (the
   * noise and the burst demand are measured hourly). `noise` is absent when noise.enabled is false.
   */
  | { outcome: 'noise'; noise?: NoiseOutcome; burst?: BurstOutcome; floorFrom?: number }
  | { outcome: 'failed'; detail: string }
  /** Not started for lack of time (DeadlineReached): nothing written; the run fails so it is retried. */
  | { outcome: 'deferred'; detail: string }
);

export const warmFailed = (w: WarmOutcome | undefined): boolean =>
  w?.kind === 'warm-pool' && w.status === 'failed';
