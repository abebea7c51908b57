/** The mix backtest's parts: the simulated group's MixedInstancesPolicy arithmetic and the spot weather. */
import { describe, expect, it } from 'vitest';
import { ALL_ON_DEMAND, MixFleet, onDemandPart } from '#shared/backtest/mix/fleet.ts';
import { drawWeather, hazardPerMinute, RECLAIM_SHARE, reclaimedOf } from '#shared/backtest/mix/hazard.ts';

const fleet = (detachOnWarning = true) =>
  new MixFleet({ pools: 3, initialOnDemand: 0, coldStartMinutes: 8, detachOnWarning });
const split = { onDemandBase: 2, onDemandPercentAboveBase: 40, spotPools: [0, 1, 2] };
const never = () => false;

describe('the simulated group', () => {
  it('splits desired capacity as Auto Scaling does: base, then the on-demand percentage rounded up', () => {
    expect(onDemandPart(2, split)).toBe(2);
    expect(onDemandPart(12, split)).toBe(2 + Math.ceil(10 * 0.4)); // 6
    expect(onDemandPart(13, split)).toBe(2 + Math.ceil(11 * 0.4)); // 7
    expect(onDemandPart(12, ALL_ON_DEMAND)).toBe(12);
  });

  it('spreads spot evenly over the listed pools and serves after the cold start', () => {
    const f = fleet();
    expect(f.scaleTo(12, split, 0, never)).toEqual({ failedSpot: 0 });
    expect(f.onDemand.total).toBe(6);
    expect(f.spot.map((p) => p.total)).toEqual([2, 2, 2]);
    f.promote(7);
    expect(f.ready).toBe(0);
    f.promote(8);
    expect(f.ready).toBe(12);
  });

  it('skips a dry pool, and fails the spot it cannot place when every listed pool is dry', () => {
    const f = fleet();
    f.scaleTo(12, split, 0, (p) => p === 1);
    expect(f.spot.map((p) => p.total)).toEqual([3, 0, 3]);
    const g = fleet();
    expect(g.scaleTo(12, split, 0, () => true)).toEqual({ failedSpot: 6 });
    expect(g.counted).toBe(6);
  });

  it('scales in from the part above its share first', () => {
    const f = fleet();
    f.scaleTo(12, split, 0, never);
    f.scaleTo(8, split, 1, never); // on-demand part of 8: 2 + ceil(6 x 0.4) = 5
    expect(f.onDemand.total + f.spotTotal).toBe(8);
    expect(f.spotTotal).toBe(3);
  });

  it('a warned instance serves its two minutes; detached, its replacement starts at the warning', () => {
    const f = fleet(true);
    f.scaleTo(12, split, 0, never);
    f.promote(8);
    expect(f.warn(0, 2, 10, 2)).toBe(2);
    expect(f.ready).toBe(12);
    expect(f.counted).toBe(10);
    f.scaleTo(12, split, 10, never);
    f.promote(12);
    expect(f.ready).toBe(10);
    f.promote(18);
    expect(f.ready).toBe(12);
  });

  it('left to itself, the group counts a warned instance until it terminates, and replaces it then', () => {
    const f = fleet(false);
    f.scaleTo(12, split, 0, never);
    f.promote(8);
    f.warn(0, 2, 10, 2);
    expect(f.counted).toBe(12);
    f.scaleTo(12, split, 10, never);
    expect(f.pending).toBe(0);
    f.promote(12);
    f.scaleTo(12, split, 12, never);
    expect(f.pending).toBe(2);
  });
});

describe("SpotHedge's group (fleet.hedgeTo)", () => {
  const hedge = { base: 2, extra: 2, pools: [0, 1, 2], maxSpotPercent: 100 };

  it('keeps the base on-demand and the rest of the target plus the extra on spot, spread evenly', () => {
    const f = fleet();
    expect(f.hedgeTo(10, hedge, 0, never)).toEqual({ failedSpot: 0 });
    expect(f.onDemand.total).toBe(2);
    expect(f.spot.map((p) => p.total)).toEqual([4, 3, 3]);
  });

  it('falls back to on-demand for the spot it cannot get, and leaves once ready spot covers the target', () => {
    const f = fleet();
    expect(f.hedgeTo(10, hedge, 0, () => true)).toEqual({ failedSpot: 10 });
    expect(f.onDemand.total).toBe(10);
    f.promote(8);
    f.hedgeTo(10, hedge, 8, never); // the pools are back: spot starts, the fallback stays until it serves
    expect(f.spotTotal).toBe(10);
    expect(f.onDemand.total).toBe(10);
    f.promote(16);
    f.hedgeTo(10, hedge, 16, never);
    expect(f.onDemand.total).toBe(2);
    expect(f.ready).toBe(12);
  });

  it('replaces a reclaimed spot instance on spot at once, covered by the extra meanwhile', () => {
    const f = fleet(true);
    f.hedgeTo(10, hedge, 0, never);
    f.promote(8);
    f.warn(0, 2, 10, 2);
    f.hedgeTo(10, hedge, 10, (p) => p === 0);
    expect(f.spot.map((p) => p.total)).toEqual([2, 4, 4]);
    f.promote(12); // the warned two are gone; 10 of 12 still serve: the target holds
    expect(f.ready).toBe(10);
    expect(f.onDemand.total).toBe(2);
  });

  it("keeps spot within the policy's maxPercent of the instances run, the extra included", () => {
    const f = fleet();
    f.hedgeTo(10, { ...hedge, base: 0, maxSpotPercent: 70 }, 0, never);
    // 12 run: at most floor(12 x 0.7) = 8 on spot, so 4 on-demand.
    expect(f.spotTotal).toBe(8);
    expect(f.onDemand.total).toBe(4);
  });

  it('runs all on-demand when no pool may take spot', () => {
    const f = fleet();
    f.hedgeTo(5, { base: 0, extra: 2, pools: [], maxSpotPercent: 100 }, 0, never);
    expect(f.onDemand.total).toBe(5);
    expect(f.spotTotal).toBe(0);
  });
});

describe('the spot weather', () => {
  it('is the same for one seed and differs between seeds', () => {
    const a = drawWeather(['>20%', '>20%', '>20%'], 200_000, 7, 10);
    const b = drawWeather(['>20%', '>20%', '>20%'], 200_000, 7, 10);
    const c = drawWeather(['>20%', '>20%', '>20%'], 200_000, 8, 10);
    expect([...a.events.keys()]).toEqual([...b.events.keys()]);
    expect([...a.events.keys()]).not.toEqual([...c.events.keys()]);
  });

  it("keeps an instance's hazard at the band's rate: events at lambda / share, each taking the share", () => {
    const minutes = 10_000_000;
    const w = drawWeather(['>20%'], minutes, 3, 10);
    const expected = (minutes * hazardPerMinute('>20%', 10)) / RECLAIM_SHARE;
    expect(Math.abs(w.count - expected) / expected).toBeLessThan(0.1);
    // ">20%" is 25 % a month: lambda = -ln(0.75) / 43,200 per minute.
    expect(hazardPerMinute('>20%')).toBeCloseTo(-Math.log(0.75) / 43_200, 12);
    const taken = [...w.events.values()].flat().reduce((s, e) => s + reclaimedOf(100, e), 0);
    expect(taken / (100 * w.count)).toBeGreaterThan(0.45);
    expect(taken / (100 * w.count)).toBeLessThan(0.55);
  });

  it('draws the pool-by-pool weather unchanged when nothing is zone-wide', () => {
    const a = drawWeather(['>20%', '5-10%'], 300_000, 5, 10);
    const b = drawWeather(['>20%', '5-10%'], 300_000, 5, 10, 0);
    expect([...b.events.entries()]).toEqual([...a.events.entries()]);
  });

  it('zone-wide: every pool reclaimed and dry at once, each pool keeping its hazard', () => {
    const minutes = 3_000_000;
    const bands = ['>20%', '>20%', '>20%'] as const;
    const w = drawWeather([...bands], minutes, 11, 10, 1);
    for (const [minute, events] of w.events) {
      expect(events.map((e) => e.pool)).toEqual([0, 1, 2]);
      for (const pool of [0, 1, 2]) expect(w.dryUntil(pool, minute)).toBe(minute + 60);
    }
    const perPool = (minutes * hazardPerMinute('>20%', 10)) / RECLAIM_SHARE;
    expect(Math.abs(w.count / 3 - perPool) / perPool).toBeLessThan(0.1);
    const half = drawWeather([...bands], minutes, 11, 10, 0.5);
    expect(Math.abs(half.count / 3 - perPool) / perPool).toBeLessThan(0.1);
    expect(() => drawWeather([...bands], 10, 1, 1, 1.5)).toThrow(/zoneWide must be within 0..1/);
  });

  it('zone-wide over pools in zones: an event takes every pool of one zone only; one zone draws the weather of before zones', () => {
    const bands = Array.from({ length: 6 }, () => '>20%' as const);
    const zoneOf = [0, 0, 0, 1, 1, 1];
    const w = drawWeather(bands, 1_000_000, 11, 10, 1, zoneOf);
    expect(w.count).toBeGreaterThan(0);
    for (const events of w.events.values()) {
      const zones = new Set(events.map((e) => zoneOf[e.pool]));
      for (const z of zones) expect(events.filter((e) => zoneOf[e.pool] === z).length).toBe(3);
    }
    const one = drawWeather(['>20%', '>20%', '>20%'], 300_000, 5, 10, 0.5, [0, 0, 0]);
    const before = drawWeather(['>20%', '>20%', '>20%'], 300_000, 5, 10, 0.5);
    expect([...one.events.entries()]).toEqual([...before.events.entries()]);
  });

  it('spreads spot over zones first, then over the pools of a zone; a dry pool leaves its zone fewer', () => {
    // Pools 0-1 in zone 0, 2-3 in zone 1, 4-5 in zone 2.
    const fleet = new MixFleet({
      pools: 6,
      initialOnDemand: 0,
      coldStartMinutes: 8,
      detachOnWarning: true,
      zoneOf: [0, 0, 1, 1, 2, 2],
    });
    const mix = { onDemandBase: 0, onDemandPercentAboveBase: 0, spotPools: [0, 1, 2, 3, 4, 5] };
    fleet.scaleTo(6, mix, 0, () => false);
    expect(fleet.spot.map((p) => p.total)).toEqual([1, 1, 1, 1, 1, 1]);
    fleet.scaleTo(9, mix, 1, (pool) => pool === 2);
    // Zone 1 still gets its share, all in its open pool.
    expect(fleet.spot.map((p) => p.total)).toEqual([2, 1, 1, 2, 2, 1]);
    fleet.scaleTo(6, mix, 2, () => false);
    expect(fleet.spot.map((p) => p.total).reduce((a, b) => a + b, 0)).toBe(6);
  });

  it('runs a pool dry for an hour after a reclaim', () => {
    const w = drawWeather(['>20%'], 2_000_000, 3, 10);
    const [first] = [...w.events.keys()];
    expect(w.dryUntil(0, first!)).toBe(first! + 60);
    expect(w.dryUntil(0, first! - 1)).toBeLessThan(first!);
  });
});
