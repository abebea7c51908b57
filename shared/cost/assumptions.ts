/**
 * What `governor validate --cost` cannot read from the template or the policy, each with where
 * its figure comes from. `--actions-per-day` overrides the one that depends most on traffic.
 */

export interface Assumptions {
  /** Evaluate function wall time per invocation: base plus this per target of its shard (ms). */
  evaluateMs: { base: number; perTarget: number };
  /** Forecast and mix function wall time per run: base plus this per target they plan (ms). */
  forecastMs: { base: number; perTarget: number };
  mixMs: { base: number; perTarget: number };
  /** Any other scheduled function (the failover health check of a standby stack), per run. */
  otherMs: number;
  /** Scale actions per SageMaker target a day, each a scale-target execution. */
  actionsPerDay: number;
  /** Seconds from the change to SageMaker serving it: the state machine polls meanwhile. */
  changeSeconds: number;
  /** Bytes of one decision record (the audit item written every evaluation). */
  recordBytes: number;
  /** Bytes of a target's state item without an error-budget ledger. */
  stateBytes: number;
  /** Bytes of the error-budget ledger per hour of its window (in the state item). */
  ledgerBytesPerHour: number;
  /** Decisions-by-reason series a target sends an hour (one per reason code seen that hour). */
  reasonsPerHour: number;
  /** Log bytes of one target's evaluation: its record line and its EMF blobs. */
  logBytesPerEvaluation: number;
  /** Log bytes of one Lambda invocation of its own (START, END, REPORT, the [service] EMF). */
  logBytesPerInvocation: number;
  /** Log bytes per target of a forecast or mix run (one record line, the EMF blob). */
  logBytesPerPlannedTarget: number;
  /** Log bytes per state transition (level ALL with execution data: entered and exited events). */
  logBytesPerTransition: number;
}

export const ASSUMPTIONS: Assumptions = {
  // docs/scale.md, "How long a tick takes": the bench's modeled tick (real evaluator, mocked
  // clients answering after in-region round trips) is 0.5 s at 50 targets and 4.2 s at 500:
  // 90 ms + 8.2 ms a target fits both.
  evaluateMs: { base: 90, perTarget: 8.2 },
  // Not measured: one GetMetricData of history per region (about 400 ms) and the fit, about 8 ms a
  // target (docs/forecast-aws.md), rounded up to 100 ms a target for its reads and writes.
  forecastMs: { base: 500, perTarget: 100 },
  mixMs: { base: 500, perTarget: 50 },
  otherMs: 1000,
  // README: Governor took 652 scaling actions on the NASA trace's 27.6 days, 23.6 a day.
  actionsPerDay: 24,
  // The backtest's reference scenario: a new GPU instance serves after 8 minutes (docs/backtest.md).
  changeSeconds: 480,
  // Measured: the record `governor invoke evaluate --event events/scheduler-tick.json --metrics
  // events/invoke/chat-llm.json --policy examples/policy.yaml --now event` prints is 1,772 bytes.
  recordBytes: 1800,
  stateBytes: 1000,
  // docs/slo.md, "The stored ledger": a 30-day window is 721 hourly buckets, about 17 KB.
  ledgerBytesPerHour: 24,
  // A calm hour carries one reason (WithinBand), a busy one a few; 2 on average.
  reasonsPerHour: 2,
  // Measured: functions/evaluate/telemetry.ts through Powertools for that record (one log line,
  // four EMF blobs) writes 3,419 bytes to stdout, which Lambda sends to CloudWatch Logs.
  logBytesPerEvaluation: 3400,
  logBytesPerInvocation: 600,
  logBytesPerPlannedTarget: 1500,
  logBytesPerTransition: 2000,
};
