/**
 * The suite's pinned verdicts (tests/suite/pins.json): one "trace variant" key per cell, its
 * verdict under the objective rule ('win' | 'loss'). tests/suite/bundled.test.ts runs the suite
 * and fails when a cell's verdict differs from its pin, so a win that flips to a loss fails and
 * names the cell; a loss that becomes a win fails too, until the pins are regenerated (so the
 * file stays the record of what the suite says). Regenerate after a deliberate change:
 *   npx governor suite --json reports/suite.json; npx node scripts/suite-pins.ts reports/suite.json
 */
import type { SloOutcome } from '../backtest/verdict.ts';

export type Pins = Record<string, SloOutcome>;

export const pinKey = (c: { trace: string; variant: string }): string => `${c.trace} ${c.variant}`;

/** The pins of a suite's cells, sorted by key so a regenerated file diffs cell by cell. */
export function pinsOf(cells: readonly { trace: string; variant: string; outcome: SloOutcome }[]): Pins {
  const entries = cells.map((c) => [pinKey(c), c.outcome] as const).sort(([a], [b]) => a.localeCompare(b));
  return Object.fromEntries(entries);
}

/** Reads a pins file's text; a malformed one is one line naming the fix. */
export function parsePins(text: string, file: string): Pins {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new Error(
      `${file} is not JSON: regenerate it with npx node scripts/suite-pins.ts reports/suite.json`,
    );
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new Error(`${file} must be an object of "trace variant": "win" | "loss"; regenerate it`);
  }
  for (const [key, value] of Object.entries(raw)) {
    if (value !== 'win' && value !== 'loss') {
      throw new Error(
        `${file}: pin "${key}" is ${JSON.stringify(value)}, not "win" or "loss"; regenerate it`,
      );
    }
  }
  return raw as Pins;
}
