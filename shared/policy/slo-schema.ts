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

/** How the error budget moves headroom: the bounds, the burn-rate windows and the damping. */
export const SloControlSchema = z
  .object({
    enabled: z
      .boolean()
      .default(true)
      .describe('Move the headroom with the error budget. false: judge and report only.'),
    minTargetFactor: z
      .number()
      .min(0.2)
      .max(1)
      .default(0.6)
      .describe(
        'The most conservative headroom: load targets times this (0.6: a target of 75 becomes 45), forecast floors divided by it. Used in full while the budget is exhausted.',
      ),
    maxTargetFactor: z
      .number()
      .min(1)
      .max(2)
      .default(1.3)
      .describe('The leanest headroom: load targets times this while the budget is spare.'),
    fastWindowMinutes: z
      .number()
      .int()
      .min(5)
      .max(360)
      .default(60)
      .describe('The window that reacts: its burn rate must be high for the headroom to grow.'),
    slowWindowMinutes: z
      .number()
      .int()
      .min(30)
      .max(10_080)
      .default(360)
      .describe('The window that confirms: its burn rate must agree, so one bad minute does not flap.'),
    tightenStep: z
      .number()
      .gt(0)
      .max(0.5)
      .default(0.05)
      .describe(
        'Fraction the factor falls by at each new bad minute while both windows burn faster than the budget allows, times the fast burn rate (at most 3x): 0.05 at a burn of 3.3 (one bad minute in 60 at 99.5 %) takes 15 %.',
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
      .default(15)
      .describe(
        'Minutes between two loosening steps: slower than tightening, so the budget is bought back fast and spent slowly.',
      ),
    spareBurnRate: z
      .number()
      .min(0)
      .max(1)
      .default(0.5)
      .describe(
        'The budget is spare while both windows burn slower than this (1 spends it exactly over the window).',
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
