/**
 * The tune report in headless Chromium: the verdict first, the held-out table, the Pareto chart
 * with a dot per candidate, the front and the three marked policies, what changed; hostile text
 * stays text; nothing is fetched or logged as an error. Skips with a message without Chromium on
 * a developer machine; fails in CI (.ci/run installs it).
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PolicySummary } from '#shared/backtest/types.ts';
import type { Figures } from '#shared/tune/evaluate.ts';
import { renderTuneHtml } from '#shared/tune/html.ts';
import type { TuneReport } from '#shared/tune/report.ts';
import { chromiumGate, type HtmlPage, openHtml } from '../report/chromium.ts';

const gate = chromiumGate();
if (gate.message) console.log(gate.message);

const figures = (cost: number, viol: number): Figures => ({
  instanceMinutes: cost * 1000,
  costVsOracle: cost,
  violationMinutes: viol,
  violationRatio: viol / 10_000,
  scalingActions: 100,
  folds: [],
});
const summary = (name: string, cost: number, viol: number): PolicySummary => ({
  name,
  instanceMinutes: cost * 1000,
  costUsd: 0,
  costVsOracle: cost,
  violationMinutes: viol,
  violationRatio: viol / 5000,
  requestsInViolationRatio: 0,
  scalingActions: 50,
});
const candidates = Array.from({ length: 40 }, (_, i) => ({
  costVsOracle: 1.5 + (i % 10) / 10,
  violationRatio: (40 - i) / 1000,
}));
const report: TuneReport = {
  trace: 'history <b>x</b>.csv',
  targetId: 'chat-llm',
  minutes: 40_000,
  split: 26_800,
  goal: { violationRatio: 0.02, perFold: [0.02, 0.02, 0.02], source: "target tracking's own" },
  search: { candidates: 40, refused: 0, stoppedBy: 'candidates', seconds: 12.3, workers: 2 },
  training: { baseline: figures(2.1, 300), start: figures(1.9, 80), tuned: figures(1.6, 180) },
  heldOut: {
    tuned: summary('governor', 1.6, 90),
    start: summary('governor', 1.95, 40),
    baseline: summary('aws-target-tracking', 2.2, 150),
  },
  verdict: {
    dominates: true,
    cheaperBy: 0.27,
    violationsSaved: 60,
    sentence:
      'the tuned policy dominates target tracking on the held-out part: 27.3 % cheaper, 60 fewer violation minutes',
  },
  changes: [
    ['target', 75, 102],
    ['floorSigmas', 2.6, 1.65],
  ],
  tuned: { target: 102 },
  front: candidates.slice(0, 8).map((c) => ({ ...c, violationMinutes: c.violationRatio * 10_000 })),
  candidates,
};

if (gate.mustFail) {
  it('finds Chromium at /usr/bin/chromium, which CI installs in .ci/run', () => {
    throw new Error(gate.message);
  });
}

describe.skipIf(!gate.available)('the tune HTML report in headless Chromium', () => {
  let opened: HtmlPage;
  let page: Page;

  beforeAll(async () => {
    opened = await openHtml(renderTuneHtml(report, 'policy.yaml'), 'governor-tune-report-');
    page = opened.page;
  });

  afterAll(async () => {
    await opened?.close();
  });

  it('says the verdict first', async () => {
    expect(await page.$eval('#verdict', (el) => el.textContent)).toBe(`${report.verdict.sentence}.`);
  });

  it('lists the three policies of the held-out part', async () => {
    const names = await page.$$eval('#heldOut tbody td:first-child', (els) => els.map((e) => e.textContent));
    expect(names).toEqual(['tuned', 'starting (policy.yaml)', 'aws-target-tracking']);
  });

  it('draws a dot per candidate, the front and the three marked policies on a chart of real size', async () => {
    expect(await page.$$eval('#pareto circle.candidate', (els) => els.length)).toBe(40);
    expect(
      await page.$$eval('#pareto circle.mark', (els) => els.map((e) => e.getAttribute('data-name'))),
    ).toEqual(['target tracking', 'starting policy', 'tuned']);
    const points = await page.$eval('#front', (el) => el.getAttribute('points') ?? '');
    expect(points.split(' ')).toHaveLength(8);
    expect(await page.$eval('#pareto', (el) => el.getBoundingClientRect().width)).toBeGreaterThan(700);
  });

  it('lists what changed, and keeps a hostile trace name as text', async () => {
    expect(await page.$$eval('#changes li', (els) => els.length)).toBe(2);
    expect(await page.$eval('h1', (el) => el.textContent)).toBe(
      'Governor tune: chat-llm on history <b>x</b>.csv',
    );
  });

  it('fetches nothing beyond the page and logs no error', () => {
    expect(opened.requests.filter((u) => !u.startsWith('file://'))).toEqual([]);
    expect(opened.errors).toEqual([]);
  });
});
