/** The invocation's time budget (shared/invocation/budget.ts): work is started only with its margin left. */
import { describe, expect, it } from 'vitest';
import { DEADLINE_REACHED, deadlineReached, EVALUATE_TARGET_MARGIN_MS } from '#shared/invocation/budget.ts';

describe('deadlineReached', () => {
  it.each([
    { left: 40_000, late: false },
    { left: EVALUATE_TARGET_MARGIN_MS, late: false },
    { left: EVALUATE_TARGET_MARGIN_MS - 1, late: true },
    { left: -500, late: true },
  ])('with $left ms left of a 15 s margin: late $late', ({ left, late }) => {
    const why = deadlineReached(left, EVALUATE_TARGET_MARGIN_MS, "one target's claim");
    expect(why !== null).toBe(late);
    if (why) expect(why.startsWith(`${DEADLINE_REACHED}: `)).toBe(true);
  });

  it('says how much was left, what it needed, and that nothing changed', () => {
    expect(deadlineReached(8_260, 15_000, "one target's claim, action and record")).toBe(
      "DeadlineReached: 8.3 s left of the invocation, under the 15 s one target's claim, action and record may take: not started, nothing was changed; the next run does it",
    );
  });
});
