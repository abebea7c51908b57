/**
 * The SLO objective of a target: what share of minutes (and optionally of requests) must have
 * their latency SLI within the latency signal's sloMs, over what window, and how far Governor's
 * error-budget control may move the target's headroom to hold it at the least cost
 * (shared/slo/, docs/slo.md). Cross-field rules (a latency signal is needed, a request objective
 * needs a request signal) live in ./slo-rules.ts.
 */
import * as z from 'zod';

/** 99.5 % of minutes: 216 bad minutes in 30 days (the SRE workbook's common starting objective). */
export const DEFAULT_MINUTES_OBJECTIVE = 0.995;
export const DEFAULT_WINDOW_DAYS = 30;

const share = (what: string) =>
  z
    .number()
    .gt(0, { message: 'must be greater than 0' })
    .max(0.9999, {
      message: `must be at most 0.9999: an objective of 1 leaves no error budget, so any bad ${what} would break it; use 0.999 or 0.9999`,
    });

export const SloObjectiveSchema = z
  .object({
    minutes: share('minute')
      .default(DEFAULT_MINUTES_OBJECTIVE)
      .describe(
        'Share of minutes whose p95 latency must be within sloMs (the SLI). 0.995: 216 bad minutes in 30 days.',
      ),
    requests: share('request')
      .optional()
      .describe(
        'Also: share of requests that must arrive in minutes within the SLO. Needs an invocationsPerInstance signal (the request count).',
      ),
  })
  .strict();

/**
 * Room from the forecast's measured accuracy (shared/slo/forecast-room.ts): while the budget
 * control stands at 1 or more, the load targets are multiplied, and the forecast floor divided,
 * by min(maxFactor, room / (1 + bandWeight x (p90 / p50 - 1))), never below 1, where room is the
 * written room (instanceCapacity.requestsPerMinuteAtSlo over the planned requests per instance)
 * and p90 / p50 the forecast band of the minute (its own out-of-sample errors).
 */
export const ForecastRoomSchema = z
  .object({
    enabled: z
      .boolean()
      .default(true)
      .describe(
        'Go leaner than written where the forecast has been accurate and the budget is healthy. Needs a forecast and instanceCapacity.requestsPerMinuteAtSlo (otherwise it never applies). false: never.',
      ),
    bandWeight: z
      .number()
      .min(1, {
        message:
          'must be at least 1: below it the fleet keeps less room than one forecast band above the median',
      })
      .max(20)
      .default(4)
      .describe(
        'Bands of room kept: the targets stand at the SLO capacity over (1 + bandWeight x (p90 / p50 - 1)). 4 opens on no bundled trace and on a smooth year (docs/slo.md); lower opens sooner.',
      ),
    maxFactor: z
      .number()
      .min(1)
      .max(2)
      .default(1.3)
      .describe('The leanest the room goes: load targets times at most this (1: never opens).'),
  })
  .strict();

/**
 * Room beyond the written targets while the error budget has been barely spent
 * (shared/slo/control.ts spareCap): the control may loosen past maxTargetFactor, up to
 * maxFactor, in proportion to how far the window's pace is below belowPace and to the days of
 * SLI readings (none in the first day, all from evidenceDays on), and only while both burn
 * windows are calm. The moment a window burns, or the pace nears belowPace, the room shrinks and
 * the factor comes back with it.
 */
export const SpareRoomSchema = z
  .object({
    enabled: z
      .boolean()
      .default(true)
      .describe(
        'Go leaner than written while the error budget has been barely spent (docs/slo.md, "The spare room"). false: never past maxTargetFactor.',
      ),
    maxFactor: z
      .number()
      .min(1)
      .max(2)
      .default(1.5)
      .describe(
        'The leanest the spare room goes: load targets times at most this (1.5: 75 becomes 112.5, 94 % of a 120 SLO capacity), reached only with a pace of 0 over evidenceDays.',
      ),
    belowPace: z
      .number()
      .gt(0)
      .max(1)
      .default(0.25)
      .describe(
        "The pace (the window's burn rate: 1 spends exactly the budget) below which there is room: all of it at 0, none at belowPace. 0.25: spend beyond the written targets only while under a quarter of the budget's rate is used.",
      ),
    evidenceDays: z
      .number()
      .min(2)
      .max(90)
      .default(7)
      .describe(
        'Days of SLI readings before the room is whole: none in the first day, growing to all of it at evidenceDays (a week of a daily and weekly cycle).',
      ),
  })
  .strict();

/**
 * Standing capacity for bursts shorter than a scale-out (shared/slo/burst-floor.ts): once the
 * control is at minTargetFactor and the window's pace is above 1, a floor at the quantile of the
 * last windowMinutes' demand the objective must cover stands for a window after the last time
 * that holds.
 */
export const BurstFloorSchema = z
  .object({
    enabled: z
      .boolean()
      .default(true)
      .describe(
        'Hold a standing floor while bursts shorter than a scale-out spend the budget at the most headroom (docs/slo.md, "The burst floor"). false: headroom from the load targets only.',
      ),
    windowMinutes: z
      .number()
      .int({ message: 'must be a whole number of minutes' })
      .min(60, {
        message:
          'must be at least 60: the floor is the demand of this many minutes at a high quantile, and less than an hour holds too few minutes to see the bursts it must cover',
      })
      .max(10_080)
      .default(1440)
      .describe(
        "Minutes of demand the floor's quantile is read over (re-measured hourly), and how long it stands after the last minute that triggered it. 1440: the last day.",
      ),
  })
  .strict();

/** How the error budget moves headroom: the bounds, the burn-rate windows and the damping. */
export const SloControlSchema = z
  .object({
    enabled: z
      .boolean()
      .default(true)
      .describe('Move the headroom with the error budget. false: judge and report only.'),
    minTargetFactor: z
      .number()
      .min(0.1)
      .max(1)
      .default(0.3)
      .describe(
        'The most headroom: load targets times this (0.3: a target of 75 becomes 22.5), forecast floors divided by it. Used in full while the budget is exhausted. Twitter (bursts shorter than a cold start) needs about 0.33 to hold 99.5 %.',
      ),
    maxTargetFactor: z
      .number()
      .min(1, {
        message:
          'must be at least 1: it is the leanest the targets may go, and 1 is the policy as written; for more headroom lower minTargetFactor or the targets themselves',
      })
      .max(2)
      .default(1)
      .describe(
        'The least headroom: load targets times this while the budget is spare. 1 never goes leaner than the policy as written (leaner cost more on NASA July: docs/slo.md).',
      ),
    spendTarget: z
      .number()
      .gt(0)
      .max(1)
      .default(0.8)
      .describe(
        "The share of the window's error budget to plan to spend: headroom grows only while the pace is above it and shrinks only below it. 0.8 keeps a fifth for what the history has not shown.",
      ),
    fastWindowMinutes: z
      .number()
      .int()
      .min(5)
      .max(360)
      .default(60)
      .describe('The window that reacts: headroom grows only while it burns faster than the budget allows.'),
    slowWindowMinutes: z
      .number()
      .int()
      .min(30)
      .max(10_080)
      .default(360)
      .describe('The window whose burn rate the BurnRate metric and the budget alarm read (whole hours).'),
    tightenStep: z
      .number()
      .gt(0)
      .max(0.3)
      .default(0.03)
      .describe(
        'Fraction the factor falls by when burning, times the fast burn rate (at most 3x): 0.03 at a burn of 3.3 (one bad minute in 60 at 99.5 %) takes 9 %.',
      ),
    freshStepShare: z
      .number()
      .min(0.05)
      .max(1)
      .default(0.4)
      .describe(
        "The share of a full tightening step taken while the window's budget is untouched: the step is tightenStep x the burn rate x the share of the budget spent, at least this, and a full one while the burn pages (2 % of the budget in the fast window or 5 % in the slow one, the SRE workbook's page thresholds). 1: full steps always.",
      ),
    tightenEveryMinutes: z
      .number()
      .int()
      .min(1)
      .max(1440)
      .default(10)
      .describe(
        "Minutes between two tightening steps: about a scale-out's lead time, so one incident's bad minutes count once.",
      ),
    loosenStep: z
      .number()
      .gt(0)
      .max(0.1)
      .default(0.01)
      .describe('Fraction the factor rises by per loosenEveryMinutes while the budget is spare.'),
    loosenEveryMinutes: z
      .number()
      .int()
      .min(1)
      .max(1440)
      .default(10)
      .describe('Minutes between two loosening steps.'),
    forecastRoom: ForecastRoomSchema.default(ForecastRoomSchema.parse({})).describe(
      "Room that follows the forecast's measured accuracy while the budget is healthy (docs/slo.md).",
    ),
    spareRoom: SpareRoomSchema.default(SpareRoomSchema.parse({})).describe(
      'Room beyond maxTargetFactor while the error budget has been barely spent for days (docs/slo.md).',
    ),
    burstFloor: BurstFloorSchema.default(BurstFloorSchema.parse({})).describe(
      'Standing capacity while bursts shorter than a scale-out spend the budget at the most headroom (docs/slo.md).',
    ),
  })
  .strict();

export const SloSchema = z
  .object({
    objective: SloObjectiveSchema.default(SloObjectiveSchema.parse({})),
    windowDays: z
      .number()
      .int({ message: 'must be a whole number of days' })
      .min(1, {
        message:
          'must be at least 1: a window shorter than a day has too few minutes to budget (0.5 % of an hour is 0.3 minutes)',
      })
      .max(90)
      .default(DEFAULT_WINDOW_DAYS)
      .describe('Days the objective is measured over (rolling). 30: 43,200 minutes.'),
    control: SloControlSchema.default(SloControlSchema.parse({})),
  })
  .strict();

export type Slo = z.infer<typeof SloSchema>;
export type SloObjective = z.infer<typeof SloObjectiveSchema>;
export type SloControl = z.infer<typeof SloControlSchema>;
export type ForecastRoom = z.infer<typeof ForecastRoomSchema>;
export type SpareRoom = z.infer<typeof SpareRoomSchema>;
export type BurstFloor = z.infer<typeof BurstFloorSchema>;
