import { describe, expect, it } from 'vitest';
import { llmRamp, nasaCollapse, nasaGrowthFlash, twitterLevels } from '../../scripts/held-out-traces.ts';

const DAY = 1440;
const flat = Array.from({ length: 20 * DAY }, () => 100);

describe('the held-out traces of docs/backtest.md', () => {
  it('twitter-levels: x1.8 from day 10, x0.5 from day 16', () => {
    const out = twitterLevels(flat);
    expect([out[10 * DAY - 1], out[10 * DAY], out[16 * DAY - 1], out[16 * DAY]]).toEqual([100, 180, 180, 50]);
  });

  it('nasa-collapse: 40 % from day 14', () => {
    const out = nasaCollapse(flat);
    expect([out[14 * DAY - 1], out[14 * DAY]]).toEqual([100, 40]);
  });

  it('llm-3h-ramp: three hours of the hour, from 0.6x to 1.4x', () => {
    const out = llmRamp(Array.from({ length: 60 }, () => 100));
    expect(out).toHaveLength(180);
    expect(out[0]).toBeCloseTo(60, 9);
    expect(out[179]).toBeCloseTo(100 * (0.6 + (0.8 * 179) / 180), 9);
  });

  it('nasa-growth-flash: 3 % a day, flash crowds of x1.8 on most days, the same every time', () => {
    const a = nasaGrowthFlash(flat);
    expect(a).toEqual(nasaGrowthFlash(flat));
    const grown = flat.map((x, m) => x * 1.03 ** (m / DAY));
    const crowded = a.filter((x, m) => x > grown[m]! * 1.5).length;
    expect(crowded).toBeGreaterThan(12 * 30);
    expect(Math.max(...a.map((x, m) => x / grown[m]!))).toBeCloseTo(1.8, 9);
  });
});
