/** A budget status for control tests: a calm, untouched budget unless overridden. */
import type { BudgetStatus } from '#shared/slo/budget.ts';

export const budget = (o: Partial<BudgetStatus> = {}): BudgetStatus => ({
  fastBurn: 0,
  slowBurn: 0,
  remaining: 1,
  pace: 0,
  attainment: 1,
  exhaustsInMinutes: null,
  pages: false,
  window: { observed: 1000, bad: 0, requests: 0, badRequests: 0 },
  ...o,
});
