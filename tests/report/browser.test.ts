/**
 * The HTML report opened in headless Chromium from a file:// URL: the charts draw, the policies
 * shown at first have their lines and the others' toggles bring theirs, every policy has its
 * legend entry and table row, zoom and toggles work, a decision explains itself on hover,
 * hostile text stays text, nothing is fetched and nothing is logged as an error. What the page
 * opens on, the forecast band's start and the decision log's links are checked on screenshots
 * in screenshots.test.ts. Skips with a message when Chromium is missing on a developer
 * machine; fails in CI.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderHtmlReport } from '#shared/report/html.ts';
import { colorOf } from '#shared/report/payload.ts';
import { chromiumGate, launchChromium } from './chromium.ts';
import { syntheticResult } from './fixture.ts';

const gate = chromiumGate();
if (gate.message) console.log(gate.message);

const TRACE = 'nasa <script>window.pwned = 1</script> & co';
const MESSAGE = 'Scale out: <img src=x onerror="window.pwned = 2"> at 1.25x target';
// The backtest's own names: the page opens on governor and aws-target-tracking (view.ts).
const POLICIES = [
  'governor',
  'aws-target-tracking',
  'aws-target-tracking-at-slo',
  'k8s-hpa',
  'oracle',
  'static-peak',
];
const DRAWN = POLICIES.filter((name) => name !== 'oracle');
const SHOWN_AT_START = ['governor', 'aws-target-tracking'];
const colorOfPolicy = (name: string) => colorOf(POLICIES.indexOf(name));

interface CanvasLook {
  cssWidth: number;
  cssHeight: number;
  /** Share of pixels with any paint. */
  painted: number;
  /** Fully opaque pixels of exactly each colour. */
  hits: Record<string, number>;
}

// What the page's scripts see, typed here because the project's TypeScript has no DOM library.
interface Rect {
  left: number;
  top: number;
  width: number;
  height: number;
}
interface CanvasLike {
  width: number;
  height: number;
  getContext(kind: '2d'): {
    getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray };
  };
  getBoundingClientRect(): Rect;
}
interface ChartLike {
  scales: { x: { min: number; max: number } };
  over: { getBoundingClientRect(): Rect };
  valToPos(value: number, scale: string): number;
}
interface PageGlobals {
  document: { querySelector(selector: string): unknown };
  governorReport: { charts: ChartLike[] };
  pwned?: number;
}

const look = (page: Page, selector: string, colors: string[]): Promise<CanvasLook> =>
  page.evaluate(
    ([sel, wanted]) => {
      const canvas = (globalThis as unknown as PageGlobals).document.querySelector(sel) as CanvasLike;
      const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
      const rgb = wanted.map((hex) => [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)));
      const hits: Record<string, number> = Object.fromEntries(wanted.map((c) => [c, 0]));
      let painted = 0;
      for (let i = 0; i < data.length; i += 4) {
        if (data[i + 3]! === 0) continue;
        painted++;
        if (data[i + 3]! < 255) continue;
        rgb.forEach(([r, g, b], k) => {
          if (data[i] === r && data[i + 1] === g && data[i + 2] === b) hits[wanted[k]!]!++;
        });
      }
      const box = canvas.getBoundingClientRect();
      return {
        cssWidth: box.width,
        cssHeight: box.height,
        painted: painted / (canvas.width * canvas.height),
        hits,
      };
    },
    [selector, colors] as const,
  );

/** The main chart's x range, and the strip's, as the page's uPlot instances hold them. */
const ranges = (page: Page) =>
  page.evaluate(() => {
    const charts = (globalThis as unknown as PageGlobals).governorReport.charts;
    return charts.map((c) => [Math.round(c.scales.x.min), Math.round(c.scales.x.max)]);
  });

if (gate.mustFail) {
  it('finds Chromium at /usr/bin/chromium, which CI installs in .ci/run', () => {
    throw new Error(gate.message);
  });
}

const title = gate.available
  ? 'the HTML report in headless Chromium'
  : `the HTML report in headless Chromium (${gate.message})`;

describe.skipIf(!gate.available)(title, () => {
  let browser: Browser;
  let page: Page;
  let dir: string;
  let url: string;
  const requests: string[] = [];
  const errors: string[] = [];
  const result = syntheticResult({
    minutes: 4320,
    traceName: TRACE,
    message: MESSAGE,
    policyNames: POLICIES,
  });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'governor-report-'));
    const file = join(dir, 'report.html');
    writeFileSync(file, renderHtmlReport(result));
    url = pathToFileURL(file).href;
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('request', (r) => requests.push(r.url()));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(`console: ${m.text()}`);
    });
    page.on('pageerror', (e) => errors.push(`page: ${e.message}`));
    await page.goto(url);
    await page.waitForSelector('html[data-report="ready"]', { timeout: 10_000 });
  });

  afterAll(async () => {
    await browser?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('draws governor and AWS target tracking in their colours at first, and each other policy once its toggle is ticked', async () => {
    const colors = DRAWN.map(colorOfPolicy);
    const first = await look(page, '#chart-main canvas', colors);
    expect(first.cssWidth).toBeGreaterThan(900);
    expect(first.cssHeight).toBeGreaterThan(300);
    expect(first.painted).toBeGreaterThan(0.05);
    for (const name of DRAWN) {
      if (SHOWN_AT_START.includes(name)) expect(first.hits[colorOfPolicy(name)], name).toBeGreaterThan(50);
      else expect(first.hits[colorOfPolicy(name)], name).toBe(0);
    }
    const others = DRAWN.filter((name) => !SHOWN_AT_START.includes(name));
    for (const name of others) await page.getByRole('checkbox', { name, exact: true }).check();
    const all = await look(page, '#chart-main canvas', colors);
    for (const name of DRAWN) expect(all.hits[colorOfPolicy(name)], name).toBeGreaterThan(50);
    for (const name of others) await page.getByRole('checkbox', { name, exact: true }).uncheck();
  });

  it('draws a violation bar for each shown policy that broke the SLO, the hidden ones faded', async () => {
    const violating = DRAWN.filter(
      (name) => result.policies[POLICIES.indexOf(name)]!.series.violationMinutes.length > 0,
    );
    const strip = await look(page, '#chart-violations canvas', violating.map(colorOfPolicy));
    expect(violating.length).toBeGreaterThanOrEqual(3);
    expect(strip.painted).toBeGreaterThan(0.01);
    for (const name of violating) {
      const hits = strip.hits[colorOfPolicy(name)];
      if (SHOWN_AT_START.includes(name)) expect(hits, name).toBeGreaterThan(10);
      else expect(hits, name).toBe(0);
    }
  });

  it('lists a legend entry per shown series and a toggle per drawn policy, the oracle only as the floor', async () => {
    const legend = await page.locator('#chart-main .u-legend .u-series:visible .u-label').allTextContents();
    const toggles = await page.locator('#policy-toggles label').allTextContents();
    const ticked = await page
      .locator('#policy-toggles input')
      .evaluateAll((inputs) => inputs.map((i) => (i as unknown as { checked: boolean }).checked));
    expect(legend).toEqual([
      'time',
      'oracle (floor)',
      'forecast p99',
      'forecast p90',
      'forecast p50',
      'demand',
      ...SHOWN_AT_START,
    ]);
    expect(toggles).toEqual(DRAWN);
    expect(ticked).toEqual(DRAWN.map((name) => SHOWN_AT_START.includes(name)));
  });

  it('lists a summary row per policy and the reason counts of the governed one', async () => {
    const rows = await page.locator('#summary-table tbody th').allTextContents();
    const reasons = await page.locator('#reason-table tbody th').allTextContents();
    expect(rows).toEqual(POLICIES);
    expect(reasons).toEqual(['WithinBand', 'ScaleOutBreach', 'ScaleInStabilized', 'StepLimitUp']);
  });

  it('zooms to a dragged span on both charts and out to the whole trace on a double-click', async () => {
    await page.locator('#chart-main').scrollIntoViewIfNeeded();
    const box = (await page.locator('#chart-main .u-over').boundingBox())!;
    await page.mouse.move(box.x + box.width * 0.4, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.6, box.y + box.height / 2, { steps: 5 });
    await page.mouse.up();
    // A fifth of the day the page opens on: about 288 minutes.
    const [main, strip] = await ranges(page);
    expect(main![1]! - main![0]!).toBeGreaterThan(250);
    expect(main![1]! - main![0]!).toBeLessThan(330);
    expect(strip).toEqual(main);
    await page.mouse.dblclick(box.x + box.width / 2, box.y + box.height / 2);
    expect(await ranges(page)).toEqual([
      [0, 4319],
      [0, 4319],
    ]);
  });

  it('zooms to a decision from the log and shows its reasons and message on hover, as text', async () => {
    const first = result.policies[0]!.decisions![0]!;
    await page.locator('#decision-log a').first().click();
    expect((await ranges(page))[0]).toEqual([Math.max(0, first.minute - 60), first.minute + 60]);
    await page.locator('#chart-main').scrollIntoViewIfNeeded();
    const at = await page.evaluate(
      ([minute, to]) => {
        const u = (globalThis as unknown as PageGlobals).governorReport.charts[0]!;
        const over = u.over.getBoundingClientRect();
        return { x: over.left + u.valToPos(minute, 'x'), y: over.top + u.valToPos(to, 'inst') };
      },
      [first.minute, first.to] as const,
    );
    await page.mouse.move(at.x, at.y);
    const tip = page.locator('#tooltip');
    await expect.poll(() => tip.isVisible()).toBe(true);
    expect(await tip.locator('.tip-reasons').textContent()).toBe(first.reasons.join(', '));
    expect(await tip.locator('.tip-message').textContent()).toBe(first.message);
    expect(await page.locator('img').count()).toBe(0);
  });

  it('hides a policy and its decisions when its toggle is cleared, and brings them back', async () => {
    const toggle = page.getByRole('checkbox', { name: 'governor', exact: true });
    const legendEntry = page
      .locator('#chart-main .u-legend .u-series')
      .filter({ has: page.locator('.u-label', { hasText: /^governor$/ }) });
    await toggle.uncheck();
    expect(await legendEntry.isVisible()).toBe(false);
    expect(await page.locator('#decision-log tr').count()).toBe(0);
    await toggle.check();
    expect(await legendEntry.isVisible()).toBe(true);
    expect(await page.locator('#decision-log tr').count()).toBeGreaterThan(0);
  });

  it('shows a hostile trace name as text and runs none of the injected scripts', async () => {
    expect(await page.locator('h1').textContent()).toBe(`Governor backtest: ${TRACE}`);
    expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).pwned)).toBeUndefined();
  });

  it('draws a bare result too: one baseline policy, no forecast, no decisions, an hour long', async () => {
    const bare = syntheticResult({ minutes: 60, policyNames: ['hpa'], forecast: false, governed: false });
    const file = join(dir, 'bare.html');
    writeFileSync(file, renderHtmlReport(bare));
    const other = await browser.newPage({ viewport: { width: 1000, height: 800 } });
    const problems: string[] = [];
    other.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    other.on('pageerror', (e) => problems.push(e.message));
    await other.goto(pathToFileURL(file).href);
    await other.waitForSelector('html[data-report="ready"]', { timeout: 10_000 });
    const main = await look(other, '#chart-main canvas', [colorOf(0)]);
    expect(main.hits[colorOf(0)]).toBeGreaterThan(50);
    expect(await other.locator('#decision-log-table').count()).toBe(0);
    expect(await other.locator('#layer-toggles label').allTextContents()).toEqual([
      'billed capacity (ready + starting)',
    ]);
    expect(problems).toEqual([]);
    await other.close();
  });

  it('fetches nothing besides the report file itself', () => {
    expect(requests).toEqual([url]);
  });

  it('logs no console errors and throws no page errors', () => {
    expect(errors).toEqual([]);
  });
});
