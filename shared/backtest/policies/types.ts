/**
 * What a simulated autoscaler is: each minute it sees the fleet and the datapoints delivered so
 * far, and returns the capacity it wants (ready + starting). Kept small so spot interruptions,
 * regional outages, warm pools and a forecast floor can be added around it later: those change
 * the fleet or the view, not this contract.
 */
import type { ReasonCode } from '../../engine/types.ts';
import type { MetricsView } from '../metrics.ts';
import type { ResolvedScenario } from '../scenario.ts';
import type { DecisionMark } from '../types.ts';
import type { LookaheadFits } from './lookahead.ts';

/** The fleet and the metrics as the policy sees them at the start of a minute. */
export interface FleetView {
  /** Epoch ms of the minute's start (minute x 60 000). */
  now: number;
  ready: number;
  /** Requested instances that do not serve yet. */
  pending: number;
  /** Idle warm-pool instances. */
  warmIdle: number;
  /** Only the datapoints delivered by now (see MetricsFeed). */
  metrics: MetricsView;
}

export interface Policy {
  readonly name: string;
  /** The capacity wanted now (ready + pending); the simulator clamps it to [min, max]. */
  decide(view: FleetView, minute: number): number;
  /** Idle warm-pool instances to keep (default 0: no warm pool). */
  readonly warmPoolSize?: number;
  /** A warm pool resized as the policy learns (read each minute; overrides warmPoolSize). */
  warmPoolSizeAt?(minute: number): number;
  /**
   * Overrides the scenario's metric delay for this policy's view: a policy on high-resolution
   * metrics sees a minute sooner (./aws-target-tracking-concurrency.ts).
   */
  readonly metricDelayMinutes?: number;
  /** Overrides the scenario's start-up delay (the oracle provisions with none). */
  readonly startDelayMinutes?: number;
  /** Overrides the scenario's initial fleet (static peak and the oracle start where they stay). */
  readonly initialReady?: number;
  /** After the run: the forecast band the policy planned with, per minute (look-ahead policies). */
  forecastBand?(): { p50: number[]; p90: number[] };
  /**
   * Spot instances to hold beyond the capacity it decides from now on, with the mix's floors now
   * (governor policies, in the mix backtest: the engine adds the headroom above what the load
   * asks, not above those floors, as in AWS where they are the engine's committedFloor and mixFloor).
   */
  setSpotHeadroom?(instances: number, floors: { committed: number; lossCover: number }): void;
  /** After the run: decision counts and marks (governor policies). */
  explain?(): { reasonCounts: Partial<Record<ReasonCode, number>>; decisions: DecisionMark[] };
}

/** What every policy factory may read: the scenario, its derived figures and the demand. */
export interface PolicyContext {
  scenario: ResolvedScenario;
  /** Work per minute (requests, unless token-aware work is on). The oracle alone reads it. */
  work: readonly number[];
  /** How the governor look-ahead fits forecasts and noise (default: directly; governor tune shares a memo). */
  fits?: LookaheadFits;
}
