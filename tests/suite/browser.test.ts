/**
 * The suite's HTML report opened in headless Chromium from a file:// URL: the summary names wins,
 * losses and the median saving at equal SLO, the grid has a cell per trace and variant coloured by its verdict, the chart has a dot per cell with losses outlined,
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
const OBJECTIVE = { minutes: 0.995, windowMinutes: 43_200 };
const figures = (instanceMinutes: number, violationMinutes: number) => ({
  instanceMinutes,
  costVsOracle: instanceMinutes / 1000,
  violationMinutes,
  violationRatio: violationMinutes / 1440,
  scalingActions: 10,
  attainment: 1 - violationMinutes / 1440,
  meetsObjective: 1 - violationMinutes / 1440 >= 0.995,
});
/** g: governor's [instance-minutes, violation minutes]; t: target tracking's best target, or null: none meets. */
const cell = (
  trace: string,
  variant: string,
  g: [number, number],
  t: [number, number] | null,
): CellResult => {
  const governor = figures(...g);
  const best = t ? { ...figures(...t), fraction: 0.4 } : null;
  const win = governor.meetsObjective && (!best || governor.instanceMinutes <= best.instanceMinutes);
  return {
    trace,
    variant,
    minutes: 1440,
    objective: OBJECTIVE,
    governor,
    baseline: figures(2000, 30),
    best,
    savingAtEqualSlo: best ? (best.instanceMinutes - governor.instanceMinutes) / best.instanceMinutes : null,
    outcome: win ? 'win' : 'loss',
    reason: win ? '' : 'costs 5.0 % more than target tracking at 0.4 x saturation',
    sentence: win ? 'Governor meets 99.5 % of minutes within the SLO' : 'Governor costs more',
    dominance: 'win',
    notes: [],
    reasonCounts: {},
  };
};
const cells = [
  cell('a.csv', 'reference', [1800, 5], [2000, 7]),
  cell('a.csv', 'cold-4', [1900, 2], null),
  cell('a.csv', 'peak-10', [2100, 5], [2000, 6]),
  cell(HOSTILE, 'reference', [1500, 0], [2000, 0]),
  cell(HOSTILE, 'cold-4', [2000, 3], [2000, 3]),
  cell(HOSTILE, 'peak-10', [1700, 20], [1900, 1]),
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

  it('says the summary in its first lines: 4 wins, 2 losses, the median saving at equal SLO', async () => {
    const summary = await page.$eval('#summary', (el) => el.textContent ?? '');
    // Savings 10 %, -5 %, 25 %, 0 %, 10.5 %: the median is 10 %; one cell has no target that meets.
    expect(summary).toBe(
      "6 cells: 4 wins, 2 losses; median saving at equal SLO 10.0 % (in 1 no target tracking target reaches governor's attainment).",
    );
    expect(await page.title()).toBe('Governor policy suite: 4 wins, 2 losses');
  });

  it('draws one grid cell per trace and variant, coloured by verdict', async () => {
    const count = (selector: string) => page.$$eval(selector, (els) => els.length);
    const counts = {
      all: await count('table.grid td[data-cell]'),
      win: await count('table.grid td.win'),
      loss: await count('table.grid td.loss'),
    };
    expect(counts).toEqual({ all: 6, win: 4, loss: 2 });
    const colour = await page.$eval(
      'table.grid td.loss',
      (el) =>
        (
          globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }
        ).getComputedStyle(el).backgroundColor,
    );
    expect(colour).toBe('rgb(255, 235, 233)');
  });

  it('plots a dot per cell, the losses outlined in red, on a chart of real size', async () => {
    const dots = await page.$$eval('#dominance circle', (els) => els.map((e) => e.getAttribute('stroke')));
    expect(dots).toHaveLength(6);
    expect(dots.filter((s) => s === '#cf222e')).toHaveLength(2);
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

/** Every bundled trace under every variant, with misses as deep as the real suite's (-7.3 %). */
const BUNDLED = [
  'nasa_http_1995_jul_per_minute.csv',
  'twitter_stream_2021_08_per_minute.csv',
  'azure_llm_2023_conv_per_minute.csv',
  'azure_llm_2023_conv_per_second.csv',
  'azure_llm_2023_code_per_minute.csv',
  'azure_llm_2023_code_per_second.csv',
];
const fullReport = () => {
  const all = selectVariants([]);
  const full = BUNDLED.flatMap((trace, t) =>
    all.map((v, i) => cell(trace, v.id, [1500 + 60 * i + 40 * t, (7 * i + 11 * t) % 110], [2000, 6])),
  );
  return toSuiteJson({
    policy: 'examples/policy.yaml',
    targetId: undefined,
    variants: all,
    cells: full,
    seconds: 1,
  });
};

describe.skipIf(!gate.available)('the whole suite page in a 1,280 px window', () => {
  let opened: HtmlPage;
  let page: Page;

  beforeAll(async () => {
    opened = await openHtml(renderSuiteHtml(fullReport()), 'governor-suite-width-');
    page = opened.page;
  });

  afterAll(async () => {
    await opened?.close();
  });

  it('draws 66 cells and is no wider than the window: no horizontal scroll of the page', async () => {
    expect(await page.$$eval('table.grid td[data-cell]', (els) => els.length)).toBe(66);
    expect(page.viewportSize()?.width).toBe(1280);
    expect(await page.$eval('html', (el) => el.scrollWidth)).toBeLessThanOrEqual(1280);
    for (const selector of ['table.grid', '#dominance', '#cells']) {
      const right = await page.$eval(selector, (el) => {
        const box = (el.closest('.scroll') ?? el).getBoundingClientRect();
        return box.right;
      });
      expect(right, selector).toBeLessThanOrEqual(1280);
    }
  });

  it("shows every chart label whole, the y axis' signs included", async () => {
    const clipped = await page.$eval('#dominance', (svg) => {
      const frame = svg.getBoundingClientRect();
      return [...svg.querySelectorAll('text')]
        .map((t) => ({ text: t.textContent ?? '', box: t.getBoundingClientRect() }))
        .filter(({ box }) => box.left < frame.left || box.right > frame.right + 0.5)
        .map(({ text }) => text);
    });
    expect(clipped).toEqual([]);
    const labels = await page.$$eval('#dominance text', (els) => els.map((e) => e.textContent ?? ''));
    expect(labels.filter((l) => /^[+-]\d/.test(l))).toHaveLength(2);
  });
});
