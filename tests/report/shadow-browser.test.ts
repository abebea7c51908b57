/**
 * The shadow report's page (`governor shadow-report --html`) in headless Chromium: the verdict
 * first, the figures table, a uPlot chart drawn with its four series inside a 1,280 px window,
 * hostile text kept as text, nothing fetched and no error logged. Skips with a message without
 * Chromium on a developer machine; fails in CI (.ci/run installs it).
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shadowReport } from '#shared/live/shadow.ts';
import { shadowPage } from '#shared/live/shadow-lines.ts';
import { renderShadowHtml } from '#shared/report/shadow-html.ts';
import { chromiumGate, type HtmlPage, openHtml } from './chromium.ts';

const gate = chromiumGate();
if (gate.message) console.log(gate.message);

const t0 = Date.parse('2025-06-02T00:00:00Z');
const minutes = 1440;
const at = (k: number) => t0 + k * 60_000;
const report = shadowReport({
  targetId: 'chat <b>llm</b>',
  start: t0,
  end: at(minutes),
  decisions: Array.from({ length: minutes }, (_, k) => ({
    at: at(k) + 30_000,
    desiredCapacity: 3 + Math.round(2 * Math.sin(k / 120)),
    mode: 'shadow',
  })),
  fleet: new Map(Array.from({ length: minutes }, (_, k) => [at(k), 4] as const)),
  fleetSource: 'AWS/AutoScaling GroupInServiceInstances (AutoScalingGroupName=chat)',
  latency: {
    byMinute: new Map(Array.from({ length: minutes }, (_, k) => [at(k), 1500 + (k % 97) * 10] as const)),
    sloMs: 2000,
    metric: 'p95LatencyMs',
  },
  price: { usdPerHour: 1.212, source: 'the on-demand price of g5.2xlarge' },
});
const html = renderShadowHtml(shadowPage(report));

if (gate.mustFail) {
  it('finds Chromium at /usr/bin/chromium, which CI installs in .ci/run', () => {
    throw new Error(gate.message);
  });
}

describe.skipIf(!gate.available)('the shadow report page in headless Chromium', () => {
  let opened: HtmlPage;
  let page: Page;

  beforeAll(async () => {
    opened = await openHtml(html, 'governor-shadow-report-');
    page = opened.page;
    await page.waitForSelector('#shadow-chart .uplot canvas');
  });

  afterAll(async () => {
    await opened?.close();
  });

  it('opens with the verdict, then the figures either way', async () => {
    const first = await page.$eval('h1 + p', (el) => [el.id, el.textContent]);
    expect(first).toEqual(['verdict', report.verdict]);
    expect(report.verdict).toMatch(
      /^Over the last 1 day \(1,440 minutes compared\), Governor would have run/,
    );
    const labels = await page.$$eval('#figures tbody th', (els) => els.map((e) => e.textContent));
    expect(labels.slice(0, 2)).toEqual([
      'instance-hours',
      'cost USD (1.212 an instance-hour, the on-demand price of g5.2xlarge)',
    ]);
  });

  it('draws the chart with Governor, the fleet, the latency and its SLO, within a 1,280 px window', async () => {
    const legend = await page.$$eval('#shadow-chart .u-legend .u-label', (els) =>
      els.map((e) => e.textContent),
    );
    expect(legend).toEqual(['Time', 'Governor (shadow)', 'the fleet', 'p95LatencyMs', 'SLO']);
    const box = await page.$eval('#shadow-chart canvas', (el) => {
      const r = el.getBoundingClientRect();
      return { width: r.width, height: r.height, right: r.right };
    });
    expect(box.width).toBeGreaterThan(900);
    expect(box.right).toBeLessThanOrEqual(1280);
    expect(await page.$eval('html', (el) => el.scrollWidth)).toBeLessThanOrEqual(1280);
  });

  it('keeps a hostile target id as text', async () => {
    expect(await page.$eval('h1', (el) => el.textContent)).toBe('Governor shadow report: chat <b>llm</b>');
  });

  it('fetches nothing beyond the page and logs no error', () => {
    expect(opened.requests.filter((u) => !u.startsWith('file://'))).toEqual([]);
    expect(opened.errors).toEqual([]);
  });
});
