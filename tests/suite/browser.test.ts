/**
 * The suite's HTML report opened in headless Chromium from a file:// URL: the grid has a cell per
 * trace and variant coloured by its verdict, the chart has a dot per cell with losses outlined,
 * hostile text stays text, nothing is fetched and nothing is logged as an error. Skips with a
 * message when Chromium is missing on a developer machine; fails in CI (.ci/run installs it).
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CellResult } from '#shared/suite/cell.ts';
import { renderSuiteHtml } from '#shared/suite/html.ts';
import { toSuiteJson } from '#shared/suite/report.ts';
import { selectVariants } from '#shared/suite/variants.ts';
import { chromiumGate, type HtmlPage, openHtml } from '../report/chromium.ts';

const gate = chromiumGate();
if (gate.message) console.log(gate.message);

const HOSTILE = 'evil <img src=x onerror="window.pwned = 1">.csv';
const variants = selectVariants(['reference', 'cold-4', 'peak-10']);
const figures = (instanceMinutes: number, violationMinutes: number) => ({
  instanceMinutes,
  costVsOracle: instanceMinutes / 1000,
  violationMinutes,
  violationRatio: violationMinutes / 1440,
  scalingActions: 10,
});
const cell = (trace: string, variant: string, g: [number, number], t: [number, number]): CellResult => {
  const governor = figures(...g);
  const baseline = figures(...t);
  const outcome = g[0] <= t[0] && g[1] <= t[1] ? (g[0] === t[0] && g[1] === t[1] ? 'tie' : 'win') : 'loss';
  return {
    trace,
    variant,
    minutes: 1440,
    governor,
    baseline,
    outcome,
    reason: outcome === 'loss' ? 'costs 5.0 % more' : '',
    notes: [],
    reasonCounts: {},
  };
};
const cells = [
  cell('a.csv', 'reference', [1800, 10], [2000, 30]),
  cell('a.csv', 'cold-4', [1900, 12], [2000, 12]),
  cell('a.csv', 'peak-10', [2100, 5], [2000, 20]),
  cell(HOSTILE, 'reference', [1500, 0], [2000, 0]),
  cell(HOSTILE, 'cold-4', [2000, 3], [2000, 3]),
  cell(HOSTILE, 'peak-10', [1700, 1], [1900, 1]),
];
const report = toSuiteJson({
  policy: 'examples/policy.yaml',
  targetId: undefined,
  variants,
  cells,
  seconds: 1,
});

if (gate.mustFail) {
  it('finds Chromium at /usr/bin/chromium, which CI installs in .ci/run', () => {
    throw new Error(gate.message);
  });
}

describe.skipIf(!gate.available)('the suite HTML report in headless Chromium', () => {
  let opened: HtmlPage;
  let page: Page;

  beforeAll(async () => {
    opened = await openHtml(renderSuiteHtml(report), 'governor-suite-report-');
    page = opened.page;
  });

  afterAll(async () => {
    await opened?.close();
  });

  it('says the summary in its first lines: 4 wins, 1 tie, 1 loss', async () => {
    const summary = await page.$eval('#summary', (el) => el.textContent ?? '');
    expect(summary).toBe('6 cells: governor dominates target tracking in 4; 4 wins, 1 ties, 1 losses.');
    expect(await page.title()).toBe('Governor policy suite: 4 wins, 1 ties, 1 losses');
  });

  it('draws one grid cell per trace and variant, coloured by verdict', async () => {
    const count = (selector: string) => page.$$eval(selector, (els) => els.length);
    const counts = {
      all: await count('table.grid td[data-cell]'),
      win: await count('table.grid td.win'),
      tie: await count('table.grid td.tie'),
      loss: await count('table.grid td.loss'),
    };
    expect(counts).toEqual({ all: 6, win: 4, tie: 1, loss: 1 });
    const colour = await page.$eval(
      'table.grid td.loss',
      (el) =>
        (
          globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }
        ).getComputedStyle(el).backgroundColor,
    );
    expect(colour).toBe('rgb(255, 235, 233)');
  });

  it('plots a dot per cell, the loss outlined in red, on a chart of real size', async () => {
    const dots = await page.$$eval('#dominance circle', (els) => els.map((e) => e.getAttribute('stroke')));
    expect(dots).toHaveLength(6);
    expect(dots.filter((s) => s === '#cf222e')).toHaveLength(1);
    const width = await page.$eval('#dominance', (el) => el.getBoundingClientRect().width);
    expect(width).toBeGreaterThan(600);
  });

  it('lists every cell in the table, hostile trace names as text', async () => {
    expect(await page.$$eval('#cells tbody tr', (rows) => rows.length)).toBe(6);
    const text = await page.$eval('#cells', (el) => el.textContent ?? '');
    expect(text).toContain('evil <img src=x onerror="window.pwned = 1">');
    expect(await page.evaluate(() => (globalThis as { pwned?: number }).pwned)).toBeUndefined();
  });

  it('fetches nothing beyond the page and logs no error', () => {
    expect(opened.requests.filter((u) => !u.startsWith('file://'))).toEqual([]);
    expect(opened.errors).toEqual([]);
  });
});
