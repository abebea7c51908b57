/**
 * The report's first view, its forecast band and its decision links, checked on screenshots
 * taken in headless Chromium (page.screenshot, decoded by png.ts). No golden image from another
 * machine: each check is computed on the pixels against what the data says should be there:
 * which policy colours appear in the plot, where the violation bars of the day the page opens
 * on fall (so the x axis spans that day), that no blue of the forecast band lies left of the
 * first forecast minute, and that the chart is on screen after a time link was followed.
 * Set REPORT_SCREENSHOTS=DIR to keep the screenshots for a look.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderHtmlReport } from '#shared/report/html.ts';
import { colorOf } from '#shared/report/payload.ts';
import { formatMinute, minuteRuns } from '#shared/report/time.ts';
import { chromiumGate, type HtmlPage, openHtml } from './chromium.ts';
import { syntheticResult } from './fixture.ts';
import { blueTinted, countPixels, expectedSpans, type Match, near, runsAlong } from './pixels.ts';
import { decodePng, type Image } from './png.ts';

const gate = chromiumGate();

const POLICIES = ['governor', 'governor-reactive', 'aws-target-tracking', 'k8s-hpa', 'oracle', 'static-peak'];
const DRAWN = POLICIES.filter((name) => name !== 'oracle');
const SHOWN_AT_START = ['governor', 'aws-target-tracking'];
const MINUTES = 4320;
// Day 2 has a third more requests than the others: the page opens on it.
const BUSIEST: [number, number] = [1440, 2880];
// As the look-ahead records it: no forecast in the first day.
const FORECAST_FROM = 1441;
const AROUND_FORECAST: [number, number] = [FORECAST_FROM - 240, FORECAST_FROM + 240];

const solid = (name: string): Match => near(colorOf(POLICIES.indexOf(name)));

interface PageGlobals {
  document: {
    activeElement: { id: string; matches(selector: string): boolean } | null;
    body: { scrollHeight: number };
  };
  scrollTo(x: number, y: number): void;
  location: { hash: string };
  governorReport: {
    charts: {
      scales: { x: { min: number; max: number } };
      setScale(key: string, range: { min: number; max: number }): void;
      valToPos(value: number, scale: string): number;
    }[];
  };
}

if (gate.mustFail) {
  it('finds Chromium at /usr/bin/chromium, which CI installs in .ci/run', () => {
    throw new Error(gate.message);
  });
}

describe.skipIf(!gate.available)('the HTML report on screenshots in headless Chromium', () => {
  let opened: HtmlPage;
  let page: Page;
  const keep = process.env.REPORT_SCREENSHOTS;
  const result = syntheticResult({
    minutes: MINUTES,
    policyNames: POLICIES,
    busiestDay: 1,
    forecastFrom: FORECAST_FROM,
  });
  const violationRuns = (name: string) =>
    minuteRuns(result.policies[POLICIES.indexOf(name)]!.series.violationMinutes);

  /** A screenshot of `locator`'s box, decoded; kept under REPORT_SCREENSHOTS when set. */
  async function shot(locator: Locator | Page, name: string): Promise<Image> {
    await page.mouse.move(0, 0);
    const png = await locator.screenshot();
    if (keep) writeFileSync(join(keep, `${name}.png`), png);
    return decodePng(png);
  }

  const zoom = ([min, max]: [number, number]) =>
    page.evaluate(
      ([lo, hi]) =>
        (globalThis as unknown as PageGlobals).governorReport.charts[0]!.setScale('x', { min: lo, max: hi }),
      [min, max] as const,
    );

  const ranges = () =>
    page.evaluate(() =>
      (globalThis as unknown as PageGlobals).governorReport.charts.map((c) => [
        c.scales.x.min,
        c.scales.x.max,
      ]),
    );

  /**
   * The violation strip's bars of `name` against its violating minutes on an axis from min to
   * max, along the middle line of its row: every pixel solid in its colour lies in a span the
   * data puts there (1.5 px either side for anti-aliasing), and every span 3 px or wider is
   * solid inside. Returns how many solid pixels the row has.
   */
  function checkBars(strip: Image, name: string, [min, max]: [number, number]): number {
    const row = DRAWN.indexOf(name);
    const rowHeight = strip.height / DRAWN.length;
    // paintViolations: the label on top, the bar from 15 px under the row's top to 3 px above its end.
    const y = row * rowHeight + 15 + (rowHeight - 18) / 2;
    const color = solid(name);
    const spans = expectedSpans(violationRuns(name), min, max, strip.width);
    let pixels = 0;
    for (const [a, b] of runsAlong(strip, y, 0, strip.width, color)) {
      for (let x = a; x < b; x++) {
        const where = spans.some(([s, e]) => x + 0.5 >= s - 1.5 && x + 0.5 <= e + 1.5);
        expect(where, `${name}: solid at x = ${x}, where the data has no violation`).toBe(true);
        pixels++;
      }
    }
    for (const [s, e] of spans.filter(([s, e]) => e - s >= 3)) {
      const inside = runsAlong(strip, y, Math.ceil(s) + 1, Math.floor(e) - 1, color);
      const filled = inside.reduce((n, [a, b]) => n + b - a, 0);
      expect(filled, `${name}: no bar over ${s.toFixed(1)}..${e.toFixed(1)}`).toBe(
        Math.floor(e) - Math.ceil(s) - 2,
      );
    }
    return pixels;
  }

  beforeAll(async () => {
    if (keep) mkdirSync(keep, { recursive: true });
    opened = await openHtml(renderHtmlReport(result), 'governor-report-shots-');
    page = opened.page;
    await page.waitForSelector('html[data-report="ready"]', { timeout: 10_000 });
  });

  afterAll(async () => {
    await opened?.close();
  });

  it('opens on the busiest day with governor and AWS target tracking drawn and the other policies not', async () => {
    expect(await ranges()).toEqual([BUSIEST, BUSIEST]);
    expect(await page.locator('#view-range').textContent()).toBe(
      'Showing day 2 00:00 to day 3 00:00 (1 d) of 3 d: the busiest day (the most requests).',
    );
    const plot = await shot(page.locator('#chart-main .u-over'), 'opening-plot');
    const all = { x: 0, y: 0, width: plot.width, height: plot.height };
    for (const name of DRAWN) {
      const pixels = countPixels(plot, all, solid(name));
      if (SHOWN_AT_START.includes(name)) expect(pixels, name).toBeGreaterThan(300);
      else expect(pixels, name).toBe(0);
    }
  });

  it('spans exactly the busiest day on the x axis: each violation bar of that day where its minutes are', async () => {
    const strip = await shot(page.locator('#chart-violations .u-over'), 'opening-strip');
    for (const name of SHOWN_AT_START) expect(checkBars(strip, name, BUSIEST), name).toBeGreaterThan(40);
    // The hidden policies' rows are faded: none of their colour drawn solid.
    for (const name of DRAWN.filter((n) => !SHOWN_AT_START.includes(n))) {
      expect(countPixels(strip, { x: 0, y: 0, width: strip.width, height: strip.height }, solid(name))).toBe(
        0,
      );
    }
  });

  it('highlights the button of the window showing: the busiest day at first, the whole trace once clicked, none off a named window', async () => {
    const whole = page.getByRole('button', { name: 'Whole trace (3 d)' });
    const busiest = page.getByRole('button', { name: 'Busiest day' });
    const pressed = async () =>
      page
        .locator('#zoom-buttons button')
        .evaluateAll((bs) =>
          bs.map(
            (b) => `${(b as unknown as { className: string }).className}|${b.getAttribute('aria-pressed')}`,
          ),
        );
    await busiest.click();
    expect((await pressed()).slice(0, 2)).toEqual(['|false', 'primary|true']);
    await whole.click();
    expect((await pressed()).slice(0, 2)).toEqual(['primary|true', '|false']);
    expect(await ranges()).toEqual([
      [0, MINUTES - 1],
      [0, MINUTES - 1],
    ]);
    expect(await page.locator('#view-range').textContent()).toContain(': the whole trace.');
    const strip = await shot(page.locator('#chart-violations .u-over'), 'whole-strip');
    for (const name of SHOWN_AT_START) checkBars(strip, name, [0, MINUTES - 1]);
    await busiest.click();
    expect(await ranges()).toEqual([BUSIEST, BUSIEST]);
    await zoom(AROUND_FORECAST);
    expect(await pressed()).not.toContain('primary|true');
    await busiest.click();
  });

  it('draws no forecast band before the first forecast minute, and the band from it on', async () => {
    await zoom(AROUND_FORECAST);
    // Only the floor, the demand and the forecast: no policy line or marker to be blue.
    const toggles = page.locator('#policy-toggles input');
    const ticked = await toggles.evaluateAll((inputs) =>
      inputs.map((i) => (i as unknown as { checked: boolean }).checked),
    );
    for (const toggle of await toggles.all()) await toggle.uncheck();
    try {
      const plot = await shot(page.locator('#chart-main .u-over'), 'forecast-start');
      const [min, max] = AROUND_FORECAST;
      const from = ((FORECAST_FROM - min) / (max - min)) * plot.width;
      const left = { x: 0, y: 0, width: from - 3, height: plot.height };
      const right = { x: from + 3, y: 0, width: plot.width - from - 3, height: plot.height };
      expect(countPixels(plot, left, blueTinted)).toBe(0);
      expect(countPixels(plot, right, blueTinted)).toBeGreaterThan(2000);
    } finally {
      for (const [i, toggle] of (await toggles.all()).entries()) await toggle.setChecked(ticked[i]!);
    }
  });

  it('reads "no forecast yet" at the cursor before the first forecast minute, not "0 req/min"', async () => {
    await zoom(AROUND_FORECAST);
    const [min, max] = AROUND_FORECAST;
    const over = (await page.locator('#chart-main .u-over').boundingBox())!;
    const legend = (q: string) =>
      page
        .locator('#chart-main .u-legend .u-series')
        .filter({ has: page.locator('.u-label', { hasText: new RegExp(`^forecast ${q}$`) }) })
        .locator('.u-value')
        .textContent();
    const hover = (minute: number) =>
      page.mouse.move(over.x + ((minute - min) / (max - min)) * over.width, over.y + over.height / 2);
    await hover(FORECAST_FROM - 100);
    const before = await Promise.all(['p50', 'p90', 'p99'].map(legend));
    await hover(FORECAST_FROM + 100);
    const after = await Promise.all(['p50', 'p90', 'p99'].map(legend));
    await page.mouse.move(0, 0);
    expect(before).toEqual(['no forecast yet', 'no forecast yet', 'no forecast yet']);
    for (const value of after) expect(value).toMatch(/^[\d,]+ req\/min$/);
  });

  it('follows a time link in the decision log from the keyboard: zooms, scrolls the chart into view, focuses it', async () => {
    await page.getByRole('button', { name: 'Busiest day' }).click();
    const decision = result.policies[0]!.decisions!.find((d) => d.minute >= BUSIEST[0])!;
    await page.evaluate(() => {
      const g = globalThis as unknown as PageGlobals;
      g.scrollTo(0, g.document.body.scrollHeight);
    });
    const overBefore = (await page.locator('#chart-main .u-over').boundingBox())!;
    expect(overBefore.y + overBefore.height, 'the chart is off screen before').toBeLessThan(0);
    const link = page.locator('#decision-log a.when').first();
    expect(await link.textContent()).toBe(formatMinute(decision.minute));
    expect(await link.getAttribute('href')).toBe('#chart-wrap');
    await link.focus();
    await page.keyboard.press('Enter');

    const zoomed = [decision.minute - 60, decision.minute + 60];
    expect(await ranges()).toEqual([zoomed, zoomed]);
    const state = await page.evaluate(() => {
      const g = globalThis as unknown as PageGlobals;
      const active = g.document.activeElement;
      return { hash: g.location.hash, focused: active?.id, visible: active?.matches(':focus-visible') };
    });
    expect(state).toEqual({ hash: '#chart-wrap', focused: 'chart-wrap', visible: true });
    expect(await page.locator('#view-range').textContent()).toContain(
      `the two hours around governor's decision at ${formatMinute(decision.minute)}`,
    );
    expect(await page.locator('#decision-log tr.current td a').textContent()).toBe(
      formatMinute(decision.minute),
    );

    // The viewport as the reader sees it: the plot inside, with governor's line and, at the
    // middle of the plot, the decision's marker.
    const screen = await shot(page, 'after-link');
    const over = (await page.locator('#chart-main .u-over').boundingBox())!;
    expect(over.y).toBeGreaterThanOrEqual(0);
    expect(over.y + over.height).toBeLessThanOrEqual(screen.height);
    const plot = { x: over.x, y: over.y, width: over.width, height: over.height };
    expect(countPixels(screen, plot, solid('governor'))).toBeGreaterThan(300);
    const markerY = await page.evaluate(
      (to) => (globalThis as unknown as PageGlobals).governorReport.charts[0]!.valToPos(to, 'inst'),
      decision.to,
    );
    const marker = { x: over.x + over.width / 2 - 6, y: over.y + markerY - 6, width: 12, height: 12 };
    expect(countPixels(screen, marker, solid('governor'))).toBeGreaterThan(20);

    // Tab goes on from the chart's own controls; Back returns to the log.
    await page.keyboard.press('Tab');
    expect(
      await page.evaluate(() =>
        (globalThis as unknown as PageGlobals).document.activeElement?.matches('#zoom-buttons button'),
      ),
    ).toBe(true);
    await page.goBack();
    expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).location.hash)).toBe('');
    const back = (await page.locator('#chart-main .u-over').boundingBox())!;
    expect(back.y + back.height, 'Back scrolls to the log again').toBeLessThan(0);
  });

  it('fetches nothing besides the report file and logs no errors', () => {
    expect(opened.requests).toEqual([opened.url]);
    expect(opened.errors).toEqual([]);
  });
});
