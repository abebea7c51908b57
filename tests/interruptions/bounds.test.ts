/**
 * Issue 18: the SPOT state stays far below DynamoDB's 400 KB item limit however many instances a
 * day brings (unbounded, it passed the limit after about 11,200 and every batch then threw).
 * 20,000 instances warned over a day, 100 a batch every 7 minutes or so, through handleSpotBatch.
 */
import { describe, expect, it } from 'vitest';
import type { SpotEvent } from '#shared/interruptions/events.ts';
import { handleSpotBatch } from '#shared/interruptions/handle.ts';
import {
  boundSpotState,
  initialSpotState,
  MAX_HANDLED,
  MAX_WARNINGS,
  type SpotState,
  SpotStateSchema,
} from '#shared/interruptions/state.ts';
import { at, instance, mixPolicy, planFor, warning } from './harness.ts';

const policy = mixPolicy();
const plan = planFor(20, policy);

/**
 * DynamoDB's size of the item's `spot` map: each attribute name's UTF-8 length, each number about
 * 1 byte per 2 significant digits + 1, each map and its entries 3 + 1 bytes (the documented rule).
 */
function itemBytes(s: SpotState): number {
  const num = (n: number) => Math.ceil(String(n).replace(/^0+/, '').length / 2) + 1;
  const map = (m: Record<string, number>) =>
    3 + Object.entries(m).reduce((sum, [k, v]) => sum + k.length + num(v) + 1, 0);
  return (
    'spot'.length +
    map(s.handled) +
    map(s.warnings) +
    map(s.poolsUnavailableUntil) +
    ['version', 'spotUnavailableUntil', 'breakerOpenUntil', 'breakerOpenedAt'].reduce(
      (x, k) => x + k.length + 9,
      0,
    )
  );
}

describe('the SPOT state bounds', () => {
  it('20,000 instances in a day leave at most 500 handled and the item under 60 KB', () => {
    let state: SpotState | null = null;
    let largest = 0;
    for (let b = 0; b < 200; b++) {
      const minute = b * 7;
      const events: SpotEvent[] = Array.from({ length: 100 }, (_, i) => warning(b * 100 + i, minute));
      state = handleSpotBatch({ state, events, policy, plan, now: at(minute) }).state;
      expect(SpotStateSchema.safeParse(state).success).toBe(true);
      largest = Math.max(largest, itemBytes(state));
    }
    expect(Object.keys(state!.handled)).toHaveLength(MAX_HANDLED);
    // The ring keeps the most recent: the last five batches.
    expect(Object.keys(state!.handled).sort()[0]).toBe(instance(19_500));
    expect(largest).toBeLessThan(60_000);
    expect(JSON.stringify(state).length).toBeLessThan(60_000);
  });

  it('a full state (500 handled, 1,000 warnings, 64 pools) is about 45 KB: far from 400 KB', () => {
    const full: SpotState = {
      ...initialSpotState(),
      handled: Object.fromEntries(Array.from({ length: MAX_HANDLED }, (_, i) => [instance(i), at(1_440)])),
      warnings: Object.fromEntries(Array.from({ length: MAX_WARNINGS }, (_, i) => [instance(i), at(1_440)])),
      poolsUnavailableUntil: Object.fromEntries(
        Array.from({ length: 64 }, (_, i) => [`g${i}.48xlarge`, at(1_500)]),
      ),
    };
    expect(SpotStateSchema.safeParse(full).success).toBe(true);
    expect(itemBytes(full)).toBeLessThan(50_000);
    const over = { ...full, handled: { ...full.handled, [instance(99_999)]: at(1_441) } };
    expect(SpotStateSchema.safeParse(over).success).toBe(false);
    expect(Object.keys(boundSpotState(over).handled)).toContain(instance(99_999));
  });

  it('a storm of 1,500 warnings in one window still opens the breaker (the count saturates at 1,000)', () => {
    const big = planFor(20, policy);
    const events = Array.from({ length: 1_500 }, (_, i) => warning(i, 0));
    const r = handleSpotBatch({ state: null, events, policy, plan: big, now: at(1) });
    expect(r.actions.some((a) => a.kind === 'breaker-opened')).toBe(true);
    expect(Object.keys(r.state.handled)).toHaveLength(MAX_HANDLED);
    expect(SpotStateSchema.safeParse(r.state).success).toBe(true);
  });
});
