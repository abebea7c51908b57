/**
 * The report's cost-per-1,000-requests chart: its figures computed here from the series, and
 * drawn in headless Chromium where the data puts them (no golden image: every point's position
 * is mapped from its value through the chart's axes, and its colour is its policy's colour).
 * Set REPORT_SCREENSHOTS=DIR to keep the screenshot.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COST_CHART, costChartModel, niceCeiling } from '#shared/report/cost-chart.ts';
import { renderHtmlReport } from '#shared/report/html.ts';
import { colorOf } from '#shared/report/payload.ts';
import { chromiumGate, type HtmlPage, openHtml } from './chromium.ts';
import { syntheticResult } from './fixture.ts';
import { countPixels, near } from './pixels.ts';
import { decodePng, type Image } from './png.ts';

const POLICIES = ['governor', 'aws-target-tracking', 'k8s-hpa', 'oracle', 'static-peak'];
const result = syntheticResult({ minutes: 4320, policyNames: POLICIES, busiestDay: 1 });
const model = costChartModel(result);
const PRICE = result.scenario.pricePerInstanceHour;

/** USD per 1,000 requests of hour h, from the series: billed instance-minutes / 60 x price / (requests / 1,000). */
function hourly(name: string, h: number): number {
  const run = result.policies.find((p) => p.summary.name === name)!;
  let billed = 0;
  let requests = 0;
  for (let m = 60 * h; m < 60 * h + 60; m++) {
    billed += run.series.provisioned[m]! + 0.05 * run.series.warmPool[m]!;
    requests += result.demand[m]!;
  }
  return ((billed / 60) * PRICE) / (requests / 1000);
}

describe('the cost chart model', () => {
  it("charts a 3-day trace per hour: 72 points, each the hour's billed cost over its requests", () => {
    expect(model.bucket).toBe(60);
    expect(model.buckets).toHaveLength(72);
    expect(model.lines.map((l) => l.name)).toEqual([
      'governor',
      'aws-target-tracking',
      'k8s-hpa',
      'static-peak',
    ]);
    for (const line of model.lines) {
      line.values.forEach((v, h) => {
        expect(v).toBeCloseTo(hourly(line.name, h), 9);
      });
    }
  });

  it("draws the oracle as the floor, in no policy's colour, and colours the lines as the other charts", () => {
    model.floor.forEach((v, h) => {
      expect(v).toBeCloseTo(
        ((result.oracle.slice(60 * h, 60 * h + 60).reduce((a, b) => a + b, 0) / 60) * PRICE) /
          (result.demand.slice(60 * h, 60 * h + 60).reduce((a, b) => a + b, 0) / 1000),
        9,
      );
    });
    for (const line of model.lines) expect(line.color).toBe(colorOf(POLICIES.indexOf(line.name)));
  });

  it("leaves out a bucket with under 1 % of the busiest one's requests, and counts only scored minutes", () => {
    const quiet = syntheticResult({ minutes: 4320, policyNames: POLICIES });
    for (let m = 120; m < 180; m++) quiet.demand[m] = 1;
    const q = costChartModel(quiet);
    expect(q.floor[2]).toBeNull();
    for (const line of q.lines) expect(line.values[2]).toBeNull();
    const scored = costChartModel({ ...result, trace: { ...result.trace, scoreFrom: 2880 } });
    expect(scored.buckets).toHaveLength(24);
    expect(scored.buckets[0]!.start).toBe(2880);
  });

  it.each([
    { case: '0.42 rounds up to 0.5', x: 0.42, want: 0.5 },
    { case: '3.2 to 5', x: 3.2, want: 5 },
    { case: '20 stays 20', x: 20, want: 20 },
    { case: '21 to 50', x: 21, want: 50 },
  ])('axis top: $case', ({ x, want }) => {
    expect(niceCeiling(x)).toBeCloseTo(want, 12);
  });
});

const gate = chromiumGate();

describe.skipIf(!gate.available)('the cost chart on a screenshot in headless Chromium', () => {
  let opened: HtmlPage;
  let image: Image;

  beforeAll(async () => {
    opened = await openHtml(renderHtmlReport(result), 'governor-cost-chart-');
    const png = await opened.page.locator('#cost-chart').screenshot();
    if (process.env.REPORT_SCREENSHOTS)
      writeFileSync(join(process.env.REPORT_SCREENSHOTS, 'cost-chart.png'), png);
    image = decodePng(png);
  }, 60_000);

  afterAll(async () => {
    await opened?.close();
  });

  const { width, height, left, right, top, bottom } = COST_CHART;
  const x = (i: number) => left + ((i + 0.5) * (width - left - right)) / model.buckets.length;
  const y = (v: number) => top + (1 - v / model.yMax) * (height - top - bottom);

  it('is drawn at its own size, with nothing logged as an error and nothing fetched', () => {
    // A box at a fractional offset rounds out to one more row.
    expect(image.width).toBe(width);
    expect(image.height - height).toBeGreaterThanOrEqual(0);
    expect(image.height - height).toBeLessThanOrEqual(1);
    expect(opened.errors).toEqual([]);
    expect(opened.requests.filter((u) => !u.startsWith('file:'))).toEqual([]);
  });

  it("puts each policy's point where its cost per 1,000 requests says, in its colour", () => {
    // Governor is drawn on top: every one of its points shows. The others may hide under a
    // point drawn later, so most of theirs must show.
    for (const line of model.lines) {
      const color = near(line.color, 24);
      const shown = line.values.filter(
        (v, i) =>
          v !== null && countPixels(image, { x: x(i) - 3, y: y(v) - 3, width: 7, height: 7 }, color) > 0,
      ).length;
      const drawn = line.values.filter((v) => v !== null).length;
      if (line.name === 'governor') expect(shown, line.name).toBe(drawn);
      else expect(shown / drawn, line.name).toBeGreaterThanOrEqual(0.8);
    }
  });

  it('draws no policy colour above the highest point or outside the plot', () => {
    const highest = Math.max(...model.lines.flatMap((l) => l.values.map((v) => v ?? 0)));
    const above = { x: left, y: 0, width: width - left - right, height: Math.max(0, y(highest) - 5) };
    const outside = { x: 0, y: 0, width: left - 4, height };
    for (const line of model.lines) {
      const color = near(line.color, 24);
      expect(countPixels(image, above, color), `${line.name} above the highest point`).toBe(0);
      expect(countPixels(image, outside, color), `${line.name} left of the plot`).toBe(0);
    }
  });

  it("shades the oracle's floor under its line: grey at half its height in every hour", () => {
    const grey = near('#ededed', 6);
    model.floor.forEach((v, i) => {
      if (v === null) return;
      const box = { x: x(i) - 1, y: (y(v) + y(0)) / 2 - 1, width: 3, height: 3 };
      expect(countPixels(image, box, grey), `hour ${i}`).toBeGreaterThan(0);
    });
  });
});
