/**
 * The example policy on every bundled trace under every variant of the suite, judged against the
 * objective and target tracking at its best target (docs/backtest.md, "The policy suite"). Each
 * cell's verdict must equal its pin in tests/suite/pins.json: a win that flips to a loss fails
 * and names the cell; a loss that turns into a win fails too, until the pins are regenerated
 * after the change that earned it:
 *   npx governor suite --json reports/suite.json && npx node scripts/suite-pins.ts reports/suite.json
 * Pinned on verdicts, not figures: a change that moves a figure and keeps every verdict passes.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parsePins, pinKey } from '#shared/suite/pins.ts';
import { runSuite } from '#shared/suite/pool.ts';
import { VARIANTS } from '#shared/suite/variants.ts';

const PINS = 'tests/suite/pins.json';
const traces = readdirSync('traces')
  .filter((f) => f.endsWith('.csv'))
  .sort()
  .map((f) => `traces/${f}`);
const pins = parsePins(readFileSync(PINS, 'utf8'), PINS);

describe('the example policy in the suite: every bundled trace, every variant, as pinned', async () => {
  const cells = await runSuite({
    policyText: readFileSync('examples/policy.yaml', 'utf8'),
    policyName: 'examples/policy.yaml',
    tracePaths: traces,
    variants: VARIANTS,
    workers: 2,
  });

  it('runs every trace under every variant, each with a pin', () => {
    expect(cells).toHaveLength(traces.length * VARIANTS.length);
    expect(cells.map(pinKey).sort()).toEqual(Object.keys(pins).sort());
  });

  it.each(cells.map((c) => [pinKey(c), c] as const))('%s: the verdict is as pinned', (key, c) => {
    const pinned = pins[key];
    const why =
      pinned === 'win' ? `a pinned win flipped: ${c.reason}` : `now ${c.outcome}: regenerate ${PINS}`;
    expect(c.outcome, `${key}: ${why}. ${c.sentence}`).toBe(pinned);
  });
});
