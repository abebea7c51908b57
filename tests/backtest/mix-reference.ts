/**
 * Issue 11's bar on the reference scenario (examples/policy.yaml, 40 instances at peak, cold
 * start 8): spot at 35 % of on-demand, three instance types of the ">20 %" band in three
 * Availability Zones (nine pools, issue 22 item 3; one zone, --zones 1, is the reference of
 * before and is pinned to its figures exactly). Figures are in
 * docs/capacity-mix.md, "The backtest"; this pins them within a little.
 * On NASA July and on Twitter: Governor with the mix at least 30 % cheaper than Governor all
 * on-demand, with no more than 0.1 percentage point more violation minutes, and it holds the SLO
 * objective (99.5 % of minutes) and beats target tracking 70/30: cheaper at fewer violation
 * minutes, or holding the objective 70/30 misses (Twitter: the error budget buys the headroom its
 * bursts need, 131 violation minutes against 70/30's 2,778, at more cost); at ten times the
 * interruption rate the breaker keeps the extra violation minutes under 0.5 pp.
 *
 * One test file per trace (mix-reference-nasa.test.ts, mix-reference-twitter.test.ts), so the two
 * run on two workers instead of one file holding a worker for three minutes.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SPOT, runMixBacktest, type SpotOptions } from '#shared/backtest/mix/run.ts';
import { SPOTHEDGE } from '#shared/backtest/mix/spothedge.ts';
import { MIX_BASELINE, mixRows } from '#shared/backtest/mix/table.ts';
import { type LookaheadFits, lookaheadMemo } from '#shared/backtest/policies/lookahead.ts';
import { referenceScenario } from '#shared/backtest/scenario.ts';
import { parseTrace } from '#shared/backtest/trace.ts';
import { parsePolicyText } from '#shared/policy/load.ts';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const parsed = parsePolicyText(read('examples/policy.yaml'));
if (!parsed.ok) throw new Error('examples/policy.yaml does not validate');
const target = parsed.policy.targets[0]!;

// One memo of forecasts and noise fits per trace: the calm and the stormy run share them.
const memos = new Map<string, LookaheadFits>();

// Each run once: the tests below ask for some of the same runs (the planned commitment, calm).
const runs = new Map<string, ReturnType<typeof runOnce>>();
function run(file: string, interruptionScale = 1, more: Partial<SpotOptions> = {}) {
  const key = JSON.stringify([file, interruptionScale, more]);
  if (!runs.has(key)) runs.set(key, runOnce(file, interruptionScale, more));
  return runs.get(key)!;
}

function runOnce(file: string, interruptionScale: number, more: Partial<SpotOptions>) {
  const trace = parseTrace(read(`traces/${file}`), file);
  if (!memos.has(file)) memos.set(file, lookaheadMemo());
  const result = runMixBacktest({
    trace,
    target,
    options: referenceScenario(target),
    spot: { ...DEFAULT_SPOT, interruptionScale, ...more },
    fits: memos.get(file)!,
  });
  const rows = mixRows(result);
  const row = (name: string) => rows.find((r) => r.name === name)!;
  return {
    mix: row('governor + mix'),
    onDemand: row(MIX_BASELINE),
    split: row('target tracking 70/30'),
    committedOnly: row('governor, committed + on-demand'),
    hedge: row(SPOTHEDGE),
    result,
  };
}

/** The reference bars for one bundled trace, as a describe block. */
export function mixReferenceSuite(file: string): void {
  describe(`capacity mix on the reference scenario: ${file}`, () => {
    it('at least 30 % cheaper than all on-demand at no more violations, holding the objective, beating 70/30; the breaker holds at 10x', () => {
      const { mix, onDemand, split } = run(file);
      expect(mix.vsBaseline).toBeLessThanOrEqual(-30);
      expect(100 * (mix.violationRatio - onDemand.violationRatio)).toBeLessThanOrEqual(0.1);
      expect(1 - mix.violationRatio).toBeGreaterThanOrEqual(0.995);
      expect(mix.violationMinutes).toBeLessThan(split.violationMinutes);
      if (1 - split.violationRatio >= 0.995) expect(mix.costUsd).toBeLessThan(split.costUsd);

      // Over nine pools one reclaim takes at most a ninth of the spot: at ten times the rate the
      // breaker opens on NASA (3 times) but not on Twitter, and neither needs it to hold 0.5 pp.
      const stormy = run(file, 10);
      expect(stormy.mix.reclaimed).toBeGreaterThan(0);
      expect(100 * (stormy.mix.violationRatio - mix.violationRatio)).toBeLessThan(0.5);
      expect(stormy.mix.vsBaseline).toBeLessThanOrEqual(-30);
      // In one zone (three pools) the breaker is what holds it, as before zones.
      const oneZone = run(file, 10, { zones: 1 });
      expect(oneZone.mix.breakerTrips).toBeGreaterThan(0);
      expect(100 * (oneZone.mix.violationRatio - mix.violationRatio)).toBeLessThan(0.5);
    }, 600_000);

    // One zone reproduces the reference of before zones (docs/capacity-mix.md, before), but for the
    // spot hedge (shared/mix/hedge.ts): in one zone Twitter's larger loss cover leaves some plans an
    // on-demand base, above which the hedge runs more spot: 19,951 -> 19,945 USD. Moved since by
    // the error-budget control (docs/slo.md, November 2026: tightening in proportion, a young
    // panic at the written targets): NASA 6,593 -> 6,583 USD (97 -> 98 violation minutes),
    // Twitter 19,945 -> 19,192 USD (131 -> 143). Moved again by forecasts read from a day's start
    // (shared/forecast/series.ts historyStart, the log offset of the whole days): NASA 6,583 ->
    // 6,550 USD (98 -> 101 violation minutes), Twitter 19,192 -> 19,081 USD (143 -> 141).
    it('in one zone, the figures of before pools by zone: governor + mix to the dollar and the minute', () => {
      const before = {
        'nasa_http_1995_jul_per_minute.csv': { cost: 6_550, violations: 101 },
        'twitter_stream_2021_08_per_minute.csv': { cost: 19_081, violations: 141 },
      }[file]!;
      const { mix } = run(file, 1, { zones: 1 });
      expect(Math.round(mix.costUsd)).toBe(before.cost);
      expect(mix.violationMinutes).toBe(before.violations);
    }, 180_000);

    // Issue 22: the commitment governor commit plans on this trace's all on-demand fleet, at an
    // illustrative 3-year rate of 0.62 USD/h (on demand 1.52), under the spot mix. The committed
    // base is paid whether it runs or not, so Governor's rows hold it running (CommittedFloor):
    // fewer violation minutes than all on-demand for no more money, and cheaper than SpotHedge
    // (on Twitter at fewer violation minutes too; NASA: 56 against SpotHedge's 42).
    it('with the planned commitment: at least 45 % cheaper than all on-demand at fewer violation minutes, cheaper than SpotHedge; a 10x zone-wide storm adds under 0.5 pp', () => {
      const planned = { committed: 'auto' as const, committedUsdPerHour: 0.62 };
      const { mix, onDemand, committedOnly, hedge, result } = run(file, 1, planned);
      expect(result.spot.commitment.chosen).toBe('planned');
      expect(result.spot.commitment.instances).toBeGreaterThan(0);
      expect(mix.vsBaseline).toBeLessThanOrEqual(-45);
      expect(mix.costUsd).toBeLessThan(committedOnly.costUsd);
      expect(mix.violationMinutes).toBeLessThan(onDemand.violationMinutes);
      expect(committedOnly.violationMinutes).toBeLessThan(onDemand.violationMinutes);
      expect(mix.costUsd).toBeLessThan(hedge.costUsd);
      if (file.startsWith('twitter'))
        expect(mix.violationMinutes).toBeLessThanOrEqual(hedge.violationMinutes);
      expect(1 - mix.violationRatio).toBeGreaterThanOrEqual(0.995);
      expect(onDemand.committedUsd).toBe(0);

      const storm = run(file, 10, { ...planned, zoneWide: 1 });
      expect(storm.result.spot.commitment.instances).toBe(result.spot.commitment.instances);
      expect(100 * (storm.mix.violationRatio - mix.violationRatio)).toBeLessThan(0.5);
      expect(storm.mix.vsBaseline).toBeLessThanOrEqual(-45);
    }, 180_000);

    // Issue 22's bar against SpotHedge on both traces: with one spot instance of headroom
    // (spot.overProvision 1, engine's SpotHeadroom) governor + mix is cheaper at no more violation
    // minutes (NASA 5,354 USD and 35 minutes against 5,674 and 42). The headroom changes no other
    // row, goes on top of what the load asks and not of the committed base, and holds in a storm.
    it('with the planned commitment and one spot instance of headroom: cheaper than SpotHedge at no more violation minutes, and nothing else moves', () => {
      const planned = { committed: 'auto' as const, committedUsdPerHour: 0.62 };
      const plain = run(file, 1, planned);
      const headroom = run(file, 1, { ...planned, overProvision: 1 });
      const { mix, hedge } = headroom;
      expect(mix.costUsd).toBeLessThan(hedge.costUsd);
      expect(mix.violationMinutes).toBeLessThanOrEqual(hedge.violationMinutes);
      expect(mix.violationMinutes).toBeLessThanOrEqual(plain.mix.violationMinutes);
      expect(mix.costUsd).toBeGreaterThanOrEqual(plain.mix.costUsd);
      expect(mix.vsBaseline).toBeLessThanOrEqual(-45);
      for (const row of ['onDemand', 'hedge', 'committedOnly'] as const)
        expect(headroom[row]).toEqual(plain[row]);

      const storm = run(file, 10, { ...planned, zoneWide: 1, overProvision: 1 });
      expect(100 * (storm.mix.violationRatio - mix.violationRatio)).toBeLessThan(0.5);
    }, 300_000);
  });
}
