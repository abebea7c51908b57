/**
 * The backtest's result values: what the simulator returns for each policy, what the table,
 * the JSON file and the HTML report are made from. Units are in the names; minutes index the
 * trace (minute 0 is the trace's first minute).
 */
import type { ReasonCode } from '../engine/types.ts';
import type { Objective } from './attainment.ts';
import type { SweptPoint } from './best-target.ts';
import type { SloVerdict } from './verdict.ts';

/** The reference scenario of BACKTEST.md, with every option's value. */
export interface Scenario {
  peakInstances: number;
  sloUtilization: number;
  coldStartMinutes: number;
  warmStartMinutes: number;
  metricDelayMinutes: number;
  minCapacity: number;
  maxCapacity: number;
  pricePerInstanceHour: number;
  /** Requests per minute one instance serves at the SLO: max(r) / peakInstances. */
  mu: number;
  /** Saturation capacity of one instance: mu / sloUtilization. */
  muSat?: number;
  /** Ready instances at minute 0: ceil(max(r(0..coldStartMinutes)) / mu), at least minCapacity. */
  initialInstances?: number;
  /** The p95 latency SLO the latency curve is scaled to, in ms. */
  sloMs?: number;
  /** k = requestsPerMinuteAtSlo / mu: what the governor policy multiplies request signals by. */
  policyUnitScale?: number;
  /** Token-aware work (options beyond the reference): weight of one output token vs one input token. */
  outputTokenWeight?: number | null;
  /** Seed of the Poisson noise added to the trace, or null for none. */
  noiseSeed?: number | null;
  /** Idle warm-pool instances the governor policy keeps (0: none). */
  warmPoolInstances?: number;
}

/** One decision of the governor policy worth showing on a chart (scaling actions, panics). */
export interface DecisionMark {
  minute: number;
  action: 'scale-out' | 'scale-in' | 'hold';
  from: number;
  to: number;
  reasons: ReasonCode[];
  message: string;
}

/** The per-minute series of one policy's run, for charts. */
export interface PolicySeries {
  /** Ready (serving) instances at each minute. */
  ready: number[];
  /** Ready + starting instances (what is billed) at each minute. */
  provisioned: number[];
  /** Idle warm-pool instances at each minute (all zeros without a warm pool). */
  warmPool: number[];
  /** Minutes that violated the SLO. */
  violationMinutes: number[];
}

/** One policy's figures, as in BACKTEST.md "What to report". */
export interface PolicySummary {
  name: string;
  instanceMinutes: number;
  costUsd: number;
  costVsOracle: number;
  violationMinutes: number;
  violationRatio: number;
  requestsInViolationRatio: number;
  scalingActions: number;
  /**
   * Unit economics over the scored minutes (shared/backtest/unit-cost.ts has the definitions):
   * cost / (requests / 1,000), every request counted, those in violating minutes too; null
   * when nothing was requested. Set by runBacktest; absent from a bare simulate().
   */
  costPer1kRequestsUsd?: number | null;
  /** cost / (requests in minutes that met the SLO / 1,000): the price of a good request; null when none did. */
  costPer1kRequestsWithinSloUsd?: number | null;
  /** cost / (input + output tokens / 1,000,000); null when the trace has no token columns. */
  costPerMillionTokensUsd?: number | null;
  /** Decisions per reason code (governor policies only). */
  reasonCounts?: Partial<Record<ReasonCode, number>>;
  /**
   * Against the objective (./attainment.ts), set by runBacktest: 1 - violationRatio, or on a run
   * longer than the objective's window, its worst window's share.
   */
  attainment?: number;
  /** Runs longer than the window: 1 - violationRatio over the whole run. */
  traceAttainment?: number;
  /** Runs longer than the window: the first minute of the worst window. */
  worstWindowFrom?: number;
  /** 1 - requestsInViolationRatio. */
  requestsAttainment?: number;
  /** Error budget spent: (1 - attainment) / (1 - objective); 1 = all of it. */
  budgetSpent?: number;
  meetsObjective?: boolean;
  /** Target tracking at its best target: the target chosen, as a fraction of muSat. */
  targetOfSaturation?: number;
}

export interface PolicyRun {
  summary: PolicySummary;
  series: PolicySeries;
  /** Governor policies only: the scaling decisions, for annotations. */
  decisions?: DecisionMark[];
  /**
   * The last minute simulated when a stop rule ended the run early (simulate's stopWhen); the
   * series and figures cover the minutes up to it. Absent: the whole trace ran.
   */
  stoppedAt?: number;
}

export interface BacktestResult {
  trace: {
    name: string;
    minutes: number;
    totalRequests: number;
    peakRequestsPerMinute: number;
    resolution: 'minute' | 'second';
    /** Figures count minutes from this one on (held-out scoring); absent: the whole trace. */
    scoreFrom?: number;
  };
  scenario: Scenario;
  /** Requests per minute, r(m). */
  demand: number[];
  /** Work per minute in average requests, when token-aware work makes it differ from demand. */
  work?: number[];
  /** The oracle's capacity per minute: the floor every policy is measured against. */
  oracle: number[];
  /** Optional forecast band (requests per minute) under the demand: p10/p50/p90 per minute. */
  forecast?: { p50: number[]; p90: number[]; p99?: number[] };
  policies: PolicyRun[];
  /** The objective, target tracking's swept targets and the verdict (absent from results made without them). */
  slo?: BacktestSlo;
}

/** The run judged against the SLO objective (BACKTEST.md, last section). */
export interface BacktestSlo {
  objective: Objective;
  /** Target tracking at each swept target; empty when the sweep was not run. */
  sweep: SweptPoint[];
  /** Its cheapest target that meets the objective; null: none does (or no sweep). */
  best: SweptPoint | null;
  /** (target tracking's cost at Governor's attainment - Governor's) / target tracking's; null: no target reaches it. */
  savingAtEqualSlo: number | null;
  /** Absent when Governor or the sweep did not run. */
  verdict?: SloVerdict;
}
